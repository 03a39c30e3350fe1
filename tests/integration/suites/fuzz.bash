# The libFuzzer target for the manifest reader (tests/fuzz/fuzz_manifest.cpp), built with clang
# in its own build directory by scripts/fuzz and run for a bounded time with the broken-manifest
# corpus as seeds. Skipped (77) when clang-16 or its fuzzer runtime is missing.

suite_requires() {
  command -v clang++-16 >/dev/null || return 1
  [ -f "$(clang++-16 -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]
}

test_fuzz_manifest_reader() {
  TEST "fuzz: parse_manifest survives ${SHIMCTL_FUZZ_SECONDS:-20}s of libFuzzer (ASan+UBSan)"
  local out rc
  out=$(FUZZ_BUILD_DIR=$BUILD_DIR/fuzz FUZZ_JOBS=1 "$SRC_DIR/scripts/fuzz" "${SHIMCTL_FUZZ_SECONDS:-20}" 2>&1)
  rc=$?
  echo "$out" | sed 's/^/    /'
  [ $rc -eq 0 ] || fail "scripts/fuzz failed (exit $rc)"
  expect_contains "$out" "fuzz: ok, no crash" "scripts/fuzz"
  local runs
  runs=$(echo "$out" | sed -n 's/^stat::number_of_executed_units: *//p')
  [ "${runs:-0}" -gt 1000 ] || fail "only ${runs:-0} inputs were run"
}
