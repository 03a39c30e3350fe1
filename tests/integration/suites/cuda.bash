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

# sm_N: the one GPU architecture named in nvcc object FILE (the fatbin's "sm_N" string).
gpu_arch_of() { grep -ao 'sm_[0-9]*' "$1" | sort -u | paste -sd ' '; }

test_cuda_native_arch() {
  TEST "nvcc -arch=native: keyed by __nvcc_device_query's answer, probed once; another GPU misses"
  P=$TEST_DIR/cuda
  CC=$TEST_DIR/ccache
  export XDG_CACHE_HOME=$TEST_DIR/xdg # the shim's probe memo
  "$SCRIPTS/make-cuda-prefix" "$P" > /dev/null || fail "cannot build the CUDA prefix"
  local out query=$P/bin/__nvcc_device_query runs=$TEST_DIR/query.runs
  out=$("$SHIMCTL" install "$P" --cache-dir "$CC" --no-verify 2>&1) || fail "install failed: $out"
  grep -qx "native-probe nvcc $P/bin/__nvcc_device_query" "$P/bin/.shimctl.conf" \
    || fail "no native-probe line for nvcc:"$'\n'"$(cat "$P/bin/.shimctl.conf")"
  fresh_dir native
  # nvcc reads `__nvcc_device_query --silent`: the compute capabilities, comma-separated, no newline.
  fake_probe "$query" "$runs" '90'
  local i
  for i in 1 2 3; do
    "$P/bin/nvcc" -arch=native -c k.cu -o k.o || fail "nvcc -arch=native ($i) failed"
    expect_eq sm_90 "$(gpu_arch_of k.o)" "GPU of compile $i"
  done
  expect_eq 1 "$(wc -l < "$runs")" "__nvcc_device_query runs by the shim for 3 compiles"
  expect_eq "misses=1 hits=2" "misses=$(ccache_stat "$CC" cache_miss) hits=$(hits_in "$CC")" "cache counters"
  fake_probe "$query" "$runs" '86'
  "$P/bin/nvcc" -arch=native -c k.cu -o k.o || fail "nvcc -arch=native for sm_86 failed"
  expect_eq sm_86 "$(gpu_arch_of k.o)" "GPU after the probe's answer changed"
  expect_eq 2 "$(wc -l < "$runs")" "runs after the GPU changed"
  expect_eq "misses=2 hits=2" "misses=$(ccache_stat "$CC" cache_miss) hits=$(hits_in "$CC")" "cache counters"
  # No GPU (the real __nvcc_device_query fails): nvcc warns and builds for its default GPU. The
  # failure is an answer too (keyed by its exit status, never memoised): the same warning, the
  # same GPU as without the shim, and a hit on repeat.
  rm -f "$query"
  ln -s "$(readlink -f /usr/local/cuda)/bin/__nvcc_device_query" "$query"
  SHIMCTL_DISABLE=1 "$P/bin/nvcc" -arch=native -c k.cu -o k.o > orig.err 2>&1 || fail "nvcc without a GPU failed"
  local default_arch; default_arch=$(gpu_arch_of k.o)
  case $default_arch in sm_86 | sm_90 | '') fail "default GPU '$default_arch': the test proves nothing" ;; esac
  for i in 1 2; do
    "$P/bin/nvcc" -arch=native -c k.cu -o k.o > shim.err 2>&1 || fail "nvcc without a GPU through the shim failed"
    expect_eq "$(cat orig.err)" "$(cat shim.err)" "messages without a GPU ($i)"
    expect_eq "$default_arch" "$(gpu_arch_of k.o)" "GPU without a GPU ($i)"
  done
  expect_eq "misses=3 hits=3" "misses=$(ccache_stat "$CC" cache_miss) hits=$(hits_in "$CC")" "counters without a GPU"
}

# The same CUDA sources in two checkouts (issue 42: paths made location-free for nvcc too), each
# built by ninja from a build dir of its own: B hits A's entry, and B's object and depfile name
# no path of A's (nvcc objects hold a temporary name: compared by size).
test_cuda_anywhere() {
  TEST "CUDA: a checkout at another path hits; its object and depfile name only its own place"
  P=$TEST_DIR/cuda
  CC=$TEST_DIR/ccache
  "$SCRIPTS/make-cuda-prefix" "$P" >/dev/null || fail "cannot build the CUDA prefix"
  "$SHIMCTL" install "$P" --cache-dir "$CC" --cuda-arch "$CUDA_ARCH" --no-verify >/dev/null 2>&1 ||
    fail "install failed"
  local root build
  for root in "$TEST_DIR/home/alice/proj" "$TEST_DIR/srv/ci/_work/proj/proj"; do
    mkdir -p "$root/.git" "$root/include" "$root/src" "$root/build"
    printf '#pragma once\n#define K_SCALE 3.0f\n' >"$root/include/k.h"
    printf '#include "k.h"\n__global__ void scale(float* x) { x[threadIdx.x] *= K_SCALE; }\n' >"$root/src/k.cu"
    cat >"$root/build/build.ninja" <<NINJA
rule nvcc
  command = $P/bin/nvcc -arch=$CUDA_ARCH -I$root/include -MD -MF \$out.d -c \$in -o \$out
  deps = gcc
  depfile = \$out.d
build k.o: nvcc $root/src/k.cu
NINJA
    ninja -C "$root/build" >"$TEST_DIR/ninja.log" 2>&1 || fail "ninja in $root failed: $(cat "$TEST_DIR/ninja.log")"
  done
  expect_eq "1 1" "$(ccache_stat "$CC" cache_miss) $(hits_in "$CC")" "misses, hits (A, then B)"
  build=$TEST_DIR/srv/ci/_work/proj/proj/build
  ! grep -qaF "$TEST_DIR/home/alice" "$build/k.o" || fail "B's object names A's checkout"
  expect_contains "$(ninja -C "$build" -t deps k.o)" ".shimctl-roots/s/include/k.h" "B's recorded dependencies"
  expect_eq "$(stat -c %s "$TEST_DIR/home/alice/proj/build/k.o")" "$(stat -c %s "$build/k.o")" "object size"
}
