# A store shared between machines, one suite run on each stack: the tests of remote (Debian 12:
# ccache 4.7.5, sccache 0.4) and sid_remote (sid: ccache 4.14.2, sccache 0.17). Those files set the
# stack (lib-machines.bash says which variables) and leave out, by name and with the reason, the
# tests that do not apply to it (SUITE_TESTS_SKIP).
# Machine A fills a store (a redis-server, or nginx WebDAV, on a free port of 127.0.0.1, started
# and stopped by each test); another machine with an empty local cache hits with identical
# objects; a read-only client stores nothing; a store that is down costs only the hit; verify
# checks the store. Most "machines" share the prefix and have a local cache (and a sccache
# server) of their own (lib-machines.bash: compile_on). One is honest about paths: hipcc hands
# clang the prefix's absolute paths, so a toolchain at another path can never share keys; there,
# machine B is a private mount namespace (unshare -m) in which a second, independently installed
# copy of the toolchain sits at machine A's path, with its own empty local cache and HOME.
# Credentials, ACLs, TLS, S3, shards and clusters: team_stores_common.bash.

source "$SRC_DIR/tests/integration/lib-machines.bash"

suite_requires() {
  [ "$(id -u)" -eq 0 ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && command -v python3 >/dev/null &&
    command -v unshare >/dev/null && unshare -m true 2>/dev/null &&
    stack_tools_are && stack_compilers_are && stores_require $STORE_KINDS
}

# remote_sources: x.c, y.c and k.hip, k2.hip in $TEST_DIR.
remote_sources() {
  printf 'int remote_c(int x) { return x * 3 + 1; }\n' > "$TEST_DIR/x.c"
  printf 'int remote_y(int x) { return x - 9; }\n' > "$TEST_DIR/y.c"
  local n
  for n in "" 2; do
    printf '#include <hip/hip_runtime.h>\n__global__ void remote%s(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 3.0f + 1%s.0f; }\n' \
      "$n" "$n" > "$TEST_DIR/k$n.hip"
  done
}

# on_machine_b 'INSTALL-FLAGS' 'SCRIPT': in a private mount namespace, puts an empty directory
# over $MACHINE_PATH (the directory of machine A's prefix), copies the stack's fixture prefix there
# and installs it (cache dir cache-b, HOME home-b), then runs SCRIPT (bash, in the current
# directory) with $P the prefix and $LLVM_BIN its clang's directory.
on_machine_b() {
  local flags=$1 script=$2 fixture
  fixture=$(rocm_prefix "$STORE_FIXTURE") || fail "cannot build the fixture prefix (scripts/make-rocm-prefix)"
  mkdir -p "$TEST_DIR/machine-b" "$TEST_DIR/home-b"
  FIXTURE=$fixture HOME=$TEST_DIR/home-b MACHINE_PATH=$MACHINE_PATH B_ROOT=$TEST_DIR/machine-b \
    SHIMCTL=$SHIMCTL FLAGS=$flags CACHE_B=$TEST_DIR/cache-b SCRIPT=$script LLVM_BIN=${CLANG%/clang} \
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

# ccache_redis: a fresh prefix, sources, a redis-server (STORE_PORT), ccache installed with it
# (URL in REDIS_URL) and FLAGS.
ccache_redis() {
  store_fixture
  remote_sources
  start_redis_store
  REDIS_URL=redis://127.0.0.1:$STORE_PORT
  install_store ccache "$REDIS_URL" "$@"
}

# read_only_client M URL LINE: install with the store URL read-only (the shim config has a line
# matching LINE, grep -x), then machine M compiles x.c (a remote hit) and y.c (a miss that writes
# nothing to the store).
read_only_client() {
  local m=$1
  install_store ccache "$2" --remote-read-only
  grep -qx "$3" "$(dirname "$CLANG")/.shimctl.conf" || fail "no read-only remote in the shim config"
  compile_on "$m" x.c
  compile_on "$m" y.c
  expect_eq 1 "$(cstat "$m" remote_storage_hit)" "read-only remote hits"
  expect_eq 1 "$(cstat "$m" cache_miss)" "read-only misses (y.c)"
  expect_eq 0 "$(cstat "$m" remote_storage_write)" "read-only remote writes"
}

test_machine_a_populates_redis_machine_b_hits() {
  TEST "ccache + Redis: machine A (clang, hipcc) fills it; machine B (its own install at the same path, empty cache) hits, the same objects"
  store_fixture
  remote_sources
  start_redis_store
  REDIS_URL=redis://127.0.0.1:$STORE_PORT
  # Machine A: the prefix at $MACHINE_PATH/rocm, its cache dir cache-a (the shim config's).
  MACHINE_PATH=$TEST_DIR/opt
  mkdir -p "$MACHINE_PATH" "$TEST_DIR/home-a" "$TEST_DIR/a" "$TEST_DIR/b"
  mv "$P" "$MACHINE_PATH/rocm" && P=$MACHINE_PATH/rocm || fail "mv"
  CLANG=$P/${CLANG#"$TEST_DIR"/rocm/} HIPCC=$P/bin/hipcc
  expect_success "$SHIMCTL" install "$P" --no-verify --cache ccache --cache-dir "$TEST_DIR/cache-a" --remote "$REDIS_URL"
  expect_eq 0 "$(redis_keys "$STORE_PORT")" "keys before any compile"
  # Both machines name the same output (the shim's HIP CUID follows -o; clang-21 embeds it) in
  # directories of their own.
  (cd "$TEST_DIR/a" && HOME=$TEST_DIR/home-a "$CLANG" -c ../x.c -o x.o) || fail "clang on A"
  (cd "$TEST_DIR/a" && HOME=$TEST_DIR/home-a "$HIPCC" -x hip --offload-arch=gfx90a -c ../k.hip -o k.o) || fail "hipcc on A"
  # ccache stores two entries per compile (a direct-mode manifest and the result).
  local keys; keys=$(redis_keys "$STORE_PORT")
  expect_eq 4 "$keys" "Redis keys after machine A's two compiles"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-a" cache_miss)" "machine A misses"
  expect_eq 4 "$(ccache_stat "$TEST_DIR/cache-a" remote_storage_write)" "machine A remote writes"
  local out
  out=$(cd "$TEST_DIR/b" && on_machine_b "--cache ccache --remote $REDIS_URL" '
    "$LLVM_BIN/clang" -c ../x.c -o x.o
    "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c ../k.hip -o k.o' 2>&1) ||
    fail "machine B failed: $out"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-b" remote_storage_hit)" "machine B remote hits"
  expect_eq 2 "$(ccache_stat "$TEST_DIR/cache-b" direct_cache_hit)" "machine B direct hits"
  expect_eq 0 "$(ccache_stat "$TEST_DIR/cache-b" cache_miss)" "machine B misses"
  expect_same_file "$TEST_DIR/a/x.o" "$TEST_DIR/b/x.o"
  expect_same_file "$TEST_DIR/a/k.o" "$TEST_DIR/b/k.o"
  # Machine A's prefix was never touched by B's install (B's copy is in machine-b/).
  [ -f "$TEST_DIR/machine-b/rocm/.shimctl/manifest.json" ] || fail "machine B's install is missing"
  expect_eq "$keys" "$(redis_keys "$STORE_PORT")" "keys after machine B's hits"
}

test_read_only_client_adds_no_keys_but_reads() {
  TEST "ccache + Redis: a read-only client (URL|read-only in the shim config) reads hits and adds no keys"
  ccache_redis
  compile_on a x.c
  local keys; keys=$(redis_keys "$STORE_PORT")
  expect_eq 2 "$keys" "Redis keys after machine A's compile"
  read_only_client b "$REDIS_URL" "setenv CCACHE_REMOTE_STORAGE=$REDIS_URL|read-only"
  expect_eq "$keys" "$(redis_keys "$STORE_PORT")" "keys after the read-only client's hit and miss"
  same a-x b-x
}

test_redis_stopped_mid_run_compiles_still_succeed() {
  TEST "ccache + Redis stopped mid-run: compiles still succeed with the right object, an empty cache misses"
  ccache_redis
  compile_on a x.c
  stop_store "$STORE_PIDFILE"
  compile_on a y.c
  ref y.c
  same ref-y a-y
  [ "$(cstat a remote_storage_error)" -ge 1 ] || fail "ccache recorded no remote_storage_error (got '$(cstat a remote_storage_error)')"
  # An empty local cache with the remote down: the compiler runs.
  compile_on b x.c
  same a-x b-x
  expect_eq 1 "$(cstat b cache_miss)" "miss with the remote down"
  [ "$(cstat b remote_storage_error)" -ge 1 ] || fail "ccache recorded no remote_storage_error on machine b"
}

test_verify_checks_the_remote() {
  TEST "install and verify check the store: an empty local cache is served from Redis; Redis down is a warning"
  store_fixture
  start_redis_store
  REDIS_URL=redis://127.0.0.1:$STORE_PORT
  out install "$SHIMCTL" install "$P" --compilers clang --cache ccache --cache-dir "$TEST_DIR/cache-install" \
    --remote "$REDIS_URL" || fail "install: $(shown install)"
  expect_contains "$(shown install)" "a compile with an empty local cache was served from the remote" "install's verify"
  [ "$(redis_keys "$STORE_PORT")" -gt 0 ] || fail "install's verify wrote nothing to Redis"
  out verify "$SHIMCTL" verify "$P" || fail "verify: $(shown verify)"
  expect_contains "$(shown verify)" "a compile with an empty local cache was served from the remote" "verify"
  stop_store "$STORE_PIDFILE"
  verify_warns down "$REDIS_URL"
  expect_contains "$(shown verify-down)" "remote storage $REDIS_URL is unreachable: compiles use the local cache" \
    "verify with Redis down"
}

test_ccache_http_store() {
  TEST "ccache + HTTP (nginx WebDAV): A fills it, an empty cache hits, read-only stores nothing, nginx down compiles"
  store_fixture
  remote_sources
  start_webdav
  local url=$WEBDAV_BASE/cache
  install_store ccache "$url"
  expect_eq 0 "$(webdav_files "$WEBDAV_DIR/cache")" "HTTP entries before any compile"
  # Machine A: a miss, stored locally and in the store (a manifest and a result).
  compile_on a x.c
  expect_eq 1 "$(cstat a cache_miss)" "machine A misses"
  expect_eq 2 "$(cstat a remote_storage_write)" "machine A remote writes"
  expect_eq 2 "$(webdav_files "$WEBDAV_DIR/cache")" "HTTP entries after machine A's compile"
  # Machine B: an empty local cache, served by the store.
  compile_on b x.c
  expect_eq 1 "$(cstat b remote_storage_hit)" "machine B remote hits"
  expect_eq 1 "$(cstat b direct_cache_hit)" "machine B direct hits"
  expect_eq 0 "$(cstat b cache_miss)" "machine B misses"
  same a-x b-x
  # A read-only client: hits from the store, its miss stores nothing there.
  read_only_client c "$url" 'setenv CCACHE_REMOTE_STORAGE=.*|read-only'
  expect_eq 2 "$(webdav_files "$WEBDAV_DIR/cache")" "HTTP entries after the read-only client's hit and miss"
  same a-x c-x
  grep -q '"PUT /cache/' "$WEBDAV_LOG" || fail "nginx saw no PUT"
  grep -q '"GET /cache/.*" 200 ' "$WEBDAV_LOG" || fail "nginx served no GET"
  # The store down: an empty local cache compiles (a miss) and gets the same object.
  stop_store "$WEBDAV_PIDFILE"
  compile_on d x.c
  expect_eq 1 "$(cstat d cache_miss)" "misses with the store down"
  [ "$(cstat d remote_storage_error)" -ge 1 ] || fail "ccache recorded no remote_storage_error"
  same a-x d-x
}

# ---- sccache >= 0.17 (the tests below start with test_sccache_) --------------------------------

# hip_in DIR [COMPILER]: in the new directory $TEST_DIR/DIR, COMPILER (default $HIPCC) compiles
# $TEST_DIR/k.hip to k.o with -cuid=shimctl-sid (sccache's objects carry another __hip_cuid_ than
# a direct compile's, measured with 0.17), through the installed prefix's own server.
hip_in() {
  local dir=$TEST_DIR/$1 cc=${2:-$HIPCC}
  mkdir "$dir" || fail "$dir exists"
  (cd "$dir" && "$cc" -x hip --offload-arch=gfx90a -cuid=shimctl-sid -c "$TEST_DIR/k.hip" -o k.o) \
    >"$TEST_DIR/compile.out" 2>&1 || fail "$cc -o $dir/k.o failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
  [ -s "$dir/k.o" ] || fail "no object $dir/k.o"
}
expect_same_k() { cmp -s "$TEST_DIR/$1/k.o" "$TEST_DIR/$2/k.o" || fail "$1/k.o and $2/k.o differ"; }

test_sccache_caches_hip() {
  TEST "sccache behind the shim caches HIP: hipcc and clang++ -x hip hit from a fresh directory"
  store_fixture
  remote_sources
  out install "$SHIMCTL" install "$P" --no-verify --cache sccache --cache-dir "$TEST_DIR/sc" ||
    fail "install --cache sccache: $(shown install)"
  sc_server_of "$P"
  trap 'sc_stop_servers; machines_cleanup' EXIT
  hip_in a
  expect_eq 'hits={} misses={"HIP": 1}' "$(sc_counts)" "after hipcc's first compile"
  hip_in b
  expect_eq 'hits={"HIP": 1} misses={"HIP": 1}' "$(sc_counts)" "after hipcc's repeat"
  expect_eq '{"hip [clang]": 1}' "$(sc_stat 'json.dumps(s["stats"]["cache_hits"]["adv_counts"])')" "hits by compiler"
  expect_same_k a b
  SHIMCTL_DISABLE=1 hip_in ref
  expect_same_k a ref
  # The versioned clang a direct caller (amdclang++, Inductor) runs: cached as HIP too.
  hip_in c "$CLANGXX"
  hip_in d "$CLANGXX"
  expect_eq 'hits={"HIP": 2} misses={"HIP": 2}' "$(sc_counts)" "after clang++ -x hip twice"
  expect_same_k c d
  expect_eq "0 0" "$(sc_stat '"%d %d" % (s["stats"]["requests_not_cacheable"], s["stats"]["compile_fails"])')" \
    "not cacheable, failed"
  expect_eq 'Local disk: "'"$TEST_DIR/sc"'"' "$(sc_stat 's["cache_location"]')" "sccache's store"
}

test_sccache_install_verifies_and_rolls_back() {
  TEST "install --cache sccache verifies: every compiler's repeat is a sccache hit; rollback byte-identical"
  store_fixture
  tree_listing "$P" > "$TEST_DIR/before.lst"
  out install "$SHIMCTL" install "$P" --cache sccache --cache-dir "$TEST_DIR/sc" ||
    fail "install --cache sccache: $(shown install)"
  sc_server_of "$P"
  trap 'sc_stop_servers; machines_cleanup' EXIT
  local c
  expect_contains "$(shown install)" "verify: all checks passed" "install's verification"
  for c in bin/hipcc "${CLANG#"$P"/}-$LLVM" "$(dirname "${CLANG#"$P"/}")/amdllvm"; do
    grep -Eq "^$c +cache hit +ok +the repeat compile was a cache hit \(sccache statistics delta\)" "$TEST_DIR/out/install" ||
      fail "$c: no sccache hit in verify:"$'\n'"$(shown install)"
  done
  out verify "$SHIMCTL" verify "$P" || fail "verify: $(shown verify)"
  expect_contains "$(shown verify)" "verify: all checks passed" "verify again"
  # The server verify's compiles started (shimctl names its socket to them) is the shim's, marked:
  # rollback finds and stops it (sccache's own client used to start it unmarked, left running).
  local pid marked=0
  for pid in $(pgrep -x sccache); do
    tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "SHIMCTL_SCCACHE_SERVER_OF=$P/.shimctl" &&
      marked=$((marked + 1))
  done
  expect_eq 1 "$marked" "sccache servers marked as this prefix's"
  out rollback "$SHIMCTL" rollback "$P" || fail "rollback: $(shown rollback)"
  expect_contains "$(shown rollback)" "stopped 1 sccache server(s) the shims had started" "rollback"
  expect_same_tree "$TEST_DIR/before.lst" "$P"
}

test_sccache_redis_store_serves_an_empty_local_cache() {
  TEST "sccache + Redis (two tiers): A's HIP compile fills Redis; B (own server, empty SCCACHE_DIR) hits from it; Redis down compiles"
  store_fixture
  remote_sources
  start_redis_store
  REDIS_URL=redis://127.0.0.1:$STORE_PORT
  install_store sccache "$REDIS_URL"
  grep -qx "setenv SCCACHE_REDIS_ENDPOINT=$REDIS_URL" "$P/bin/.shimctl.conf" || fail "no SCCACHE_REDIS_ENDPOINT in the shim config"
  # Two tiers (issue 35): the local disk cache in front of the store.
  grep -qx "setenv SCCACHE_MULTILEVEL_CHAIN=disk,redis" "$P/bin/.shimctl.conf" ||
    fail "no SCCACHE_MULTILEVEL_CHAIN in the shim config"
  expect_eq 0 "$(redis_keys "$STORE_PORT")" "Redis keys before any compile"
  compile_on a k.hip
  expect_eq 'hits={} misses={"HIP": 1}' "$(sstat a '"hits=%s misses=%s" % (json.dumps(t["cache_hits"]["counts"], sort_keys=True), json.dumps(t["cache_misses"]["counts"], sort_keys=True))')" "machine A"
  expect_eq "Multi-level (2 levels)" "$(sstat a 's["cache_location"]')" "machine A's cache (disk, Redis)"
  local keys; keys=$(redis_keys "$STORE_PORT")
  [ "$keys" -ge 1 ] || fail "machine A stored nothing in Redis"
  compile_on b k.hip
  expect_eq 'hits={"HIP": 1} misses={}' "$(sstat b '"hits=%s misses=%s" % (json.dumps(t["cache_hits"]["counts"], sort_keys=True), json.dumps(t["cache_misses"]["counts"], sort_keys=True))')" "machine B"
  expect_eq "Multi-level (2 levels)" "$(sstat b 's["cache_location"]')" "machine B's cache (disk, Redis)"
  same a-k b-k
  expect_eq "$keys" "$(redis_keys "$STORE_PORT")" "Redis keys after machine B's hit"
  # A store that is down: the compile still succeeds, with the right object.
  stop_store "$STORE_PIDFILE"
  compile_on b k2.hip
  ref k2.hip
  same b-k2 ref-k2
}
