# A team store that is out, seen from a new mount namespace (issue 44): each compile runs in a
# namespace of its own (`unshare -m`, as a new container does), where no sccache server of the
# user's runs yet (the shim names a server per namespace). sid, sccache 0.17, a Redis store on
# 127.0.0.1 with the warm object in it and in the local tier (SCCACHE_DIR), then the store
#   - hung (SIGSTOP: it accepts and never answers),
#   - killed (SIGKILL: connections refused),
#   - black-holed (redis gone, a listener on its port that accepts and never answers),
# and at once, while the store's memo still says healthy (its verdict holds 10 s): the warm
# object's compile <= 2 s, a hit of the namespace's local-only server; a new compile <= its
# uncached time + 2 s, a miss of its own; both objects byte-identical to the uncached ones; no
# compile failed, none started a server with the store; `shimctl verify` in a new namespace exits
# 0 within its time with the store healthy + 3 s (+ 20 s while its remote check starts servers
# with the store: expect_verify); nothing was written to the store. Before (shim/sccache_server.c): `sccache --start-server` with the store in its
# environment asked the store and gave up after 10 s: the warm compile took 11.3-11.6 s.
# Runs inside the sid root (scripts/test-sid), alone (tests/CMakeLists.txt: it holds times).

private_mounts
SUITE_PRIVATE_NS=${SHIMCTL_TEST_PRIVATE_NS:-}

suite_requires() {
  [ "$(id -u)" -eq 0 ] && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && command -v python3 >/dev/null &&
    command -v sccache >/dev/null && sccache --version | grep -qE ' 0\.(1[7-9]|[2-9][0-9])' &&
    [ -x /usr/lib/llvm-21/bin/clang ] && stores_require redis && unshare -m true 2>/dev/null
}

# fixture: P = a copy of the sid ROCm prefix; HOME and XDG_RUNTIME_DIR (the store's memo, the
# sccache sockets: a short path, for their 108-byte names) of the test's own; a Redis store
# (STORE_PORT) and the prefix installed with it (the local tier: $TEST_DIR/cache); the sources.
fixture() {
  trap cleanup EXIT
  unset XDG_CACHE_HOME
  RUN_BASE=$(mktemp -d /tmp/sn.XXXXXX) || fail "mktemp"
  echo "$RUN_BASE" > "$TEST_DIR/run-base"
  export XDG_RUNTIME_DIR=$RUN_BASE/run HOME=$TEST_DIR/home
  mkdir -m 700 "$XDG_RUNTIME_DIR"
  mkdir -p "$HOME" "$TEST_DIR/out" "$TEST_DIR/obj"
  P=$TEST_DIR/rocm
  SHIMCTL_TEST_PRIVATE_NS=${SUITE_PRIVATE_NS:-} private_opt_rocm7 || exit 1
  cp -a "$ROCM7" "$P" || fail "cannot copy $ROCM7"
  start_redis_store
  "$SHIMCTL" install "$P" --cache sccache --cache-dir "$TEST_DIR/cache" \
    --remote "redis://127.0.0.1:$STORE_PORT" --no-verify > "$TEST_DIR/out/install" 2>&1 ||
    fail "install: $(cat "$TEST_DIR/out/install")"
  grep -q '^store redis ' "$P/bin/.shimctl.conf" || fail "no store line in $P/bin/.shimctl.conf"
  # The smallest HIP source that runs the whole driver (host and device): one kernel each.
  local name
  for name in warm new; do
    printf '#include <hip/hip_runtime.h>\n__global__ void k_%s(int* x) { x[threadIdx.x] = %d; }\n' \
      "$name" "${#name}" > "$TEST_DIR/$name.hip"
  done
}

