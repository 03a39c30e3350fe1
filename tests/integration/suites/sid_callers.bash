# The runtime callers of callers.bash on the 2026 stack: Debian sid's hipcc 7.0.2 (hipBin),
# clang-21 (whose HIP objects carry a __hip_cuid_ symbol: the byte comparison with the unshimmed
# reference pass checks the shim's -cuid= too) and ccache 4.14.2, on the ROCm-7-shaped fixture.
# Runs inside the sid root (scripts/test-sid).

STACK=sid
source "$(dirname "${BASH_SOURCE[0]}")/callers.bash"

suite_requires() {
  command -v ccache >/dev/null && command -v ninja >/dev/null && command -v python3 >/dev/null &&
    [ -x "$SHIMCTL" ] && [ -x /usr/lib/llvm-21/bin/clang ] && file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF
}

# callers_prefix [INSTALL FLAGS...]: P = a private copy of the ROCm-7 fixture, installed.
callers_prefix() {
  P=$TEST_DIR/rocm
  local fixture
  fixture=$(rocm_prefix sid) || fail "cannot build the ROCm-7 (sid) fixture prefix"
  cp -a "$fixture" "$P" || fail "cannot copy $fixture"
  expect_success "$SHIMCTL" install "$P" --no-verify --cache-dir "$TEST_DIR/unused-cache" "$@"
  export XDG_CACHE_HOME=$TEST_DIR/xdg-cache
}

test_aiter_rocm7() {
  TEST "aiter on hipcc 7.0.2/clang-21: probes as unshimmed, pass 2 all hits, objects (CUIDs included) and .so as unshimmed"
  callers_prefix
  local args=(--kernels 2 --archs gfx90a,gfx942)
  drive aiter "${args[@]}" --passes cold,warm
  expect_eq "2 0 2" "$(r cold.compile.compiles) $(r cold.compile.hits) $(r cold.compile.misses)" "cold"
  expect_all_hits warm 2
  expect_eq 0 "$(r cold.probes.compiles)" "probes that reached the cache"
  [ "$(r cold.probes)" -ge 20 ] || fail "only $(r cold.probes) probes"
  local o
  for o in $(find "$TEST_DIR/work/out/warm" -name '*.o'); do
    nm "$o" | grep -q ' __hip_cuid_' || fail "$o has no __hip_cuid_ symbol: the CUID comparison proves nothing"
  done
  unshimmed aiter "${args[@]}"
  expect_same_outputs warm reference
  expect_same_file "$TEST_DIR/work/out/cold/probes.tsv" "$TEST_DIR/work/out/reference/probes.tsv"
}

test_cpp_extension_rocm7() {
  TEST "cpp_extension on hipcc 7.0.2/clang-21: all hits from a fresh build dir; bytes as unshimmed"
  callers_prefix
  drive cpp_extension --kernels 1 --passes cold,warm
  expect_eq "2 2" "$(r cold.compile.compiles) $(r cold.compile.misses)" "cold: compiles, misses"
  expect_all_hits warm 2
  unshimmed cpp_extension --kernels 1
  expect_same_outputs warm reference
}

# callers.bash's two roots on hipcc 7.0.2/clang-21 (the location-free paths, issue 42).
test_jit_two_roots_rocm7() {
  CALLERS_TWO_ROOTS_ARCHS=gfx90a,gfx942 test_jit_two_roots # clang-21 knows no gfx940
}
