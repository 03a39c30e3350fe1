# ccache's remote storage behind the shim (install --remote redis://...), against a real
# redis-server on 127.0.0.1 (a random free port per test, stopped when the test ends).
#
# "Machine B" is honest about paths: hipcc hands clang the prefix's absolute paths and headers
# resolve under the prefix, so a toolchain at another path can never share keys. Machine B is
# therefore a private mount namespace (unshare -m) in which a second, independently built and
# installed copy of the toolchain sits at the same path as machine A's, with its own empty local
# cache and its own HOME. Only Redis is shared.

suite_requires() {
  command -v redis-server >/dev/null && command -v redis-cli >/dev/null &&
    command -v ccache >/dev/null && command -v unshare >/dev/null &&
    [ -x /usr/lib/llvm-15/bin/clang ] && [ -x "$SHIM_BIN" ] &&
    unshare -m true 2>/dev/null
}

dbsize() { redis-cli -p "$REDIS_PORT" dbsize; }

# The toolchain of both machines lives at $MACHINE_PATH/rocm.
MACHINE_PATH=""

# machine_a INSTALL-FLAGS...: builds and installs the toolchain at $MACHINE_PATH/rocm.
machine_a() {
  MACHINE_PATH=$TEST_DIR/opt
  mkdir -p "$MACHINE_PATH" "$TEST_DIR/home-a"
  copy_rocm_prefix "$MACHINE_PATH/rocm"
  expect_success "$SHIMCTL" install "$MACHINE_PATH/rocm" --no-verify --cache-dir "$TEST_DIR/cache-a" "$@"
}

# on_machine_a COMMAND...: runs COMMAND with machine A's HOME (its cache dir is in the shim config).
on_machine_a() { HOME=$TEST_DIR/home-a "$@"; }

# on_machine_b "INSTALL-FLAGS" 'SCRIPT': in a private mount namespace, puts an empty directory over
# $MACHINE_PATH, builds and installs a second copy of the toolchain there (cache dir cache-b,
# HOME home-b), then runs SCRIPT (bash, in the current directory) with $P set to the prefix.
on_machine_b() {
  local flags=$1 script=$2
  local fixture
  fixture=$(rocm_prefix 15) || fail "cannot build the clang-15 fixture prefix (scripts/make-rocm-prefix)"
  mkdir -p "$TEST_DIR/machine-b" "$TEST_DIR/home-b"
  FIXTURE=$fixture HOME=$TEST_DIR/home-b REDIS_URL=$REDIS_URL MACHINE_PATH=$MACHINE_PATH B_ROOT=$TEST_DIR/machine-b SCRIPTS=$SCRIPTS \
    SHIMCTL=$SHIMCTL FLAGS=$flags CACHE_B=$TEST_DIR/cache-b SCRIPT=$script \
    unshare -m bash -c '
      set -e
      mount --make-rprivate /
      mount --bind "$B_ROOT" "$MACHINE_PATH"
      [ ! -e "$MACHINE_PATH/rocm/.shimctl" ] || { echo "machine A visible in B" >&2; exit 1; }
      cp -a "$FIXTURE" "$MACHINE_PATH/rocm"
      "$SHIMCTL" install "$MACHINE_PATH/rocm" --no-verify --cache-dir "$CACHE_B" $FLAGS >/dev/null
      P=$MACHINE_PATH/rocm
      eval "$SCRIPT"'
}

write_sources() {
  printf 'int remote_c(int x) { return x * 3 + 1; }\n' > "$TEST_DIR/x.c"
  printf 'int remote_y(int x) { return x - 9; }\n' > "$TEST_DIR/y.c"
  cat > "$TEST_DIR/k.hip" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void remote_k(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 2.0f; }
EOF
}

