# Integration test helpers, in the style of ccache's test/run.
# A suite is tests/integration/suites/NAME.bash defining functions; run it with
#   tests/integration/run NAME
# Environment: BUILD_DIR (the CMake build dir), SRC_DIR (the checkout).
# Exit codes: 0 all passed, 1 a test failed, 77 the suite's tool is absent (skip).
# A failure (fail, and every expect_* through it) prints one block, as ccache's test/run does:
# the suite, the suite file's line of the failing call, the TEST name, the reason (expected and
# actual), the call chain, where the test directory was kept and how to run that test alone.

set -u
: "${SRC_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
: "${BUILD_DIR:=$SRC_DIR/build}"
SHIMCTL=${SHIMCTL:-$BUILD_DIR/installer/shimctl}
SHIM_BIN=${SHIM_BIN:-$BUILD_DIR/shim/shimctl-shim}
# shimctl with the fault-injection hooks (SHIMCTL_TEST_*), built beside it with -DSHIMCTL_TEST_HOOKS=ON.
SHIMCTL_HOOKS=${SHIMCTL_HOOKS:-$BUILD_DIR/installer/shimctl-test-hooks}
SCRIPTS=$SRC_DIR/scripts
# The sid stack's clang: 21 (the 2026 stack, old offload driver), or 23 (the third stack: the new
# offload driver by default), which a sid23_* suite sets before it sources the sid suite it runs
# (one suite per behaviour, the stack a parameter). Version-gated cases read it.
SID_LLVM=21
source "$SCRIPTS/lib/cuid.bash" # shim_cuid
TESTS_PASSED=0
TESTS_FAILED=0
CURRENT_TEST=""

# A scratch root for the whole suite, kept when something fails.
SUITE_TMP=$(mktemp -d /tmp/shimctl-it.XXXXXX)

scrub_env() {
  local v
  for v in $(env | sed -n 's/^\(\(SHIMCTL\|CCACHE\|SCCACHE\)_[A-Za-z0-9_]*\)=.*/\1/p'); do
    [ "$v" = SHIMCTL_TEST_PRIVATE_NS ] || unset "$v" # the suite's namespace stays the suite's
  done
}

skip_suite() { echo "SKIP: $*"; rm -rf "$SUITE_TMP"; exit 77; }

# TEST "name": start a test in a fresh directory under $SUITE_TMP.
TEST() {
  CURRENT_TEST=$1
  scrub_env
  TEST_DIR=$SUITE_TMP/$(echo "$1" | tr -c 'A-Za-z0-9_\n-' '_')
  rm -rf "$TEST_DIR"; mkdir -p "$TEST_DIR"
  # For run's report of a test that exits non-zero without calling fail.
  printf '%s\n%s\n' "$1" "$TEST_DIR" > "$SUITE_TMP/.current-test"
  cd "$TEST_DIR" || exit 1
  echo "  TEST $1"
}

