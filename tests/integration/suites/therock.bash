# End to end on a TheRock-wheel-shaped prefix (scripts/make-rocm-prefix --layout therock):
# the SDK under _rocm_sdk_devel/ (LLVM in lib/llvm/bin), and the venv's bin/hipcc, a Python
# trampoline that execs _rocm_sdk_devel/bin/hipcc.

suite_requires() {
  command -v ccache >/dev/null && [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ] \
    && command -v python3 >/dev/null && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] \
    && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null
}

HIP_ARGS=(-x hip --offload-arch=gfx90a -c k.hip -o k.o)

fresh_dir() {
  mkdir -p "$TEST_DIR/$1" && cd "$TEST_DIR/$1" || fail "cannot make $1"
  cat > k.hip <<'SRC'
#include <hip/hip_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
SRC
}

hits_in() { echo $(($(ccache_stat "$1" direct_cache_hit) + $(ccache_stat "$1" preprocessed_cache_hit))); }

test_therock_install_compile_rollback() {
  TEST "TheRock layout: install wraps the SDK's hipcc and clang; the venv trampoline compiles through the cache; rollback"
  local fixture
  fixture=$(rocm_prefix 15 therock) || fail "cannot build the TheRock fixture"
  P=$TEST_DIR/venv
  CC=$TEST_DIR/ccache
  cp -a "$fixture" "$P" || fail "cannot copy the fixture"
  local sdk=$P/_rocm_sdk_devel trampoline_sum
  trampoline_sum=$(sha256sum < "$P/bin/hipcc")
  tree_listing "$P" > "$TEST_DIR/before.lst"
  fresh_dir ref
  "$P/bin/hipcc" "${HIP_ARGS[@]}" || fail "unshimmed compile through the trampoline failed"

  local out rc
  out=$("$SHIMCTL" install "$P" --cache-dir "$CC" 2>&1) || fail "install failed: $out"
  validate_manifest "$P/.shimctl/manifest.json"
  local wrapped
  wrapped=$(/usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(m["layout"], *sorted(c["path"] for c in m["compilers"]))' \
    "$P/.shimctl/manifest.json")
  expect_contains "$wrapped" "therock" "layout in the manifest"
  expect_contains "$wrapped" "_rocm_sdk_devel/bin/hipcc" "wrapped compilers"
  expect_contains "$wrapped" "_rocm_sdk_devel/lib/llvm/bin/clang" "wrapped compilers"
  cmp -s "$SHIM_BIN" "$sdk/bin/hipcc" || fail "_rocm_sdk_devel/bin/hipcc is not the shim"
  cmp -s "$SHIM_BIN" "$sdk/lib/llvm/bin/clang" || fail "_rocm_sdk_devel/lib/llvm/bin/clang is not the shim"
  expect_eq "$trampoline_sum" "$(sha256sum < "$P/bin/hipcc")" "the trampoline is untouched"

  local h0 m0
  h0=$(hits_in "$CC"); m0=$(ccache_stat "$CC" cache_miss)
  fresh_dir first
  "$P/bin/hipcc" "${HIP_ARGS[@]}" || fail "compile through the trampoline failed"
  expect_same_file "$TEST_DIR/ref/k.o" k.o
  expect_eq $((m0 + 1)) "$(ccache_stat "$CC" cache_miss)" "misses after the first compile"
  fresh_dir second
  "$P/bin/hipcc" "${HIP_ARGS[@]}" || fail "repeat through the trampoline failed"
  expect_same_file "$TEST_DIR/ref/k.o" k.o
  expect_eq $((h0 + 1)) "$(hits_in "$CC")" "hits after the repeat"
  expect_eq $((m0 + 1)) "$(ccache_stat "$CC" cache_miss)" "misses after the repeat"

  out=$("$SHIMCTL" status "$P" 2>&1) || fail "status failed: $out"
  expect_contains "$out" "_rocm_sdk_devel/bin/hipcc" "status"
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_same_tree "$TEST_DIR/before.lst" "$P"
}