test_machine_a_populates_redis_machine_b_hits() {
  TEST "machine A fills Redis; machine B (own copy at the same path, empty cache) hits"
  start_redis
  write_sources
  machine_a --remote "$REDIS_URL"
  expect_eq 0 "$(dbsize)" "keys before any compile"
  cd "$TEST_DIR" || fail cd
  on_machine_a "$MACHINE_PATH/rocm/llvm/bin/clang" -c x.c -o a-x.o || fail "clang on A"
  # Both machines name the same output (the shim's HIP CUID follows -o), then keep it apart.
  on_machine_a "$MACHINE_PATH/rocm/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o k.o && mv k.o a-k.o ||
    fail "hipcc on A"
  # ccache stores two entries per compile (a direct-mode manifest and the result).
  local keys; keys=$(dbsize)
  expect_eq 4 "$keys" "Redis keys after machine A's two compiles"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-a" cache_miss)" "machine A misses"
  expect_eq 4 "$(ccache_stat "$TEST_DIR/cache-a" remote_storage_write)" "machine A remote writes"
  local out
  out=$(on_machine_b "--remote $REDIS_URL" '
    "$P/llvm/bin/clang" -c x.c -o b-x.o
    "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o k.o && mv k.o b-k.o' 2>&1) ||
    fail "machine B failed: $out"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-b" remote_storage_hit)" "machine B remote hits"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-b" direct_cache_hit)" "machine B direct hits"
  expect_eq 0 "$(ccache_stat "$TEST_DIR/cache-b" cache_miss)" "machine B misses"
  expect_same_file a-x.o b-x.o
  expect_same_file a-k.o b-k.o
  # Machine A's prefix was never touched by B's install (B's copy is in machine-b/).
  [ -f "$TEST_DIR/machine-b/rocm/.shimctl/manifest.json" ] || fail "machine B's install is missing"
  expect_eq "$keys" "$(dbsize)" "keys after machine B's hits"
}

test_read_only_client_adds_no_keys_but_reads() {
  TEST "a read-only client reads hits from Redis and adds no keys"
  start_redis
  write_sources
  machine_a --remote "$REDIS_URL"
  cd "$TEST_DIR" || fail cd
  on_machine_a "$MACHINE_PATH/rocm/llvm/bin/clang" -c x.c -o a-x.o || fail "clang on A"
  local keys; keys=$(dbsize)
  expect_eq 2 "$keys" "Redis keys after machine A's compile"
  local out
  out=$(on_machine_b "--remote $REDIS_URL --remote-read-only" '
    grep -x "setenv CCACHE_REMOTE_STORAGE=$REDIS_URL|read-only" "$P/llvm/bin/.shimctl.conf"
    "$P/llvm/bin/clang" -c x.c -o b-x.o
    "$P/llvm/bin/clang" -c y.c -o b-y.o' 2>&1) || fail "machine B failed: $out"
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-b" remote_storage_hit)" "read-only remote hits"
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-b" cache_miss)" "read-only misses (y.c)"
  expect_eq 0 "$(ccache_stat "$TEST_DIR/cache-b" remote_storage_write)" "read-only remote writes"
  expect_eq "$keys" "$(dbsize)" "keys after the read-only client's hit and miss"
  expect_same_file a-x.o b-x.o
}

test_redis_stopped_mid_run_compiles_still_succeed() {
  TEST "Redis stopped mid-run: compiles still succeed with the right object"
  start_redis
  write_sources
  machine_a --remote "$REDIS_URL"
  cd "$TEST_DIR" || fail cd
  on_machine_a "$MACHINE_PATH/rocm/llvm/bin/clang" -c x.c -o x1.o || fail "clang with Redis up"
  stop_redis
  on_machine_a "$MACHINE_PATH/rocm/llvm/bin/clang" -c y.c -o y1.o || fail "a new compile with Redis down"
  SHIMCTL_DISABLE=1 "$MACHINE_PATH/rocm/llvm/bin/clang" -c y.c -o y-ref.o || fail "reference compile"
  expect_same_file y-ref.o y1.o
  # An empty local cache with the remote down: the compiler runs.
  HOME=$TEST_DIR/home-a CCACHE_DIR=$TEST_DIR/cache-empty \
    "$MACHINE_PATH/rocm/llvm/bin/clang" -c x.c -o x2.o || fail "compile with empty cache, Redis down"
  expect_same_file x1.o x2.o
  local errors
  errors=$(ccache_stat "$TEST_DIR/cache-a" remote_storage_error)
  [ "$errors" -ge 1 ] || fail "ccache recorded no remote_storage_error (got '$errors')"
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-empty" cache_miss)" "miss with the remote down"
}

test_verify_checks_the_remote() {
  TEST "verify: an empty local cache is served from Redis; Redis down is a warning"
  start_redis
  machine_a --remote "$REDIS_URL" --compilers clang
  local out
  out=$(on_machine_a "$SHIMCTL" verify "$MACHINE_PATH/rocm" 2>&1) || fail "verify failed: $out"
  expect_contains "$out" "a compile with an empty local cache was served from the remote" "verify"
  [ "$(dbsize)" -gt 0 ] || fail "verify wrote nothing to Redis"
  stop_redis
  out=$(on_machine_a "$SHIMCTL" verify "$MACHINE_PATH/rocm" 2>&1) || fail "verify failed with Redis down: $out"
  expect_contains "$out" "remote storage $REDIS_URL is unreachable: compiles use the local cache" \
    "verify with Redis down"
  expect_contains "$out" "warning" "verify with Redis down"
}