# fail REASON: the test failed. Prints the failure block (stderr; its first line starts with
# "FAILED: ", which scripts/setup and scripts/test-sid look for), records the failure for run
# (so that a fail inside a subshell, $(...) or a pipeline, still fails the test and keeps the
# test directory) and exits: each test function runs in its own subshell (see run), so failing
# ends it. expect_eq passes its two values to the block in FAIL_EXPECTED and FAIL_ACTUAL.
fail() {
  local reason=$* i n=${#FUNCNAME[@]} file line site="" chain="" test_fn="" rel
  # Frame i runs FUNCNAME[i], defined in BASH_SOURCE[i]; it is at line BASH_LINENO[i-1] there
  # (where it called frame i-1). The suite's line: the innermost frame in a suite file.
  for ((i = 1; i < n; i++)); do
    file=${BASH_SOURCE[i]} line=${BASH_LINENO[i - 1]}
    rel=${file#"$SRC_DIR"/}
    [ "${FUNCNAME[i]}" = main ] || [ "${FUNCNAME[i]}" = source ] && break
    case ${FUNCNAME[i]} in test_*) test_fn=${FUNCNAME[i]} ;; esac
    chain="${FUNCNAME[i]} (${file##*/}:$line) > $chain"
    case $file in */suites/*.bash) [ -n "$site" ] || site="$rel:$line (in ${FUNCNAME[i]})" ;; esac
  done
  [ -n "$site" ] || site="(not called from a suite file; innermost: ${chain%% > *})"
  {
    echo "FAILED: suite ${suite:-?}, ${test_fn:-outside a test}: $(_first_line "$reason")"
    echo "  Test suite:     ${suite:-?}"
    echo "  Suite line:     $site"
    echo "  Test case:      ${CURRENT_TEST:-(before TEST)}${test_fn:+ ($test_fn)}"
    echo "  Failure reason: $(_indented "$reason")"
    if [ -n "${FAIL_EXPECTED+set}" ]; then
      echo "  Expected:       $(_indented "$FAIL_EXPECTED")"
      echo "  Actual:         $(_indented "${FAIL_ACTUAL-}")"
    fi
    echo "  Call chain:     ${chain}fail"
    if [ -n "${TEST_DIR:-}" ] && [ -n "$CURRENT_TEST" ]; then
      echo "  Test directory: $TEST_DIR (kept, with the suite's scratch directory $SUITE_TMP)"
    else
      echo "  Test files:     $SUITE_TMP (kept)"
    fi
    [ -z "$test_fn" ] ||
      echo "  Run it alone:   SHIMCTL_TEST_ONLY='^$test_fn\$' BUILD_DIR=$BUILD_DIR $SRC_DIR/tests/integration/run ${suite:-?}"
  } >&2
  echo "${test_fn:-(outside a test)}" >> "$SUITE_TMP/.failures"
  exit 1
}

# _first_line TEXT: TEXT's first line, at most 160 characters ("..." when cut).
_first_line() {
  local l=${1%%$'\n'*}
  [ ${#l} -le 160 ] && [ "$l" = "$1" ] && { printf '%s' "$l"; return; }
  printf '%s ...' "${l:0:160}"
}

# _indented TEXT: TEXT with its second and later lines indented under the block's values.
_indented() { printf '%s' "${1//$'\n'/$'\n'                  }"; }

pass() { TESTS_PASSED=$((TESTS_PASSED + 1)); }

# elapsed_since NANOSECONDS (from date +%s%N): seconds since then, one decimal.
elapsed_since() {
  local ns=$(($(date +%s%N) - $1))
  printf '%d.%d' $((ns / 1000000000)) $((ns / 100000000 % 10))
}

# wait_until SECONDS WHAT COMMAND...: runs COMMAND (every 20 ms) until it succeeds; fails the
# test after SECONDS (a whole number) with "timed out after SECONDS s waiting for WHAT". The
# way to synchronise with something another process does: never a fixed sleep, never an upper
# bound on how long it may take (SECONDS is generous: only a hang ends there).
wait_until() {
  local limit=$1 what=$2 deadline
  shift 2
  deadline=$(($(date +%s%N) + limit * 1000000000))
  until "$@"; do
    if [ "$(date +%s%N)" -ge "$deadline" ]; then
      fail "timed out after $limit s waiting for $what"
      return 1
    fi
    sleep 0.02
  done
}

expect_eq() { # expected actual what
  [ "$1" = "$2" ] && return 0
  case $1$2 in *$'\n'*) ;; *) [ $((${#1} + ${#2})) -gt 120 ] ||
    { fail "$3: expected '$1', got '$2'"; return 1; } ;; esac
  local FAIL_EXPECTED=$1 FAIL_ACTUAL=$2 # long or several lines: each on its own in the block
  fail "$3: not what was expected (below)"
  return 1
}

expect_success() { # command...
  local out rc=0
  out=$("$@" 2>&1) || rc=$?
  [ $rc -eq 0 ] || { fail "expected success, got exit $rc: $*"$'\n'"$out"; return 1; }
}

expect_failure() { # command...
  if "$@" >/dev/null 2>&1; then fail "expected failure, got exit 0: $*"; return 1; fi
}

expect_contains() { # haystack needle what
  case "$1" in *"$2"*) ;; *) fail "$3: '$2' not in: $1"; return 1 ;; esac
}

# settled FILE...: every FILE was last changed (mtime and ctime) 2 s ago or more: the shim memoises
# a probe's answer only then (a change within one timestamp tick would not show in stat data).
settled() {
  local f now; now=$(date +%s)
  for f in "$@"; do [ $((now - $(stat -c %Y "$f"))) -ge 2 ] && [ $((now - $(stat -c %Z "$f"))) -ge 2 ] || return 1; done
}

# fake_probe FILE RUNS ANSWER [EXIT]: FILE becomes a script that prints ANSWER (printf format) and
# exits with EXIT (0), counting in RUNS the runs that are not under a cache (SHIMCTL_ACTIVE unset:
# the shim's own probe; a compiler run by the cache probes again on a miss). FILE may be a symlink
# (replaced, never written through); waits until it has settled (see settled).
fake_probe() {
  rm -f "$1"
  printf '#!/bin/sh\n[ -n "$SHIMCTL_ACTIVE" ] || echo run >> %s\nprintf "%s"\nexit %s\n' "$2" "$3" "${4:-0}" > "$1"
  chmod 755 "$1"
  wait_until 10 "$1 to settle" settled "$1"
}

# change_tool DIR NAME: DIR/NAME, a program a HIP compile runs, becomes a script that changes what
# the compile makes, the original kept beside it as NAME.orig (a link stays a link; the linker
# wrapper finds clang beside itself): the device link gets a build id (ld.lld, lld; the wrapper
# passes it on), the bundler aligns to 8192, llvm-offload-binary names the image gfx90a:xnack+.
# restore_tool DIR NAME puts the original back.
change_tool() {
  local body
  case $2 in
    ld.lld) body='exec "$(dirname "$0")/lld" -flavor gnu "$@" --build-id=0xdeadbeef' ;;
    lld) body='exec "$0.orig" "$@" --build-id=0xdeadbeef' ;;
    clang-linker-wrapper) body='exec "$0.orig" --device-linker=amdgcn-amd-amdhsa=--build-id=0xdeadbeef "$@"' ;;
    clang-offload-bundler)
      body='for a; do shift; case $a in -bundle-align=*) set -- "$@" -bundle-align=8192 ;; *) set -- "$@" "$a" ;; esac; done; exec "$0.orig" "$@"' ;;
    llvm-offload-binary)
      body='for a; do shift; case $a in --image=*) a=$(echo "$a" | sed s/arch=gfx90a/arch=gfx90a:xnack+/) ;; esac; set -- "$@" "$a"; done; exec "$0.orig" "$@"' ;;
    *) fail "change_tool: no change for $2"; return 1 ;;
  esac
  mv "$1/$2" "$1/$2.orig" && printf '#!/bin/sh\n%s\n' "$body" >"$1/$2" && chmod 755 "$1/$2" || fail "cannot change $2"
}
restore_tool() { rm -f "$1/$2" && mv "$1/$2.orig" "$1/$2" || fail "cannot restore $2"; }

# again_if_sccache_did_not_start EVENTS_FILE HOME CMD...: run CMD (a compile through a shim, as
# the user whose HOME is given); when EVENTS_FILE gained a failed sccache server start, forget
# it and run CMD once more. sccache 0.4's own --start-server fails now and then on a loaded
# machine (seen in full runs: the compile ran uncached, as it must, and the shim then waits 60 s
# before starting another); tests that show which server a compile gets retry it once.
again_if_sccache_did_not_start() {
  local events=$1 home=$2 before after
  shift 2
  before=$(grep -c sccache-server-unavailable "$events" 2>/dev/null)
  "$@" || return
  after=$(grep -c sccache-server-unavailable "$events" 2>/dev/null)
  [ "${after:-0}" = "${before:-0}" ] && return 0
  echo "    (sccache's server did not start: $(tail -1 "$events"); once more)" >&2
  find "$home/.cache/shimctl-run" "/tmp/shimctl-run-$(stat -c %u "$home")" \
    ${XDG_RUNTIME_DIR:+"$XDG_RUNTIME_DIR/shimctl-run"} ${XDG_CACHE_HOME:+"$XDG_CACHE_HOME/shimctl-run"} \
    1 -name 'sccache-*.failed' -delete 2>/dev/null
  "$@"
}

expect_same_file() { cmp -s "$1" "$2" || { fail "files differ: $1 $2"; return 1; }; }

expect_perm() { # path octal
  local p; p=$(stat -c %a "$1")
  [ "$p" = "$2" ] || { fail "mode of $1: expected $2, got $p"; return 1; }
}

# A listing of a tree: type, mode, owner, link target, SHA-256 of regular files. One python3
# process (a shell loop started several processes per entry: 13 s for the ROCm-7 prefix).
tree_listing() {
  python3 - "$1" <<'PY'
import hashlib, os, stat, subprocess, sys
os.chdir(sys.argv[1])
names = subprocess.run(["sh", "-c", "find . -path ./.shimctl -prune -o -print0 | sort -z"],
                       capture_output=True, check=True).stdout.split(b"\0")[:-1]
out = sys.stdout.buffer
for n in names:
    st = os.lstat(n)
    own = b"%d:%d" % (st.st_uid, st.st_gid)
    if stat.S_ISLNK(st.st_mode):
        out.write(b"L %s -> %s %s\n" % (n, os.readlink(n), own))
    elif stat.S_ISDIR(st.st_mode):
        out.write(b"D %s %o %s\n" % (n, stat.S_IMODE(st.st_mode), own))
    else:
        h = hashlib.sha256()
        with open(n, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        out.write(b"F %s %o %s %d %s\n" % (n, stat.S_IMODE(st.st_mode), own, st.st_size,
                                           h.hexdigest().encode()))
PY
}

# The fault-injecting tests need a test build of shimctl (core/test_hooks.*): fail, naming the fix.
need_test_hooks() {
  [ -x "$SHIMCTL_HOOKS" ] && "$SHIMCTL_HOOKS" --version | grep -q '^test hooks: on' ||
    fail "$SHIMCTL_HOOKS is missing or has no test hooks: configure with -DSHIMCTL_TEST_HOOKS=ON (scripts/setup does)"
}

expect_same_tree() { # listing-file dir
  local now; now=$(mktemp "$SUITE_TMP/listing.XXXXXX")
  tree_listing "$2" > "$now"
  diff -u "$1" "$now" > "$now.diff" || { fail "tree $2 changed:"$'\n'"$(head -40 "$now.diff")"; return 1; }
}

# ccache statistics of one cache dir, by counter name (from --print-stats).
ccache_stat() { # dir counter
  CCACHE_DIR=$1 ccache --print-stats | awk -v k="$2" '$1 == k { print $2 }'
}

expect_hits() { # dir expected-direct+preprocessed-hits
  local d p
  d=$(ccache_stat "$1" direct_cache_hit); p=$(ccache_stat "$1" preprocessed_cache_hit)
  expect_eq "$2" "$((d + p))" "cache hits in $1"
}

expect_misses() { # dir expected
  expect_eq "$2" "$(ccache_stat "$1" cache_miss)" "cache misses in $1"
}

# expect_defaults_yield CONF COMPILER: for every ccache boolean the shim config CONF sets by
# default (setenv CCACHE_<X>=1), a compile through COMPILER with the user's CCACHE_NO<X>=1 has
# real ccache run with that setting off (its log's "Config: (environment) <key> = false"), and
# without it, on. A boolean default the table below does not know fails the test.
expect_defaults_yield() {
  local conf=$1 compiler=$2 name key n=0
  printf 'int defaults_yield(void) { return 7; }\n' > "$TEST_DIR/yield.c"
  for name in $(sed -n 's/^setenv CCACHE_\([A-Z_]*\)=1$/\1/p' "$conf"); do
    case $name in
      DEPEND) key=depend_mode ;; INODECACHE) key=inode_cache ;; REMOTE_ONLY) key=remote_only ;;
      HASHDIR) key=hash_dir ;;
      *) fail "boolean default CCACHE_$name=1 in $conf: add its ccache key to expect_defaults_yield"; return 1 ;;
    esac
    rm -f "$TEST_DIR/yield.log"
    (cd "$TEST_DIR" && CCACHE_LOGFILE=$TEST_DIR/yield.log "$compiler" -c yield.c -o yield.o) \
      || fail "compile through $compiler failed"
    expect_contains "$(cat "$TEST_DIR/yield.log")" "Config: (environment) $key = true" "the default CCACHE_$name=1"
    rm -f "$TEST_DIR/yield.log"
    (cd "$TEST_DIR" && env "CCACHE_NO$name=1" CCACHE_LOGFILE="$TEST_DIR/yield.log" "$compiler" -c yield.c -o yield.o) \
      || fail "compile through $compiler with CCACHE_NO$name=1 failed"
    expect_contains "$(cat "$TEST_DIR/yield.log")" "Config: (environment) $key = false" "CCACHE_NO$name=1 through the shim"
    n=$((n + 1))
  done
  [ "$n" -ge 2 ] || fail "only $n boolean default(s) in $conf (expected depend mode and the inode cache at least)"
}

# Shared fixture prefixes are built once per suite under $SUITE_TMP.
# rocm_prefix sid: the ROCm-7-shaped prefix (make-rocm-prefix --stack sid; inside the sid root).
rocm_prefix() { # llvm-version [layout] | sid -> prints path
  local v=$1 layout=${2:-rocm} p
  if [ "$v" = sid ]; then
    p=$SUITE_TMP/fixture-rocm7-$SID_LLVM
    # Built aside and renamed: a failed build leaves no half prefix for the next test to reuse.
    [ -d "$p" ] || { rm -rf "$p.new" && "$SCRIPTS/make-rocm-prefix" "$p.new" --stack sid --llvm "$SID_LLVM" \
      >/dev/null && mv "$p.new" "$p"; } || return 1
    echo "$p"
    return 0
  fi
  p=$SUITE_TMP/fixture-rocm$v-$layout
  [ -d "$p" ] || { rm -rf "$p.new" && "$SCRIPTS/make-rocm-prefix" "$p.new" --llvm "$v" --layout "$layout" \
    >/dev/null && mv "$p.new" "$p"; } || return 1
  echo "$p"
}

# copy_rocm_prefix DEST [LLVM [LAYOUT]]: DEST = a copy (cp -a: same bytes, modes and mtimes, new
# inodes) of the suite's fixture prefix (rocm_prefix LLVM LAYOUT, default 15 rocm), which is
# built once per suite: a test that changes its prefix changes its own copy.
copy_rocm_prefix() {
  local shared
  shared=$(rocm_prefix "${2:-15}" "${3:-rocm}") ||
    { fail "cannot build the clang-${2:-15} fixture prefix (scripts/make-rocm-prefix)"; return 1; }
  cp -a "$shared" "$1" || fail "cannot copy $shared to $1"
}

# copy_stack_prefix DEST: DEST = a copy of the stack's fixture prefix (STACK=sid: rocm_prefix sid,
# with SID_LLVM's clang; else copy_rocm_prefix's clang-15 one).
copy_stack_prefix() {
  if [ "${STACK:-}" = sid ]; then
    local fixture
    fixture=$(rocm_prefix sid) || { fail "cannot build the sid fixture prefix"; return 1; }
    cp -a "$fixture" "$1" || { fail "cannot copy $fixture"; return 1; }
  else
    copy_rocm_prefix "$1" || return 1
  fi
}

# finish_suite: the counts; the scratch directory is removed when every test passed, else kept
# and named (with the tests that failed).
finish_suite() {
  echo "$TESTS_PASSED passed, $TESTS_FAILED failed"
  if [ "$TESTS_FAILED" -eq 0 ] && [ -z "${SUITE_KEEP:-}" ]; then rm -rf "$SUITE_TMP"; return 0; fi
  echo "suite ${suite:-?}: failed:${FAILED_TESTS:- (see above)}; test files kept in $SUITE_TMP" >&2
  [ "$TESTS_FAILED" -eq 0 ]
}

# private_rocm_copy: P = a private copy of the shared clang-15 rocm fixture in $TEST_DIR (with
# STACK=sid, set by a sid suite: the ROCm-7 fixture, rocm_prefix sid), CCACHE_DIR =
# $TEST_DIR/ccache, small C and C++ sources, and the listing of P in ./before.
private_rocm_copy() {
  local shared
  if [ "${STACK:-debian12}" = sid ]; then shared=$(rocm_prefix sid)
  else shared=$(rocm_prefix 15); fi || fail "cannot build the rocm fixture"
  P=$TEST_DIR/prefix
  cp -a "$shared" "$P"
  export CCACHE_DIR=$TEST_DIR/ccache
  echo 'int answer(void) { return 42; }' > x.c
  echo 'int twice(int x) { return 2 * x; }' > x.cpp
  tree_listing "$P" > before
}

# validate_manifest FILE: FILE validates against manifests/manifest.schema.json (python3-jsonschema).
validate_manifest() {
  /usr/bin/python3 - "$SRC_DIR/manifests/manifest.schema.json" "$1" <<'EOF' || fail "manifest $1 does not validate"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
error = jsonschema.exceptions.best_match(
    jsonschema.Draft202012Validator(schema).iter_errors(json.load(open(sys.argv[2]))))
if error:
    sys.exit("at %s: %s" % ("/".join(map(str, error.absolute_path)), error.message[:300]))
EOF
}

# free_port: a TCP port on 127.0.0.1 that was free a moment ago (for a server a test starts).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Users and groups for a test that runs something as another user (root only). make_test_group
# NAME and make_test_user NAME [GROUP] (no home: the test makes and chowns what it gives the user;
# shell /bin/sh; in GROUP if given) record what they made; remove_test_users, which the test's
# EXIT trap runs (its suite's cleanup), ends the users' processes and removes users and groups.
TEST_USERS=""
TEST_GROUPS=""
make_test_group() {
  groupadd "$1" || fail "groupadd $1"
  TEST_GROUPS="$TEST_GROUPS $1"
}
make_test_user() {
  useradd -M -N -s /bin/sh ${2:+-G "$2"} "$1" || fail "useradd $1"
  TEST_USERS="$TEST_USERS $1"
}
remove_test_users() {
  local u g
  for u in $TEST_USERS; do pkill -KILL -u "$u" 2>/dev/null; userdel "$u" 2>/dev/null; done
  for g in $TEST_GROUPS; do groupdel "$g" 2>/dev/null; done
  TEST_USERS="" TEST_GROUPS=""
}

# start_redis: a redis-server on a free port of 127.0.0.1 (REDIS_PORT, REDIS_URL), stopped when the
# test's subshell exits.
start_redis() {
  REDIS_PORT=$(free_port)
  REDIS_URL=redis://127.0.0.1:$REDIS_PORT
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
    --pidfile "$TEST_DIR/redis.pid" --dir "$TEST_DIR" --logfile "$TEST_DIR/redis.log" >/dev/null ||
    fail "redis-server did not start"
  trap stop_redis EXIT
  wait_until 10 "redis-server on port $REDIS_PORT" eval '[ "$(redis-cli -p "$REDIS_PORT" ping 2>/dev/null)" = PONG ]'
}

stop_redis() { stop_pidfile "$TEST_DIR/redis.pid"; }

# stop_pidfile FILE: stops the daemon whose pid FILE holds (up to 5 s) and removes FILE.
stop_pidfile() {
  [ -f "$1" ] || return 0
  local pid i; pid=$(cat "$1")
  kill "$pid" 2>/dev/null
  for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$1"
}

# private_mounts: run the rest of this suite in a private mount namespace (unshare), so that what
# it mounts is invisible to the host and gone when the suite ends, however it ends. Call it at the
# top level of a suite file; the suite starts again inside the namespace.
private_mounts() {
  [ "${SHIMCTL_TEST_PRIVATE_NS:-}" = 1 ] && return 0
  command -v unshare >/dev/null || skip_suite "unshare not found (util-linux)"
  rm -rf "$SUITE_TMP"
  SHIMCTL_TEST_PRIVATE_NS=1 exec unshare --mount --propagation private \
    "$BASH" "$SRC_DIR/tests/integration/run" "$suite"
}

# private_opt_rocm7: inside private_mounts, an empty /opt (tmpfs) and a private copy of
# /etc/alternatives, then the ROCm-7-shaped prefix /opt/rocm-7.0.2 with the chain
# /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-7.0.2 (scripts/make-rocm-prefix --stack sid,
# from clang-$SID_LLVM).
# Built once per suite; sets ROCM7=/opt/rocm-7.0.2.
private_opt_rocm7() {
  ROCM7=/opt/rocm-7.0.2
  [ -d "$ROCM7" ] && return 0
  [ "${SHIMCTL_TEST_PRIVATE_NS:-}" = 1 ] || { fail "private_opt_rocm7 outside private_mounts"; return 1; }
  mount -t tmpfs -o mode=755 shimctl-test-opt /opt || { fail "cannot mount a tmpfs on /opt"; return 1; }
  mkdir -p "$SUITE_TMP/alternatives"
  cp -a /etc/alternatives/. "$SUITE_TMP/alternatives/"
  mount --bind "$SUITE_TMP/alternatives" /etc/alternatives || { fail "cannot bind /etc/alternatives"; return 1; }
  "$SCRIPTS/make-rocm-prefix" "$ROCM7" --stack sid --llvm "$SID_LLVM" --alternatives >/dev/null \
    || { fail "scripts/make-rocm-prefix --stack sid --llvm $SID_LLVM failed"; return 1; }
}

# nginx_webdav_conf: a WebDAV store for ccache's HTTP backend on a free port of 127.0.0.1: sets
# STORE (the files behind it), HTTP_URL (http://127.0.0.1:PORT/ccache) and writes
# $TEST_DIR/nginx.conf; start it with: nginx -c "$TEST_DIR/nginx.conf" -p "$TEST_DIR".
nginx_webdav_conf() {
  local port; port=$(free_port)
  STORE=$TEST_DIR/store
  HTTP_URL=http://127.0.0.1:$port/ccache
  mkdir -p "$STORE/ccache" "$TEST_DIR/nginx-tmp"
  cat >"$TEST_DIR/nginx.conf" <<CONF
user root;
worker_processes 1;
pid $TEST_DIR/nginx.pid;
error_log $TEST_DIR/nginx-error.log;
events { worker_connections 64; }
http {
  access_log $TEST_DIR/nginx-access.log;
  client_body_temp_path $TEST_DIR/nginx-tmp;
  client_max_body_size 256m;
  server {
    listen 127.0.0.1:$port;
    root $STORE;
    dav_methods PUT DELETE;
    create_full_put_path on;
  }
}
CONF
}

# sc_server_of PREFIX: SC_SERVER = where this user's own sccache server for PREFIX is
# ("SCCACHE_SERVER_PORT=N" on sccache 0.4, "SCCACHE_SERVER_UDS=PATH" on >= 0.9), as status --json
# reports it; remembered in SC_SERVERS for sc_stop_servers.
sc_server_of() {
  SC_SERVER=$("$SHIMCTL" status --json "$1" | python3 -c \
    'import json, sys; print(json.load(sys.stdin)["cache"].get("server", {}).get("environment", ""))')
  [ -n "$SC_SERVER" ] || { fail "status --json names no sccache server for $1"; return 1; }
  SC_SERVERS="${SC_SERVERS:-} $SC_SERVER"
}
# sc_wait_stopped SERVER: after `sccache --stop-server`, until the server at SERVER (sc_server_of's
# form) no longer listens, at most 20 s: a stopping server that still holds its port makes the
# next start retry its bind and, under load, time out (sccache 0.4's 10 s).
sc_wait_stopped() {
  local i
  for i in $(seq 200); do
    case $1 in
      SCCACHE_SERVER_PORT=*) ss -Hltn "( sport = :${1#*=} )" 2>/dev/null | grep -q . || return 0 ;;
      SCCACHE_SERVER_UDS=*) [ -S "${1#*=}" ] || return 0 ;;
      *) return 0 ;;
    esac
    sleep 0.1
  done
}
sc_stop_servers() {
  local s
  for s in ${SC_SERVERS:-}; do env "$s" sccache --stop-server >/dev/null 2>&1; done
  SC_SERVERS=""
}

# sc_stat 'PYTHON EXPRESSION over s': of the JSON statistics of the sccache server at $SC_SERVER
# (sccache >= 0.8: --stats-format json); sc_counts: its HIP/C/... hit and miss counts.
sc_stat() {
  env "$SC_SERVER" sccache --show-stats --stats-format json \
    | python3 -c 'import json, sys; s = json.load(sys.stdin); print(eval(sys.argv[1]))' "$1" \
    || fail "sccache --show-stats at $SC_SERVER failed"
}
sc_counts() {
  sc_stat '"hits=%s misses=%s" % (json.dumps(s["stats"]["cache_hits"]["counts"], sort_keys=True), json.dumps(s["stats"]["cache_misses"]["counts"], sort_keys=True))'
}

# Team stores (redis with auth/TLS/shards/cluster, WebDAV, S3): tests/integration/lib-stores.bash.
source "$SRC_DIR/tests/integration/lib-stores.bash"
# Passwords and captured outputs of the credential tests: tests/integration/lib-secrets.bash.
source "$SRC_DIR/tests/integration/lib-secrets.bash"
