# The libFuzzer targets (tests/fuzz): the manifest reader (fuzz_manifest.cpp) and the shim's
# config and identity-snapshot readers (fuzz_shim_formats.cpp), built with clang in their own
# build directory by scripts/fuzz and run for a bounded time each. Skipped (77) when clang-16 or
# its fuzzer runtime is missing.

suite_requires() {
  command -v clang++-16 >/dev/null || return 1
  [ -f "$(clang++-16 -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]
}

# fuzz_target TARGET WHAT: runs scripts/fuzz for TARGET; it must pass and run > 1000 inputs.
fuzz_target() {
  local target=$1 what=$2
  TEST "fuzz: $what survives ${SHIMCTL_FUZZ_SECONDS:-20}s of libFuzzer (ASan+UBSan)"
  local out rc
  out=$(FUZZ_BUILD_DIR=$BUILD_DIR/fuzz FUZZ_JOBS=1 "$SRC_DIR/scripts/fuzz" "${SHIMCTL_FUZZ_SECONDS:-20}" "$target" 2>&1)
  rc=$?
  echo "$out" | sed 's/^/    /'
  [ $rc -eq 0 ] || fail "scripts/fuzz $target failed (exit $rc)"
  expect_contains "$out" "fuzz: ok, no crash" "scripts/fuzz"
  local runs
  runs=$(echo "$out" | sed -n "s/^$target stat::number_of_executed_units: *//p")
  [ "${runs:-0}" -gt 1000 ] || fail "only ${runs:-0} inputs were run"
}

test_fuzz_manifest_reader() {
  fuzz_target fuzz_manifest "parse_manifest"
}

test_fuzz_shim_formats() {
  fuzz_target fuzz_shim_formats "the shim's config and snapshot readers"
}
