# ccache's HTTP remote storage behind the shim (install --remote http://...), against a real
# nginx with its WebDAV module (PUT) on 127.0.0.1: a random free port per test, its own store
# directory, stopped when the test ends. "Machine B" is the same prefix with an empty local cache
# (CCACHE_DIR in the environment wins over the shim's default): only the store is shared.

suite_requires() {
  command -v nginx >/dev/null && nginx -V 2>&1 | grep -q -- --with-http_dav_module &&
    command -v ccache >/dev/null && [ -x /usr/lib/llvm-15/bin/clang ] && [ -x "$SHIM_BIN" ] &&
    [ -x "$SHIMCTL" ]
}

# start_nginx: sets HTTP_URL (http://127.0.0.1:PORT/ccache) and STORE (the files behind it).
start_nginx() {
  nginx_webdav_conf
  nginx -c "$TEST_DIR/nginx.conf" -p "$TEST_DIR" 2>"$TEST_DIR/nginx-start.err" ||
    fail "nginx did not start: $(cat "$TEST_DIR/nginx-start.err")"
  trap stop_nginx EXIT
  local i
  for i in $(seq 50); do
    curl_status "$HTTP_URL/" >/dev/null && return 0
    sleep 0.1
  done
  fail "nginx at $HTTP_URL does not answer"
}

# curl_status URL: the HTTP status of a GET (python3: curl is not a dependency).
curl_status() {
  python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=2).status)
except urllib.error.HTTPError as e:
    print(e.code)
PY
}

stop_nginx() { stop_pidfile "$TEST_DIR/nginx.pid"; }

stored() { find "$STORE" -type f | wc -l; }

# http_fixture INSTALL-FLAGS...: P = a ROCm-shaped prefix installed with the HTTP remote and
# local cache $TEST_DIR/cache-a; sources x.c, y.c, k.hip in $TEST_DIR (the current directory).
http_fixture() {
  start_nginx
  P=$TEST_DIR/rocm
  copy_rocm_prefix "$P"
  expect_success "$SHIMCTL" install "$P" --no-verify --cache-dir "$TEST_DIR/cache-a" \
    --remote "$HTTP_URL" "$@"
  cd "$TEST_DIR" || fail cd
  printf 'int http_c(int x) { return x * 5 + 2; }\n' > x.c
  printf 'int http_y(int x) { return x - 11; }\n' > y.c
  cat > k.hip <<'SRC'
#include <hip/hip_runtime.h>
__global__ void http_k(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 3.0f; }
SRC
}

# on_b COMMAND...: COMMAND with machine B's empty local cache.
on_b() { CCACHE_DIR=$TEST_DIR/cache-b "$@"; }

test_http_store_filled_by_a_served_to_b() {
  TEST "HTTP (nginx WebDAV): A's compiles fill the store; an empty local cache hits from it"
  http_fixture
  expect_eq 0 "$(stored)" "files in the store before any compile"
  "$P/llvm/bin/clang" -c x.c -o a-x.o || fail "clang on A"
  # Both name the same output (the shim's HIP CUID follows -o), then keep it apart.
  "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o k.o && mv k.o a-k.o || fail "hipcc on A"
  # ccache stores two entries per compile (a direct-mode manifest and the result).
  expect_eq 4 "$(stored)" "files in the store after A's two compiles"
  expect_eq 4 "$(ccache_stat "$TEST_DIR/cache-a" remote_storage_write)" "A's remote writes"
  on_b "$P/llvm/bin/clang" -c x.c -o b-x.o || fail "clang on B"
  on_b "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o k.o && mv k.o b-k.o || fail "hipcc on B"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-b" remote_storage_hit)" "B's remote hits"
  expect_eq 0 "$(ccache_stat "$TEST_DIR/cache-b" cache_miss)" "B's misses"
  expect_same_file a-x.o b-x.o
  expect_same_file a-k.o b-k.o
  grep -q '"PUT /ccache/' "$TEST_DIR/nginx-access.log" || fail "nginx saw no PUT"
  grep -q '"GET /ccache/.*" 200 ' "$TEST_DIR/nginx-access.log" || fail "nginx served no GET"
  expect_eq 4 "$(stored)" "files in the store after B's hits"
}

test_http_read_only_adds_nothing() {
  TEST "HTTP read-only: hits from the store, a miss stores nothing"
  http_fixture
  "$P/llvm/bin/clang" -c x.c -o a-x.o || fail "clang on A"
  expect_success "$SHIMCTL" install "$P" --no-verify --cache-dir "$TEST_DIR/cache-a" \
    --remote "$HTTP_URL" --remote-read-only
  grep -qx "setenv CCACHE_REMOTE_STORAGE=$HTTP_URL|read-only" "$P/llvm/bin/.shimctl.conf" ||
    fail "no read-only remote in the shim config"
  local files; files=$(stored)
  on_b "$P/llvm/bin/clang" -c x.c -o b-x.o || fail "clang x.c read-only"
  on_b "$P/llvm/bin/clang" -c y.c -o b-y.o || fail "clang y.c read-only"
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-b" remote_storage_hit)" "read-only remote hits"
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-b" cache_miss)" "read-only misses (y.c)"
  expect_eq "$files" "$(stored)" "files in the store after a read-only hit and miss"
  grep -q '"PUT ' "$TEST_DIR/nginx-access.log" && [ "$(grep -c '"PUT ' "$TEST_DIR/nginx-access.log")" -gt 2 ] &&
    fail "the read-only client sent PUTs"
  expect_same_file a-x.o b-x.o
}

test_http_verify_and_server_down() {
  TEST "HTTP: verify is served from the store; nginx down: compiles succeed, verify warns"
  http_fixture --compilers clang
  local out
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify failed: $out"
  expect_contains "$out" "a compile with an empty local cache was served from the remote" "verify"
  [ "$(stored)" -gt 0 ] || fail "verify stored nothing"
  stop_nginx
  "$P/llvm/bin/clang" -c y.c -o y1.o || fail "a compile with nginx down"
  SHIMCTL_DISABLE=1 "$P/llvm/bin/clang" -c y.c -o y-ref.o || fail "reference compile"
  expect_same_file y-ref.o y1.o
  [ "$(ccache_stat "$TEST_DIR/cache-a" remote_storage_error)" -ge 1 ] ||
    fail "ccache recorded no remote_storage_error"
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify failed with nginx down: $out"
  expect_contains "$out" "remote storage $HTTP_URL is unreachable: compiles use the local cache" \
    "verify with nginx down"
}
