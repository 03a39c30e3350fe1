# One prefix, many users (issue 21): a root-installed prefix that real users (useradd), a user
# outside the cache's group and "containers" (a private mount namespace with its own /tmp and HOME)
# compile through at once, with each cache tool. Every compile runs with its caller's rights (its
# object owned by the caller; -o into a directory only root may write fails with the compiler's
# own error), objects equal an uncached compile's, a listener of another user receives nothing,
# a cache the user cannot use costs only the hit, and rollback leaves the prefix byte-identical
# after all of it (every sccache server the shims started stopped).
# The Debian 12 stack here (sccache 0.4: a port per user and configuration, its listener's owner
# checked); sid_multiuser runs the same tests on the sid stack (sccache 0.17: a unix socket in the
# user's private directory; ccache 4.14.2).
# Everything lives under /var/tmp (MU_ROOT): a container mounts its own /tmp, and the prefix and
# the work directories must stay visible to it.

suite_requires() {
  [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null && command -v runuser >/dev/null &&
    command -v unshare >/dev/null && command -v sccache >/dev/null && command -v ccache >/dev/null &&
    command -v python3 >/dev/null && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

# mu_fixture: users UA, UB (group G) and UC (no such group), their homes and work dirs under
# MU_ROOT, P = a copy of the stack's ROCm prefix, k.hip and t.c in every work dir, the listing of
# P in $TEST_DIR/before. Users, group, servers and MU_ROOT go when the test ends.
mu_fixture() {
  local tag shared u
  tag=$(printf '%04x%04x' $$ $RANDOM)
  G=mug$tag; UA=mua$tag; UB=mub$tag; UC=muc$tag
  MU_ROOT=$(mktemp -d /var/tmp/shimctl-mu.XXXXXX)
  chmod 755 "$MU_ROOT"
  trap mu_cleanup EXIT
  make_test_group "$G"
  make_test_user "$UA" "$G"
  make_test_user "$UB" "$G"
  make_test_user "$UC"
  if [ "${STACK:-debian12}" = sid ]; then shared=$(rocm_prefix sid); else shared=$(rocm_prefix 15); fi ||
    fail "cannot build the ROCm fixture prefix"
  P=$MU_ROOT/rocm
  cp -a "$shared" "$P" || fail "cannot copy the fixture prefix"
  for u in root "$UA" "$UB" "$UC"; do
    mkdir -p "$MU_ROOT/home-$u" "$MU_ROOT/work-$u" "$MU_ROOT/ref-$u"
    mu_sources "$MU_ROOT/work-$u"
    mu_sources "$MU_ROOT/ref-$u"
    chown -R "$u" "$MU_ROOT/home-$u" "$MU_ROOT/work-$u" "$MU_ROOT/ref-$u"
  done
  mkdir -m 700 "$MU_ROOT/root-only"
  tree_listing "$P" >"$TEST_DIR/before"
}

mu_sources() {
  cat >"$1/k.hip" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void mu_k(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) * 2.0f + 7.0f; }
EOF
  printf 'int mu_answer(int x) { return x * 42; }\n' >"$1/t.c"
}

mu_cleanup() {
  [ -n "${P:-}" ] && [ -d "$P/.shimctl" ] && "$SHIMCTL" rollback "$P" >/dev/null 2>&1
  remove_test_users
  [ -n "${MU_ROOT:-}" ] && rm -rf "$MU_ROOT"
}

# as USER CMD...: CMD as USER in its work dir, with a clean environment and its own HOME.
as() {
  local user=$1
  shift
  runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$MU_ROOT/home-$user" LANG=C \
    ${MU_ENV:+$MU_ENV} sh -c 'cd "$1" && shift && exec "$@"' sh "$MU_ROOT/work-$user" "$@"
}

# in_container USER CMD...: CMD as USER in a private mount namespace with its own (empty) /tmp
# and HOME: what a container sharing the host's prefix and user ids sees.
in_container() {
  local user=$1
  shift
  local home=$MU_ROOT/container-home-$user
  mkdir -p "$home"
  unshare --mount --propagation private sh -c '
    mount -t tmpfs -o mode=1777 mu-tmp /tmp && mount -t tmpfs -o mode=755 mu-home "$2" &&
    chown "$1" "$2" && cd "$3" && user=$1 home=$2 && shift 3 &&
    exec runuser -u "$user" -- env -i PATH=/usr/bin:/bin HOME="$home" LANG=C "$@"' \
    sh "$user" "$home" "$MU_ROOT/work-$user" "$@"
}

# The HIP compile of the suite (CMake's HIP language shape without a depfile) and a C compile.
hip_cmd() { echo "$P/llvm/bin/clang++ -x hip --offload-arch=gfx90a -c k.hip -o ${1:-k.o}"; }

# compile_as USER: k.o and t.o in USER's work dir through the shims; ref.k.o and ref.t.o the same
# commands uncached (SHIMCTL_DISABLE=1) in its ref dir (the same relative names: the same CUID).
compile_as() {
  local u=$1 out
  out=$(again_if_sccache_did_not_start "$(user_events_file "$u")" "$MU_ROOT/home-$u" as "$u" $(hip_cmd) 2>&1) ||
    fail "$u's HIP compile failed: $out"
  out=$(as "$u" "$P/llvm/bin/clang" -c t.c -o t.o 2>&1) || fail "$u's C compile failed: $out"
  if [ ! -s "$MU_ROOT/ref-$u/k.o" ]; then
    runuser -u "$u" -- env -i PATH=/usr/bin:/bin HOME="$MU_ROOT/home-$u" SHIMCTL_DISABLE=1 sh -c \
      "cd '$MU_ROOT/ref-$u' && $(hip_cmd) && '$P/llvm/bin/clang' -c t.c -o t.o" ||
      fail "$u's uncached reference compiles failed"
  fi
  expect_same_file "$MU_ROOT/ref-$u/k.o" "$MU_ROOT/work-$u/k.o"
  expect_same_file "$MU_ROOT/ref-$u/t.o" "$MU_ROOT/work-$u/t.o"
  expect_eq "$u $u" "$(stat -c %U "$MU_ROOT/work-$u/k.o") $(stat -c %U "$MU_ROOT/work-$u/t.o")" \
    "owners of $u's objects"
}

# The compiler's own error, as the caller: -o into a directory only root may write.
expect_callers_rights() {
  local u=$1 out rc
  out=$(as "$u" "$P/llvm/bin/clang" -c t.c -o "$MU_ROOT/root-only/planted.o" 2>&1); rc=$?
  [ "$rc" -ne 0 ] || fail "$u wrote into a directory only root may write (rc 0)"
  expect_contains "$out" "unable to open output file" "$u's error writing into a root-only dir"
  [ ! -e "$MU_ROOT/root-only/planted.o" ] || fail "$MU_ROOT/root-only/planted.o was created"
}

# The sccache servers the shims of P started (SHIMCTL_SCCACHE_SERVER_OF), and their users.
server_pids() {
  local pid
  for pid in $(pgrep -x sccache); do
    { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qxF "SHIMCTL_SCCACHE_SERVER_OF=$P/.shimctl" &&
      echo "$pid"
  done
}
server_owners() {
  local pid
  for pid in $(server_pids); do stat -c %U "/proc/$pid"; done | sort | paste -sd ' '
}

# user_events USER: that user's own events log of P (written where P's own is not writable).
user_events_file() {
  printf '%s/home-%s/.cache/shimctl/events/%s' "$MU_ROOT" "$1" "$(printf '%s' "$P" | sed 's/%/%25/g; s|/|%2F|g')"
}
user_events() { cat "$(user_events_file "$1")" 2>/dev/null; }

rollback_restores_everything() {
  local out
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_same_tree "$TEST_DIR/before" "$P"
  [ ! -e "$P/.shimctl" ] || fail "rollback left $P/.shimctl: $(ls -la "$P/.shimctl")"
  expect_eq "" "$(server_owners)" "sccache servers of P still running after rollback"
  printf '%s' "$out"
}

test_sccache_every_compile_runs_as_its_caller() {
  TEST "sccache: root installs and compiles; two users and a container compile as themselves; rollback stops every server, byte-identical"
  mu_fixture
  expect_success "$SHIMCTL" install "$P" --cache sccache --no-verify
  (cd "$MU_ROOT/work-root" && "$P/llvm/bin/clang" -c t.c -o t.o) || fail "root's compile failed"
  compile_as "$UA"
  expect_callers_rights "$UA"
  compile_as "$UB"
  expect_callers_rights "$UB"
  # A container of UA's: its own /tmp and HOME (so its own server), the host's prefix.
  local out
  out=$(in_container "$UA" sh -c "$(hip_cmd c.o) && stat -c %U c.o" 2>&1) ||
    fail "the container's compile failed: $out"
  expect_eq "$UA" "$out" "owner of the container's object"
  runuser -u "$UA" -- env -i PATH=/usr/bin:/bin HOME="$MU_ROOT/home-$UA" SHIMCTL_DISABLE=1 sh -c \
    "cd '$MU_ROOT/ref-$UA' && $(hip_cmd c.o)" || fail "uncached reference of c.o"
  expect_same_file "$MU_ROOT/ref-$UA/c.o" "$MU_ROOT/work-$UA/c.o"
  expect_eq "$UA $UA $UB root" "$(server_owners)" \
    "the owners of the servers the shims started (root, UA, UA's container, UB)"
  out=$(rollback_restores_everything)
  expect_contains "$out" "stopped 4 sccache server(s)" "rollback's report"
}

test_sccache_another_users_listener_or_directory_is_never_used() {
  TEST "sccache: a listener of another user on a user's port gets 0 bytes; another user's runtime dir is not used; the compile succeeds"
  mu_fixture
  expect_success "$SHIMCTL" install "$P" --cache sccache --no-verify
  local server transport out rc
  server=$(as "$UA" "$SHIMCTL" status --json "$P" | python3 -c \
    'import json, sys; print(json.load(sys.stdin)["cache"]["server"]["environment"])')
  transport=${server%%=*}
  if [ "$transport" = SCCACHE_SERVER_PORT ]; then
    # UB listens on UA's port first and records every byte it receives.
    runuser -u "$UB" -- python3 -c '
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(16); s.settimeout(0.2)
open(sys.argv[2], "w").write("listening\n")
got = conns = 0; end = time.time() + 60
while time.time() < end:
    try:
        c, _ = s.accept(); conns += 1; c.settimeout(1)
        try:
            got += len(c.recv(1 << 20))
        except Exception:
            pass
        c.close()
    except socket.timeout:
        pass
    open(sys.argv[2], "w").write("%d connections %d bytes\n" % (conns, got))
' "${server#*=}" "$MU_ROOT/work-$UB/listener" &
    local listener=$!
    wait_until 10 "UB's listener" grep -q . "$MU_ROOT/work-$UB/listener"
    compile_as "$UA"
    as "$UA" "$SHIMCTL" status "$P" >/dev/null 2>&1 # status asks no other user's server either
    sleep 0.5
    expect_eq "0 connections 0 bytes" "$(cat "$MU_ROOT/work-$UB/listener")" "what UB's listener received"
    expect_contains "$(user_events "$UA")" "sccache-server-unavailable" "UA's events log"
    expect_contains "$(user_events "$UA")" "another user listens on its port" "UA's events log"
    out=$(MU_ENV=SHIMCTL_STRICT=1 as "$UA" "$P/llvm/bin/clang" -c t.c -o strict.o 2>&1); rc=$?
    expect_eq 1 "$rc" "exit code, strict"
    expect_contains "$out" "another user listens on its port" "strict message"
    kill "$listener" 2>/dev/null; wait "$listener" 2>/dev/null
  else
    # su keeps the caller's XDG_RUNTIME_DIR: UB's directory must not get UA's socket.
    mkdir -p "$MU_ROOT/runtime-$UB"
    chown "$UB" "$MU_ROOT/runtime-$UB"
    chmod 700 "$MU_ROOT/runtime-$UB"
    MU_ENV=XDG_RUNTIME_DIR=$MU_ROOT/runtime-$UB compile_as "$UA"
    expect_eq "" "$(find "$MU_ROOT/runtime-$UB" -mindepth 1)" "files UA left in UB's runtime dir"
    local socket=${server#*=}
    expect_eq "$UA 700" "$(stat -c '%U %a' "$(dirname "$socket")")" "UA's socket directory"
    [ -S "$socket" ] || fail "no socket $socket after UA's compile"
    runuser -u "$UB" -- python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1]); print("connected")
except OSError as e:
    print(type(e).__name__)' "$socket" >"$MU_ROOT/ub-connect"
    expect_eq PermissionError "$(cat "$MU_ROOT/ub-connect")" "UB connecting to UA's socket"
  fi
  rollback_restores_everything >/dev/null
}

test_sccache_cache_dir_the_user_cannot_write() {
  TEST "sccache: a cache dir the user cannot write: compiled uncached (events), strict mode fails naming it"
  mu_fixture
  mkdir -p "$MU_ROOT/rootcache"
  expect_success "$SHIMCTL" install "$P" --cache sccache --cache-dir "$MU_ROOT/rootcache" --no-verify
  compile_as "$UA"
  expect_contains "$(user_events "$UA")" "cache-dir-unwritable" "UA's events log"
  local out rc
  out=$(MU_ENV=SHIMCTL_STRICT=1 as "$UA" "$P/llvm/bin/clang" -c t.c -o strict.o 2>&1); rc=$?
  expect_eq 1 "$rc" "exit code, strict"
  expect_contains "$out" "cache directory $MU_ROOT/rootcache is not writable by this user" "strict message"
  rollback_restores_everything >/dev/null
}

test_device_only_compile_with_a_depfile_in_both_modes() {
  TEST "a device-only HIP compile with -MD -MF (CMake's code object) succeeds in both modes, object as uncached"
  mu_fixture
  local mode out cmd
  cmd="$P/llvm/bin/clang++ -x hip --offload-arch=gfx90a --cuda-device-only -MD -MT x.o -MF x.o.d -c k.hip -o x.o"
  for mode in ccache sccache; do
    expect_success "$SHIMCTL" install "$P" --cache "$mode" --no-verify
    # Through the shim uncached: the same -cuid= (clang >= 18 names a symbol after it).
    (cd "$MU_ROOT/ref-root" && SHIMCTL_DISABLE=1 $cmd 2>/dev/null) ||
      fail "uncached device-only compile failed"
    local i
    for i in 1 2; do
      rm -f "$MU_ROOT/work-root/x.o"
      out=$(cd "$MU_ROOT/work-root" && $cmd 2>&1) || fail "$mode: device-only compile $i failed: $out"
      expect_same_file "$MU_ROOT/ref-root/x.o" "$MU_ROOT/work-root/x.o"
    done
    rollback_restores_everything >/dev/null
  done
}

test_sccache_failing_by_itself_costs_only_the_hit() {
  TEST "sccache fails for a reason of its own: the compile runs uncached, the reason in events.log; strict mode passes sccache's error on; a server killed mid-compile breaks nothing"
  mu_fixture
  expect_success "$SHIMCTL" install "$P" --cache sccache --no-verify
  cd "$MU_ROOT/work-root" || fail "no work dir"
  (cd "$MU_ROOT/ref-root" && SHIMCTL_DISABLE=1 "$P/llvm/bin/clang" -c t.c -o t.o) || fail "uncached compile"
  "$P/llvm/bin/clang" -c t.c -o t.o || fail "first compile (starts the server)"
  # A config sccache's client cannot read while its server runs: sccache fails the call itself
  # ("sccache: error: Failed to load config file", exit 2).
  printf 'garbage = [' >bad.toml
  rm -f t.o
  local out rc
  out=$(SCCACHE_CONF=$PWD/bad.toml "$P/llvm/bin/clang" -c t.c -o t.o 2>&1); rc=$?
  expect_eq "0 " "$rc $out" "exit code and output when sccache fails"
  expect_same_file "$MU_ROOT/ref-root/t.o" t.o
  expect_contains "$(cat "$P/.shimctl/events.log")" "sccache-failed $(command -v sccache) sccache: error: Failed to load config file" "events.log"
  out=$(SCCACHE_CONF=$PWD/bad.toml SHIMCTL_STRICT=1 "$P/llvm/bin/clang" -c t.c -o strict.o 2>&1); rc=$?
  expect_eq 2 "$rc" "exit code, strict (sccache's own)"
  expect_contains "$out" "sccache: error: Failed to load config file" "strict mode passes sccache's error on"
  # The compiler's own error passes through as it is, once.
  printf 'int broken(void) { return }\n' >broken.c
  out=$("$P/llvm/bin/clang" -c broken.c -o broken.o 2>&1); rc=$?
  expect_eq 1 "$rc" "exit code of a compile error"
  expect_eq 1 "$(grep -c 'error: expected expression' <<<"$out")" "the compiler's error, once"

  # The server killed while it runs a compile: the compile succeeds (sccache 0.4 compiles locally
  # itself; otherwise the shim does), with the same object.
  cat >slow.cpp <<'EOF'
#include <map>
#include <regex>
#include <string>
int mu_slow(const std::string& s) {
  std::map<std::string, std::regex> m{{"a", std::regex("a+b*")}, {"b", std::regex("(x|y)+z")}};
  return std::regex_match(s, m["a"]) + std::regex_search(s, m["b"]);
}
EOF
  cp slow.cpp "$MU_ROOT/ref-root/"
  (cd "$MU_ROOT/ref-root" && SHIMCTL_DISABLE=1 "$P/llvm/bin/clang++" -c slow.cpp -o slow.o) ||
    fail "uncached compile"
  local server_pid
  server_pid=$(server_pids | tail -1)
  [ -n "$server_pid" ] || fail "no server of root's after the first compile"
  "$P/llvm/bin/clang++" -c slow.cpp -o slow.o >"$TEST_DIR/slow.out" 2>&1 &
  local compile=$!
  wait_until 30 "the server's compile of slow.cpp" pgrep -P "$server_pid" -f slow.cpp >/dev/null
  kill -KILL "$server_pid"
  wait "$compile" || fail "the compile failed when its sccache server died: $(cat "$TEST_DIR/slow.out")"
  wait_until 30 "the orphaned compile" eval '! pgrep -f "slow.cpp" >/dev/null'
  expect_same_file "$MU_ROOT/ref-root/slow.o" slow.o
  cd "$TEST_DIR" || fail "cd"
  rollback_restores_everything >/dev/null
}

test_ccache_group_members_outsider_and_container() {
  TEST "ccache shared cache: members share hits, an outsider and a container compile, every object the caller's; rollback byte-identical"
  mu_fixture
  local S=$MU_ROOT/shared
  expect_success "$SHIMCTL" install "$P" --cache ccache --shared-cache "$S" --group "$G" --no-verify
  (cd "$MU_ROOT/work-root" && "$P/llvm/bin/clang" -c t.c -o t.o) || fail "root's compile failed"
  compile_as "$UA"
  compile_as "$UB"
  expect_eq 2 "$(CCACHE_DIR=$MU_ROOT/home-$UB/.cache/ccache ccache --print-stats | awk '$1 == "remote_storage_hit" { print $2 }')" \
    "UB's hits from the shared cache (its HIP and C compiles)"
  expect_callers_rights "$UB"
  find "$S" -type f | sort >"$TEST_DIR/shared.before"
  compile_as "$UC" # outside the group: compiles, writes nothing
  find "$S" -type f | sort >"$TEST_DIR/shared.after"
  expect_eq "" "$(diff "$TEST_DIR/shared.before" "$TEST_DIR/shared.after")" "entries UC wrote"
  local out
  out=$(in_container "$UB" sh -c "$(hip_cmd) && stat -c %U k.o && ccache --print-stats | awk '\$1 == \"remote_storage_hit\" { print \$2 }'" 2>&1) ||
    fail "the container's compile failed: $out"
  expect_eq "$UB 1" "$(echo $out)" "owner and shared hits in UB's container"
  expect_same_file "$MU_ROOT/ref-$UB/k.o" "$MU_ROOT/work-$UB/k.o"
  rollback_restores_everything >/dev/null
}

# Compile records (issue 43) are the compiling user's: written in that user's cache home, owned by
# them and private (0700/0600); another user's explain finds none of them; root's are untouched.
test_ccache_records_are_the_callers_own() {
  TEST "ccache: each user's misses are recorded in that user's own cache home, private, and explained there"
  mu_fixture
  expect_success "$SHIMCTL" install "$P" --cache ccache --shared-cache "$MU_ROOT/shared" --group "$G" --no-verify
  local u out records
  for u in "$UA" "$UB"; do
    # Flags of the user's own: one group-shared cache, and the other's entries would be hits.
    out=$(as "$u" $(hip_cmd) "-DMU_OWNER=$u" 2>&1) || fail "$u's first compile failed: $out"
    out=$(as "$u" $(hip_cmd) "-DMU_OWNER=$u" -DMU_CHANGED=1 2>&1) || fail "$u's second compile failed: $out"
    records=$MU_ROOT/home-$u/.cache/shimctl/records
    expect_eq "$u 700" "$(stat -c '%U %a' "$records")" "$u's records directory"
    expect_eq "$u 600" "$(find "$records" -name '*.json' -path '*/[0-9a-f]*/*' -printf '%u %m\n' | sort -u)" \
      "owners and modes of $u's records"
    out=$(as "$u" "$SHIMCTL" explain k.o 2>&1) || fail "$u's explain failed: $out"
    expect_eq "-DMU_CHANGED=1 added" "$(head -1 <<<"$out")" "$u's explain k.o"
  done
  # UC (not in the group, its own cache dir) has no record of UA's object.
  out=$(as "$UC" "$SHIMCTL" explain "$MU_ROOT/work-$UA/k.o" 2>&1) && fail "UC explained UA's object: $out"
  expect_contains "$out" "no record" "UC's explain of UA's object"
  [ ! -e "$MU_ROOT/home-root/.cache/shimctl/records" ] || fail "root's cache home got records"
}
