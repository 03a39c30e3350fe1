# The sid leg's shared-store suite: sccache 0.17 really caches HIP (its own statistics count HIP
# hits), locally and with Redis as its store; ccache 4.14.2 behind the shim with a Redis store
# and with an HTTP store (nginx WebDAV): machine A fills the store, an empty local cache hits with
# identical objects, a read-only client stores nothing, a store that is down costs only the hit.
# Servers (redis-server, nginx, sccache) run on 127.0.0.1, on free ports, started and stopped by
# each test. "Machine B" is the same prefix with an empty local cache of its own (the
# environment's CCACHE_DIR / SCCACHE_DIR and server port win over the shim's defaults): only the
# store is shared. Objects are compared for the same -o name compiled in different directories
# (clang-21 embeds the output name in the object).
# /opt and /etc/alternatives are private to the suite (private_mounts, private_opt_rocm7); each
# test installs into a cp -a copy of the pristine /opt/rocm-7.0.2.

private_mounts
# TEST scrubs SHIMCTL_* from the environment, SHIMCTL_TEST_PRIVATE_NS too.
SUITE_PRIVATE_NS=${SHIMCTL_TEST_PRIVATE_NS:-}

suite_requires() {
  command -v ccache >/dev/null && command -v sccache >/dev/null && command -v python3 >/dev/null \
    && command -v redis-server >/dev/null && command -v redis-cli >/dev/null \
    && command -v nginx >/dev/null && nginx -V 2>&1 | grep -q -- --with-http_dav_module \
    && [ -x /usr/lib/llvm-21/bin/clang ] && file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF \
    && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

# fixture: P = a copy of the pristine /opt/rocm-7.0.2 in $TEST_DIR/rocm; kernels k.hip and k2.hip.
fixture() {
  SHIMCTL_TEST_PRIVATE_NS=$SUITE_PRIVATE_NS private_opt_rocm7 || exit 1
  P=$TEST_DIR/rocm
  cp -a "$ROCM7" "$P" || fail "cannot copy $ROCM7"
  local n
  for n in "" 2; do
    cat > "$TEST_DIR/k$n.hip" <<EOF
#include <hip/hip_runtime.h>
__global__ void sid_remote$n(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 3.0f + 1$n.0f; }
EOF
  done
}

# install_p FLAGS...: shimctl install $P FLAGS --no-verify (this test's compiles are all counted).
install_p() {
  "$SHIMCTL" install "$P" --no-verify "$@" >"$TEST_DIR/install.out" 2>&1 \
    || fail "install $*:"$'\n'"$(cat "$TEST_DIR/install.out")"
}

# hip_in DIR [COMPILER]: in the new directory $TEST_DIR/DIR, COMPILER (default the shim
# $P/bin/hipcc) compiles $TEST_DIR/${SRC:-k}.hip to k.o: always the same -o name (and -cuid=$CUID
# if set: sccache's objects carry another __hip_cuid_ than a direct compile's, measured with 0.17).
hip_in() {
  local dir=$TEST_DIR/$1 cc=${2:-$P/bin/hipcc}
  mkdir "$dir" || fail "$dir exists"
  (cd "$dir" && "$cc" -x hip --offload-arch=gfx90a ${CUID:+"-cuid=$CUID"} -c "$TEST_DIR/${SRC:-k}.hip" -o k.o) \
    >"$TEST_DIR/compile.out" 2>&1 || fail "$cc -o $dir/k.o failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
  [ -s "$dir/k.o" ] || fail "no object $dir/k.o"
}

expect_same() { cmp -s "$TEST_DIR/$1/k.o" "$TEST_DIR/$2/k.o" || fail "$1/k.o and $2/k.o differ"; }

# --- sccache ---

# sc_port_of_install: SC_PORT = the server port the shim config names; the server stops on exit.
sc_port_of_install() {
  sc_server_of "$P"
  trap stop_all EXIT
}
stop_sccaches() {
  local p
  sc_stop_servers
}


# --- servers ---

stop_all() {
  stop_sccaches
  stop_pidfile "$TEST_DIR/redis.pid"
  stop_pidfile "$TEST_DIR/nginx.pid"
}

# wait_until SECONDS COMMAND...: COMMAND succeeds within SECONDS (polled every 0.1 s), or fail.
wait_until() {
  local n=$(($1 * 10)) i; shift
  for ((i = 0; i < n; i++)); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  fail "no success within the wait: $*"
}

# start_redis: REDIS_PORT, REDIS_URL; stopped when the test ends.
start_redis() {
  REDIS_PORT=$(free_port)
  REDIS_URL=redis://127.0.0.1:$REDIS_PORT
  trap stop_all EXIT
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$TEST_DIR/redis.pid" --dir "$TEST_DIR" --logfile "$TEST_DIR/redis.log" >/dev/null \
    || fail "redis-server did not start"
  wait_until 10 redis_ping
}
redis_ping() { [ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]; }
redis_keys() { redis-cli -p "$REDIS_PORT" dbsize; }
stop_redis() { stop_pidfile "$TEST_DIR/redis.pid"; }

# start_nginx: HTTP_URL (http://127.0.0.1:PORT/ccache), STORE (the files behind it); WebDAV PUT.
start_nginx() {
  nginx_webdav_conf
  trap stop_all EXIT
  nginx -c "$TEST_DIR/nginx.conf" -p "$TEST_DIR" 2>"$TEST_DIR/nginx-start.err" \
    || fail "nginx did not start: $(cat "$TEST_DIR/nginx-start.err")"
  wait_until 10 http_up "$HTTP_URL/"
}
http_up() {
  python3 - "$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1], timeout=2)
except urllib.error.HTTPError:
    pass
PY
}
http_files() { find "$STORE" -type f | wc -l; }
stop_nginx() { stop_pidfile "$TEST_DIR/nginx.pid"; }

test_sccache_caches_hip() {
  TEST "sccache 0.17 behind the shim caches HIP: hipcc and clang++ -x hip hit from a fresh directory"
  fixture
  CUID=shimctl-sid
  install_p --cache sccache --cache-dir "$TEST_DIR/sc"
  sc_port_of_install
  hip_in a
  expect_eq 'hits={} misses={"HIP": 1}' "$(sc_counts)" "after hipcc's first compile"
  hip_in b
  expect_eq 'hits={"HIP": 1} misses={"HIP": 1}' "$(sc_counts)" "after hipcc's repeat"
  expect_eq '{"hip [clang]": 1}' "$(sc_stat 'json.dumps(s["stats"]["cache_hits"]["adv_counts"])')" "hits by compiler"
  expect_same a b
  SHIMCTL_DISABLE=1 hip_in ref
  expect_same a ref
  # The versioned clang a direct caller (amdclang++, Inductor) runs: cached as HIP too.
  hip_in c "$P/lib/llvm/bin/clang++"
  hip_in d "$P/lib/llvm/bin/clang++"
  expect_eq 'hits={"HIP": 2} misses={"HIP": 2}' "$(sc_counts)" "after clang++ -x hip twice"
  expect_same c d
  expect_eq "0 0" "$(sc_stat '"%d %d" % (s["stats"]["requests_not_cacheable"], s["stats"]["compile_fails"])')" \
    "not cacheable, failed"
  expect_eq 'Local disk: "'"$TEST_DIR/sc"'"' "$(sc_stat 's["cache_location"]')" "sccache's store"
}

test_sccache_install_verifies_and_rolls_back() {
  TEST "install --cache sccache (0.17) verifies: every compiler's repeat is a sccache hit; rollback byte-identical"
  fixture
  tree_listing "$P" > "$TEST_DIR/before.lst"
  "$SHIMCTL" install "$P" --cache sccache --cache-dir "$TEST_DIR/sc" >"$TEST_DIR/install.out" 2>&1 \
    || fail "install --cache sccache:"$'\n'"$(cat "$TEST_DIR/install.out")"
  sc_port_of_install
  local out c
  out=$(cat "$TEST_DIR/install.out")
  expect_contains "$out" "verify: all checks passed" "install's verification"
  for c in bin/hipcc lib/llvm/bin/clang-21 lib/llvm/bin/amdllvm; do
    grep -Eq "^$c +cache hit +ok +the repeat compile was a cache hit \(sccache statistics delta\)" <<<"$out" \
      || fail "$c: no sccache hit in verify:"$'\n'"$out"
  done
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify:"$'\n'"$out"
  expect_contains "$out" "verify: all checks passed" "verify again"
  # The server verify's compiles started (shimctl names its socket to them) is the shim's, marked:
  # rollback finds and stops it (sccache's own client used to start it unmarked, left running).
  local pid marked=0
  for pid in $(pgrep -x sccache); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "SHIMCTL_SCCACHE_SERVER_OF=$P/.shimctl" &&
      marked=$((marked + 1))
  done
  expect_eq 1 "$marked" "sccache servers marked as this prefix's"
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback: $out"
  expect_contains "$out" "stopped 1 sccache server(s) the shims had started" "rollback"
  expect_same_tree "$TEST_DIR/before.lst" "$P"
}

test_sccache_redis_store_serves_an_empty_local_cache() {
  TEST "sccache 0.17 with Redis (two tiers): A's compile fills Redis; B (own server, empty SCCACHE_DIR) hits from it"
  start_redis
  fixture
  CUID=shimctl-sid
  install_p --cache sccache --cache-dir "$TEST_DIR/sc-a" --remote "$REDIS_URL"
  grep -qx "setenv SCCACHE_REDIS_ENDPOINT=$REDIS_URL" "$P/bin/.shimctl.conf" || fail "no SCCACHE_REDIS_ENDPOINT in the shim config"
  # Two tiers (issue 35): the local disk cache in front of the store.
  grep -qx "setenv SCCACHE_MULTILEVEL_CHAIN=disk,redis" "$P/bin/.shimctl.conf" ||
    fail "no SCCACHE_MULTILEVEL_CHAIN in the shim config"
  sc_port_of_install
  expect_eq 0 "$(redis_keys)" "Redis keys before any compile"
  hip_in a
  expect_eq 'hits={} misses={"HIP": 1}' "$(sc_counts)" "machine A"
  expect_eq "Multi-level (2 levels)" "$(sc_stat 's["cache_location"]')" "machine A's cache (disk, Redis)"
  local keys; keys=$(redis_keys)
  [ "$keys" -ge 1 ] || fail "machine A stored nothing in Redis"
  stop_sccaches

  # Machine B: its own server (port) and an empty SCCACHE_DIR; the shim's SCCACHE_REDIS_ENDPOINT.
  SC_PORT=$(free_port)
  SC_SERVER=SCCACHE_SERVER_PORT=$SC_PORT
  SC_SERVERS=$SC_SERVER
  [ ! -e "$TEST_DIR/sc-b" ] || fail "sc-b exists"
  SCCACHE_DIR=$TEST_DIR/sc-b SCCACHE_SERVER_PORT=$SC_PORT hip_in b
  expect_eq 'hits={"HIP": 1} misses={}' "$(sc_counts)" "machine B"
  expect_eq "Multi-level (2 levels)" "$(sc_stat 's["cache_location"]')" "machine B's cache (disk, Redis)"
  expect_same a b
  expect_eq "$keys" "$(redis_keys)" "Redis keys after machine B's hit"
  # A store that is down: the compile still succeeds, with the right object.
  stop_redis
  SRC=k2 SCCACHE_DIR=$TEST_DIR/sc-b SCCACHE_SERVER_PORT=$SC_PORT hip_in c
  SRC=k2 SHIMCTL_DISABLE=1 hip_in c-ref
  expect_same c c-ref
}

# ccache_store_story NAME COUNT-FN STOP-FN INSTALL-FLAGS...: the shim with ccache and a remote
# store (INSTALL-FLAGS name it); COUNT-FN prints how many entries the store holds, STOP-FN stops it.
ccache_store_story() {
  local name=$1 count=$2 stop=$3; shift 3
  install_p --cache ccache --cache-dir "$TEST_DIR/cache-a" "$@"
  expect_eq 0 "$($count)" "$name entries before any compile"
  # Machine A: a miss, stored locally and in the store (a manifest and a result).
  hip_in a
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-a" cache_miss)" "machine A misses"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-a" remote_storage_write)" "machine A remote writes"
  expect_eq 2 "$($count)" "$name entries after machine A's compile"
  # Machine B: an empty local cache, served by the store.
  CCACHE_DIR=$TEST_DIR/cache-b hip_in b
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-b" remote_storage_hit)" "machine B remote hits"
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-b" direct_cache_hit)" "machine B direct hits"
  expect_eq 0 "$(ccache_stat "$TEST_DIR/cache-b" cache_miss)" "machine B misses"
  expect_same a b
  # A read-only client: hits from the store, its miss stores nothing there.
  install_p --cache ccache --cache-dir "$TEST_DIR/cache-a" "$@" --remote-read-only
  grep -q '^setenv CCACHE_REMOTE_STORAGE=.*|read-only$' "$P/bin/.shimctl.conf" \
    || fail "no read-only remote in the shim config"
  CCACHE_DIR=$TEST_DIR/cache-c hip_in c
  CCACHE_DIR=$TEST_DIR/cache-c SRC=k2 hip_in c2
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-c" remote_storage_hit)" "read-only remote hits"
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-c" cache_miss)" "read-only misses (k2.hip)"
  expect_eq 0 "$(ccache_stat "$TEST_DIR/cache-c" remote_storage_write)" "read-only remote writes"
  expect_eq 2 "$($count)" "$name entries after the read-only client's hit and miss"
  expect_same a c
  # The store down: an empty local cache compiles (a miss) and gets the same object.
  $stop
  CCACHE_DIR=$TEST_DIR/cache-d hip_in d
  expect_eq 1 "$(ccache_stat "$TEST_DIR/cache-d" cache_miss)" "misses with the store down"
  [ "$(ccache_stat "$TEST_DIR/cache-d" remote_storage_error)" -ge 1 ] || fail "ccache recorded no remote_storage_error"
  expect_same a d
}

test_ccache_redis_store() {
  TEST "ccache 4.14.2 with Redis: A fills it, an empty cache hits, read-only stores nothing, Redis down compiles"
  start_redis
  fixture
  ccache_store_story Redis redis_keys stop_redis --remote "$REDIS_URL"
}

test_ccache_http_store() {
  TEST "ccache 4.14.2 with HTTP (nginx WebDAV): A fills it, an empty cache hits, read-only stores nothing, nginx down compiles"
  start_nginx
  fixture
  ccache_store_story HTTP http_files stop_nginx --remote "$HTTP_URL"
  grep -q '"PUT /ccache/' "$TEST_DIR/nginx-access.log" || fail "nginx saw no PUT"
  grep -q '"GET /ccache/.*" 200 ' "$TEST_DIR/nginx-access.log" || fail "nginx served no GET"
}
