# End to end on a CUDA-shaped prefix (scripts/make-cuda-prefix, from /usr/local/cuda):
# install (verified), verify, status, compiles through the nvcc shim (a hit on repeat), rollback.
# nvcc objects are not byte-reproducible (a temporary name with the pid ends up in the .o):
# objects are compared by size.

CUDA_ARCH=${CUDA_ARCH:-sm_90}

suite_requires() {
  command -v ccache >/dev/null && [ -x /usr/local/cuda/bin/nvcc ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] \
    && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null
}

fresh_dir() {
  mkdir -p "$TEST_DIR/$1" && cd "$TEST_DIR/$1" || fail "cannot make $1"
  printf '__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }\n' > k.cu
}

hits_in() { echo $(($(ccache_stat "$1" direct_cache_hit) + $(ccache_stat "$1" preprocessed_cache_hit))); }

test_cuda_install_verify_rollback() {
  TEST "CUDA: install (verified), verify, status, a hit on repeat through bin/nvcc, rollback"
  P=$TEST_DIR/cuda
  CC=$TEST_DIR/ccache
  "$SCRIPTS/make-cuda-prefix" "$P" > /dev/null || fail "cannot build the CUDA prefix"
  tree_listing "$P" > "$TEST_DIR/before.lst"
  fresh_dir ref
  "$P/bin/nvcc" -arch="$CUDA_ARCH" -c k.cu -o k.o || fail "unshimmed nvcc failed"

  local out rc
  out=$("$SHIMCTL" install "$P" --cache-dir "$CC" --cuda-arch "$CUDA_ARCH" 2>&1) || fail "install failed: $out"
  cmp -s "$SHIM_BIN" "$P/bin/nvcc" || fail "bin/nvcc is not the shim"
  [ -f "$P/bin/nvcc.real" ] || fail "no bin/nvcc.real"
  validate_manifest "$P/.shimctl/manifest.json"
  out=$("$SHIMCTL" verify "$P" --cuda-arch "$CUDA_ARCH" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code (output: $out)"
  out=$("$SHIMCTL" status "$P" 2>&1) || fail "status failed: $out"
  expect_contains "$out" "bin/nvcc" "status names nvcc"
  expect_contains "$out" "$CC" "status shows the cache dir"

  local h0 m0
  h0=$(hits_in "$CC"); m0=$(ccache_stat "$CC" cache_miss)
  fresh_dir first
  "$P/bin/nvcc" -arch="$CUDA_ARCH" -c k.cu -o k.o || fail "nvcc through the shim failed"
  expect_eq "$(stat -c %s "$TEST_DIR/ref/k.o")" "$(stat -c %s k.o)" "object size"
  expect_eq $((m0 + 1)) "$(ccache_stat "$CC" cache_miss)" "misses after the first compile"
  fresh_dir second
  "$P/bin/nvcc" -arch="$CUDA_ARCH" -c k.cu -o k.o || fail "repeat through the shim failed"
  expect_eq "$(stat -c %s "$TEST_DIR/ref/k.o")" "$(stat -c %s k.o)" "object size on the hit"
  expect_eq $((h0 + 1)) "$(hits_in "$CC")" "hits after the repeat"

  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_same_tree "$TEST_DIR/before.lst" "$P"
  [ ! -e "$P/bin/nvcc.real" ] || fail "nvcc.real left behind"
}
