# Mixed ccache versions on one cache (the sid leg): the host's ccache 4.7.5 (Debian 12) and the
# root's 4.14.2 write the same cache directory and the same Redis. scripts/test-sid stages the
# host's ccache, its libraries and the host's loader in $BUILD_DIR/host-ccache; it runs here as
# host-ccache/ld-linux-x86-64.so.2 --library-path host-ccache --argv0 ccache host-ccache/ccache.
# Asserted: no compile fails either way, every object equals a fresh compile's, each version hits
# its own entries; the hit rates across versions are printed (and asserted as measured: none, the
# two versions name their entries differently). `shimctl status` names the versions that wrote
# the entries, checked against `ccache --inspect`.

private_mounts

HOST_CCACHE=$BUILD_DIR/host-ccache

suite_requires() {
  [ -x "$HOST_CCACHE/ccache" ] && [ -x "$HOST_CCACHE/ld-linux-x86-64.so.2" ] ||
    skip_suite "sid_mixed_ccache: no staged host ccache in $HOST_CCACHE (scripts/test-sid stages it; by hand: copy /usr/bin/ccache, the libraries ldd lists and /lib64/ld-linux-x86-64.so.2 there)"
  [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && command -v ccache >/dev/null && command -v gcc >/dev/null &&
    command -v redis-server >/dev/null && command -v redis-cli >/dev/null && command -v python3 >/dev/null &&
    file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF
}

# The staged ccache behind a wrapper named ccache (shimctl install --cache-tool takes it).
OLD=$SUITE_TMP/ccache-host/ccache
make_old() {
  [ -x "$OLD" ] && return 0
  mkdir -p "${OLD%/*}"
  printf '#!/bin/sh\nexec %s/ld-linux-x86-64.so.2 --library-path %s --argv0 ccache %s/ccache "$@"\n' \
    "$HOST_CCACHE" "$HOST_CCACHE" "$HOST_CCACHE" >"$OLD"
  chmod 755 "$OLD"
}

setup() {
  make_old
  OLD_VERSION=$("$OLD" --version | sed -n '1s/^ccache version //p')
  NEW_VERSION=$(ccache --version | sed -n '1s/^ccache version //p')
  [ -n "$OLD_VERSION" ] || fail "the staged ccache does not run: $("$OLD" --version 2>&1 | head -3)"
  [ "$OLD_VERSION" != "$NEW_VERSION" ] || fail "both ccaches are version $NEW_VERSION: nothing to mix"
  local i
  for i in 1 2 3; do printf 'int f%s(int x) { return x * %s + %s; }\n' "$i" "$i" "$((i * 7))" >"$TEST_DIR/s$i.c"; done
}

# counters DIR: "hits misses" of the cache DIR (read by 4.14.2; both versions count in the same
# stats files).
counters() {
  local d p m
  d=$(ccache_stat "$1" direct_cache_hit); p=$(ccache_stat "$1" preprocessed_cache_hit); m=$(ccache_stat "$1" cache_miss)
  echo "$((d + p)) $((m))"
}

# round TOOL DIR: TOOL (ccache or $OLD) compiles s1..s3.c with gcc in the new directory DIR;
# every object must equal the fresh one in $TEST_DIR/fresh. Prints "hits misses" of the round.
round() {
  local tool=$1 dir=$2 before after i
  mkdir -p "$dir"
  before=$(counters "$CCACHE_DIR")
  for i in 1 2 3; do
    cp "$TEST_DIR/s$i.c" "$dir/"
    (cd "$dir" && "$tool" gcc -O2 -c "s$i.c" -o "s$i.o") >"$TEST_DIR/round.err" 2>&1 ||
      fail "$tool gcc -c s$i.c in $dir failed:"$'\n'"$(cat "$TEST_DIR/round.err")"
    expect_same_file "$TEST_DIR/fresh/s$i.o" "$dir/s$i.o"
  done
  after=$(counters "$CCACHE_DIR")
  set -- $before $after
  echo "$(($3 - $1)) $(($4 - $2))"
}

fresh_objects() {
  mkdir -p "$TEST_DIR/fresh"
  local i
  for i in 1 2 3; do
    cp "$TEST_DIR/s$i.c" "$TEST_DIR/fresh/"
    (cd "$TEST_DIR/fresh" && gcc -O2 -c "s$i.c" -o "s$i.o") || fail "gcc -c s$i.c failed"
  done
}

test_one_cache_directory() {
  TEST "ccache 4.7.5 and 4.14.2 on one cache directory (gcc): no failure, no wrong object, each hits its own entries"
  setup
  fresh_objects
  local r
  # 4.7.5 writes, 4.14.2 reads; then each repeats.
  export CCACHE_DIR=$TEST_DIR/cache-a
  expect_eq "0 3" "$(round "$OLD" "$TEST_DIR/a1")" "$OLD_VERSION, cold"
  r=$(round ccache "$TEST_DIR/a2")
  echo "    local: $NEW_VERSION reading what $OLD_VERSION wrote: ${r%% *}/3 hits"
  expect_eq "0 3" "$r" "$NEW_VERSION after $OLD_VERSION (hits misses)"
  expect_eq "3 0" "$(round ccache "$TEST_DIR/a3")" "$NEW_VERSION again"
  expect_eq "3 0" "$(round "$OLD" "$TEST_DIR/a4")" "$OLD_VERSION again"
  # 4.14.2 writes, 4.7.5 reads.
  export CCACHE_DIR=$TEST_DIR/cache-b
  expect_eq "0 3" "$(round ccache "$TEST_DIR/b1")" "$NEW_VERSION, cold"
  r=$(round "$OLD" "$TEST_DIR/b2")
  echo "    local: $OLD_VERSION reading what $NEW_VERSION wrote: ${r%% *}/3 hits"
  expect_eq "0 3" "$r" "$OLD_VERSION after $NEW_VERSION (hits misses)"
  expect_eq "3 0" "$(round "$OLD" "$TEST_DIR/b3")" "$OLD_VERSION again"
  expect_eq "3 0" "$(round ccache "$TEST_DIR/b4")" "$NEW_VERSION again"
  # Both read the shared statistics and clean the shared directory without an error, and the
  # entries of both survive the other's cleanup.
  local tool
  for tool in "$OLD" ccache; do
    expect_success "$tool" --show-stats
    expect_success "$tool" --cleanup
  done
  expect_eq "3 0" "$(round "$OLD" "$TEST_DIR/b5")" "$OLD_VERSION after both cleanups"
  expect_eq "3 0" "$(round ccache "$TEST_DIR/b6")" "$NEW_VERSION after both cleanups"
}

# start_redis: a redis-server on 127.0.0.1 for this test (stopped by stop_redis); sets REDIS_URL.
start_redis() {
  local port i; port=$(free_port)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$TEST_DIR/redis.pid" --logfile "$TEST_DIR/redis.log" --dir "$TEST_DIR" >/dev/null ||
    fail "redis-server did not start"
  for i in $(seq 100); do
    redis-cli -p "$port" ping 2>/dev/null | grep -q PONG && break
    [ "$i" = 100 ] && { stop_pidfile "$TEST_DIR/redis.pid"; fail "redis-server does not answer: $(tail -3 "$TEST_DIR/redis.log")"; }
    sleep 0.05
  done
  REDIS_PORT=$port
  export CCACHE_REMOTE_STORAGE=redis://127.0.0.1:$port
}

test_one_redis() {
  TEST "ccache 4.7.5 and 4.14.2 on one Redis (remote_storage), each with an empty local cache: no failure, no wrong object"
  setup
  fresh_objects
  start_redis
  local r keys_old keys_new
  expect_eq "0 3" "$(CCACHE_DIR=$TEST_DIR/l1 round "$OLD" "$TEST_DIR/r1")" "$OLD_VERSION, cold, through Redis"
  keys_old=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'ccache:*' | sort)
  r=$(CCACHE_DIR=$TEST_DIR/l2 round ccache "$TEST_DIR/r2")
  echo "    redis: $NEW_VERSION reading what $OLD_VERSION wrote: ${r%% *}/3 hits"
  expect_eq "0 3" "$r" "$NEW_VERSION after $OLD_VERSION through Redis"
  expect_eq "3 0" "$(CCACHE_DIR=$TEST_DIR/l3 round ccache "$TEST_DIR/r3")" "$NEW_VERSION from Redis alone"
  keys_new=$(redis-cli -p "$REDIS_PORT" --scan --pattern 'ccache:*' | sort | comm -13 <(echo "$keys_old") -)
  r=$(CCACHE_DIR=$TEST_DIR/l4 round "$OLD" "$TEST_DIR/r4")
  echo "    redis: $OLD_VERSION reading what both wrote: ${r%% *}/3 hits (its own entries)"
  expect_eq "3 0" "$r" "$OLD_VERSION from Redis alone"
  local remote_hits
  remote_hits=$(($(ccache_stat "$TEST_DIR/l3" remote_storage_hit) + $(ccache_stat "$TEST_DIR/l4" remote_storage_hit)))
  stop_pidfile "$TEST_DIR/redis.pid"
  expect_eq 6 "$remote_hits" "remote hits of the two repeats"
  expect_eq 6 "$(echo "$keys_old" | grep -c .)" "Redis keys $OLD_VERSION wrote (3 results, 3 manifests)"
  expect_eq 6 "$(echo "$keys_new" | grep -c .)" "Redis keys $NEW_VERSION added (its own, none shared)"
}

