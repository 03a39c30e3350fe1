# The libFuzzer targets (tests/fuzz): the manifest reader (fuzz_manifest.cpp) and the shim's
# config and identity-snapshot readers (fuzz_shim_formats.cpp), built with clang in their own
# build directory by scripts/fuzz (scripts/test builds them before the suites run) and run on a
# fixed number of inputs each. Skipped (77) when clang-16 or its fuzzer runtime is missing.

suite_requires() {
  command -v clang++-16 >/dev/null || return 1
  [ -f "$(clang++-16 -print-resource-dir)/lib/linux/libclang_rt.fuzzer-x86_64.a" ]
}

# fuzz_target TARGET WHAT RUNS: runs scripts/fuzz for TARGET on RUNS inputs (FUZZ_RUNS: from its
# seeds alone, -seed=1, so every run does the same work); it must pass and run all of them.
# SHIMCTL_FUZZ_RUNS overrides RUNS. The budgets are ~10 s each on a 2-core machine (fuzz_manifest
# ~1,400 inputs/s, fuzz_shim_formats ~28,000/s); `scripts/fuzz SECONDS` fuzzes for longer.
fuzz_target() {
  local target=$1 what=$2 runs=${SHIMCTL_FUZZ_RUNS:-$3}
  TEST "fuzz: $what survives $runs inputs of libFuzzer (ASan+UBSan, -seed=1)"
  local out rc
  out=$(FUZZ_BUILD_DIR=$BUILD_DIR/fuzz FUZZ_JOBS=2 FUZZ_RUNS=$runs "$SRC_DIR/scripts/fuzz" 0 "$target" 2>&1)
  rc=$?
  echo "$out" | sed 's/^/    /'
  [ $rc -eq 0 ] || fail "scripts/fuzz $target failed (exit $rc)"
  expect_contains "$out" "fuzz: ok, no crash in $runs inputs" "scripts/fuzz"
  local ran
  ran=$(echo "$out" | sed -n "s/^$target stat::number_of_executed_units: *//p")
  [ "${ran:-0}" -ge "$runs" ] || fail "only ${ran:-0} of $runs inputs were run"
}

test_fuzz_manifest_reader() {
  fuzz_target fuzz_manifest "parse_manifest" 10000
}

test_fuzz_shim_formats() {
  fuzz_target fuzz_shim_formats "the shim's config and snapshot readers" 300000
}