# cleanup: the stopped store goes on (so that it can be stopped), the black hole, every sccache
# server of the test's HOME (each namespace's own), the stores.
cleanup() {
  local pid f
  for f in "$TEST_DIR"/stores/*/redis.pid; do
    [ -f "$f" ] && kill -CONT "$(cat "$f")" 2>/dev/null
  done
  [ -f "$TEST_DIR/black-hole.pid" ] && kill "$(cat "$TEST_DIR/black-hole.pid")" 2>/dev/null
  for pid in $(pgrep -x sccache); do
    { tr '\0' '\n' < "/proc/$pid/environ"; } 2>/dev/null | grep -q "^HOME=$TEST_DIR/" &&
      kill "$pid" 2>/dev/null
  done
  stores_cleanup
  [ -f "$TEST_DIR/run-base" ] && rm -rf "$(cat "$TEST_DIR/run-base")"
  return 0
}

# ns_compile NAME SOURCE [VAR=VALUE...]: SOURCE (warm, new) compiled through $P/bin/hipcc in a
# mount namespace of its own (its name in out/NAME.ns), with VAR=VALUE, into obj/NAME.o (made as
# o/NAME/t.o: the command line is the same for every compile of SOURCE, and so is the object);
# MS: its wall time, RC: its exit.
ns_compile() {
  local name=$1 src=$2 t0
  shift 2
  mkdir -p "$TEST_DIR/o/$name"
  t0=$(date +%s%N)
  # shellcheck disable=SC2016
  (cd "$TEST_DIR/o/$name" && env "$@" unshare -m sh -c 'readlink /proc/self/ns/mnt > "$0" && exec "$@"' \
    "$TEST_DIR/out/$name.ns" "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c "$TEST_DIR/$src.hip" -o t.o) \
    > "$TEST_DIR/out/$name" 2>&1
  RC=$?
  MS=$((($(date +%s%N) - t0) / 1000000))
  [ ! -f "$TEST_DIR/o/$name/t.o" ] || mv "$TEST_DIR/o/$name/t.o" "$TEST_DIR/obj/$name.o"
}

# ns_server_counts NAME: "hits=H misses=M" of the sccache server that compile NAME's namespace
# kept (the server the shim started there: the namespace lives on in it); fails when there is
# none, or when it has the store in its environment (the local-only server has none).
ns_server_counts() {
  local ns pid sock=""
  ns=$(cat "$TEST_DIR/out/$1.ns")
  for pid in $(pgrep -x sccache); do
    [ "$(readlink "/proc/$pid/ns/mnt")" = "$ns" ] || continue
    sock=$(tr '\0' '\n' < "/proc/$pid/environ" | sed -n 's/^SCCACHE_SERVER_UDS=//p')
    ! tr '\0' '\n' < "/proc/$pid/environ" | grep -q '^SCCACHE_REDIS' ||
      fail "compile $1: the sccache server of its namespace has the store in its environment"
  done
  [ -n "$sock" ] || fail "compile $1: no sccache server runs in its namespace (the compile ran uncached)"
  SCCACHE_SERVER_UDS=$sock sccache --show-stats --stats-format json | python3 -c '
import json, sys; s = json.load(sys.stdin)["stats"]
print("hits=%d misses=%d" % (sum(s["cache_hits"]["counts"].values()), sum(s["cache_misses"]["counts"].values())))'
}

# expect_compile NAME SOURCE MAX_MS COUNTS: ns_compile NAME SOURCE exited 0 within MAX_MS, made
# the object of the uncached compile (obj/ref-SOURCE.o) byte for byte, and the server of its
# namespace counted COUNTS ("hits=1 misses=0": the warm object from the local tier).
expect_compile() {
  local counts
  ns_compile "$1" "$2"
  [ "$RC" = 0 ] || fail "compile $1 failed ($RC): $(cat "$TEST_DIR/out/$1")"
  cmp -s "$TEST_DIR/obj/$1.o" "$TEST_DIR/obj/ref-$2.o" ||
    fail "compile $1: its object ($(stat -c %s "$TEST_DIR/obj/$1.o" 2>/dev/null) bytes) is not the uncached one ($(stat -c %s "$TEST_DIR/obj/ref-$2.o") bytes)"
  [ "$MS" -le "$3" ] || fail "compile $1 (a new mount namespace) took $MS ms (at most $3 ms)"
  counts=$(ns_server_counts "$1")
  expect_eq "$4" "$counts" "compile $1: the counts of its namespace's (local-only) server"
  echo "    $1: $MS ms (at most $3), exit 0, $(stat -c %s "$TEST_DIR/obj/$1.o") bytes as uncached; its server: $counts"
}

# warm_up: the uncached objects and times (each in a new namespace: obj/ref-warm.o, obj/ref-new.o,
# UNCACHED_MS: the new source's), `shimctl verify` with the store healthy (VERIFY_HEALTHY_MS),
# then the warm object compiled through the shim while the store answers: in the local tier and
# in the store (STORE_KEYS: the store's keys after it), and the store's memo just written.
warm_up() {
  ns_compile ref-warm warm SHIMCTL_DISABLE=1
  [ "$RC" = 0 ] || fail "the uncached compile failed: $(cat "$TEST_DIR/out/ref-warm")"
  ns_compile ref-new new SHIMCTL_DISABLE=1
  [ "$RC" = 0 ] || fail "the uncached compile failed: $(cat "$TEST_DIR/out/ref-new")"
  UNCACHED_MS=$MS
  ns_verify verify-healthy
  [ "$RC" = 0 ] || fail "verify with the store healthy exited $RC: $(cat "$TEST_DIR/out/verify-healthy")"
  VERIFY_HEALTHY_MS=$MS
  ns_compile warm-up warm
  [ "$RC" = 0 ] || fail "the warm-up compile failed: $(cat "$TEST_DIR/out/warm-up")"
  cmp -s "$TEST_DIR/obj/warm-up.o" "$TEST_DIR/obj/ref-warm.o" || fail "the warm-up's object is not the uncached one"
  STORE_KEYS=$(redis_keys "$STORE_PORT")
  [ "$STORE_KEYS" -ge 2 ] || fail "the store holds $STORE_KEYS keys after the warm-up (its check key and the object expected)"
  [ -n "$(find "$TEST_DIR/cache" -type f -size +1k)" ] || fail "the local tier ($TEST_DIR/cache) holds no object"
  echo "    uncached: new $UNCACHED_MS ms; verify, the store healthy: $VERIFY_HEALTHY_MS ms;" \
    "warm-up through the shim (its server's start): $MS ms; store: $STORE_KEYS keys"
}

# ns_verify NAME: `shimctl verify $P` in a mount namespace of its own, output in out/NAME; MS
# and RC.
ns_verify() {
  local t0
  t0=$(date +%s%N)
  unshare -m "$SHIMCTL" verify "$P" > "$TEST_DIR/out/$1" 2>&1
  RC=$?
  MS=$((($(date +%s%N) - t0) / 1000000))
}

# black_hole PORT: a listener on 127.0.0.1:PORT that accepts and never answers.
black_hole() {
  setsid python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(512)
held = []
while True:
    c, _ = s.accept(); held.append(c)' "$1" < /dev/null > /dev/null 2>&1 &
  echo $! > "$TEST_DIR/black-hole.pid"
  wait_until 10 "the black hole on $1" port_open "$1"
}

# expect_verify: `shimctl verify` in a new namespace with the store out: exit 0 (the store is a
# warning, not a failure: compiles use the local cache), every compiler's compile through the
# shim passed, the store named as out, and it took at most verify's time with the store healthy
# + 3 s: its compiles through the shim wait on no server's start, and its remote check does not
# start servers with a store the memo has out (installer/shimctl/verify/verify_remote.cpp: "not
# asked"), each of which would wait sccache's 10 s on it.
expect_verify() {
  local allowed=$((VERIFY_HEALTHY_MS + 3000))
  ns_verify verify
  grep -E '^remote ' "$TEST_DIR/out/verify" | sed 's/^/      /'
  [ "$RC" = 0 ] || fail "verify exited $RC: $(cat "$TEST_DIR/out/verify")"
  grep -q 'compile .* bytes of object' "$TEST_DIR/out/verify" || fail "verify compiled nothing: $(cat "$TEST_DIR/out/verify")"
  grep -qE '^remote +store health .* warning +out' "$TEST_DIR/out/verify" ||
    fail "verify does not name the store out: $(grep '^remote' "$TEST_DIR/out/verify")"
  grep -qE '^remote .* is out \(.*\): not asked; compiles use the local cache' "$TEST_DIR/out/verify" ||
    fail "verify's remote check asked a store that is out: $(grep '^remote' "$TEST_DIR/out/verify")"
  ! grep -q 'Timed out waiting for server startup' "$TEST_DIR/out/verify" ||
    fail "verify waited on a server's start: $(grep 'Timed out' "$TEST_DIR/out/verify")"
  echo "    verify, the store out: exit 0 in $MS ms (at most $allowed; the store healthy: $VERIFY_HEALTHY_MS ms)"
  [ "$MS" -le "$allowed" ] || fail "verify in a new namespace with the store out took $MS ms (at most $allowed ms)"
}

# store_fault KIND: the fixture, the warm-up, then the store KIND (hung, killed, black-holed) and
# at once: the warm object's compile, a new one, verify; no server was started with the store,
# the store was found out (events.log), nothing was written to it (hung: it is there to ask).
store_fault() {
  fixture
  warm_up
  case $1 in
    hung) kill -STOP "$(cat "$STORE_PIDFILE")" ;;
    killed) _kill_pidfile "$STORE_PIDFILE" ;;
    black-holed) _kill_pidfile "$STORE_PIDFILE" && black_hole "$STORE_PORT" ;;
  esac
  expect_compile warm warm 2000 "hits=1 misses=0"
  expect_compile new new $((UNCACHED_MS + 2000)) "hits=0 misses=1"
  expect_verify
  ! grep -q 'start-server failed' "$P/.shimctl/events.log" 2>/dev/null ||
    fail "a server was started with the store in it: $(grep 'start-server failed' "$P/.shimctl/events.log" | head -2)"
  grep -q " store-out " "$P/.shimctl/events.log" || fail "no store-out event in events.log"
  if [ "$1" = hung ]; then
    kill -CONT "$(cat "$STORE_PIDFILE")"
    expect_eq "$STORE_KEYS" "$(redis_keys "$STORE_PORT")" "the store's keys after the outage (nothing written while it was out)"
  fi
}

# ---- the tests --------------------------------------------------------------------------------

test_hung() {
  TEST "sccache, new mount namespaces: the store hung (SIGSTOP): warm <= 2 s, new <= uncached + 2 s, verify in seconds"
  store_fault hung
}

test_killed() {
  TEST "sccache, new mount namespaces: the store killed (SIGKILL): warm <= 2 s, new <= uncached + 2 s, verify in seconds"
  store_fault killed
}

test_black_holed() {
  TEST "sccache, new mount namespaces: the store black-holed (accepts, never answers): warm <= 2 s, new <= uncached + 2 s, verify in seconds"
  store_fault black-holed
}