# hip_in DIR: hipcc through the shim (HIP_ENV before it) compiles m.hip in DIR to m.o (the same
# -o name everywhere: clang-21 embeds it in the object).
hip_in() {
  mkdir -p "$1"
  (cd "$1" && cp "$TEST_DIR/m.hip" . &&
    "${HIP_ENV[@]}" /opt/rocm/bin/hipcc -x hip --offload-arch=gfx90a -c m.hip -o m.o) \
    >"$TEST_DIR/hip.err" 2>&1 || fail "hipcc in $1 failed:"$'\n'"$(cat "$TEST_DIR/hip.err")"
}

# install_with TOOL: /opt/rocm installed with cache tool TOOL (rolled back first if installed).
install_with() {
  if [ -f "$ROCM7/.shimctl/manifest.json" ]; then
    "$SHIMCTL" rollback /opt/rocm >"$TEST_DIR/rollback.out" 2>&1 || fail "rollback failed: $(cat "$TEST_DIR/rollback.out")"
  fi
  "$SHIMCTL" install /opt/rocm --cache-tool "$1" --cache-dir "$C" --no-verify >"$TEST_DIR/install.out" 2>&1 ||
    fail "install with $1 failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
}

test_hip_through_the_shim_and_status() {
  TEST "hipcc through the shim with 4.14.2, then 4.7.5, then 4.14.2 on one cache; status names both writers"
  setup
  private_opt_rocm7
  C=$TEST_DIR/hipcache
  HIP_ENV=(env)
  cat >"$TEST_DIR/m.hip" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void mixed(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(in[i]) * sinf(in[i]);
}
EOF
  local before r
  install_with "$(command -v ccache)"
  hip_in "$TEST_DIR/h1"
  expect_eq "0 1" "$(counters "$C")" "$NEW_VERSION, cold"
  install_with "$OLD"
  expect_contains "$(grep '^cache ' "$ROCM7/bin/.shimctl.conf")" "$OLD" "the shim config names the staged ccache"
  before=$(counters "$C")
  hip_in "$TEST_DIR/h2"
  r=$(counters "$C")
  echo "    shim (hipcc): $OLD_VERSION reading what $NEW_VERSION wrote: $((${r%% *} - ${before%% *}))/1 hits"
  expect_eq "0 2" "$r" "$OLD_VERSION after $NEW_VERSION"
  hip_in "$TEST_DIR/h3"
  expect_eq "1 2" "$(counters "$C")" "$OLD_VERSION again"
  install_with "$(command -v ccache)"
  hip_in "$TEST_DIR/h4"
  expect_eq "2 2" "$(counters "$C")" "$NEW_VERSION again (its own entry)"
  HIP_ENV=(env SHIMCTL_DISABLE=1)
  hip_in "$TEST_DIR/fresh"
  local d; for d in h1 h2 h3 h4; do expect_same_file "$TEST_DIR/fresh/m.o" "$TEST_DIR/$d/m.o"; done

  # Who wrote the entries: status against ccache --inspect of every entry file.
  local oracle
  oracle=$(find "$C" -mindepth 2 -type f ! -name stats ! -name CACHEDIR.TAG ! -path "$C/tmp/*" -print0 |
    xargs -0 -n1 ccache --inspect 2>/dev/null | sed -n 's/^Ccache version: //p' | sort | uniq -c |
    awk '{ printf "%s=%s ", $2, $1 } END { printf "unknown=0" }')
  expect_contains "$oracle" "$OLD_VERSION=" "ccache --inspect finds entries of $OLD_VERSION"
  expect_contains "$oracle" "$NEW_VERSION=" "ccache --inspect finds entries of $NEW_VERSION"
  local json text
  json=$("$SHIMCTL" status /opt/rocm --json) || fail "status --json failed"
  expect_eq "$oracle" "$(python3 -c 'import json, sys
w = json.load(sys.stdin)["cache"]["writers"]
print(" ".join("%s=%d" % kv for kv in sorted(w["versions"].items())), "unknown=%d" % w["unknown"])' <<<"$json")" \
    "status's writers against ccache --inspect"
  text=$("$SHIMCTL" status /opt/rocm) || fail "status failed"
  expect_contains "$text" "written by:  ccache " "status text"
  expect_contains "$text" "ccache $OLD_VERSION (" "status text names $OLD_VERSION"
  expect_contains "$text" "ccache $NEW_VERSION (" "status text names $NEW_VERSION"
  "$SHIMCTL" rollback /opt/rocm >/dev/null 2>&1 || fail "the final rollback failed"
}

# The private /opt and its prefix, built once before the tests run (TEST scrubs SHIMCTL_*
# variables, the namespace marker among them).
if [ "${SHIMCTL_TEST_PRIVATE_NS:-}" = 1 ] && suite_requires; then
  private_opt_rocm7
fi
