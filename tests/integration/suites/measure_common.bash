# Shared by the suites that check `shimctl measure` against the cache tools' own statistics
# (buildtree on Debian 12, sid_measure on the sid stack). Not a suite itself (tests/CMakeLists.txt
# leaves out *_common.bash).

# measured NAME BUILD: `shimctl measure --json` of `cmake --build BUILD`, into NAME.json. The
# build command also keeps the shim's log (NAME.shim-log), the sccache servers it names
# (NAME.servers) and what sccache says of each, read before measure stops it (NAME.own.json,
# one JSON per line).
measured() {
  local name=$1 build=$2
  cat > "$TEST_DIR/$name.sh" <<'EOF'
set -e
cmake --build "$1"
cp "$SHIMCTL_MEASURE_LOG" "$2.shim-log"
sed -n '/^# shimctl-shim: sccache$/{n;p}' "$SHIMCTL_MEASURE_LOG" | cut -d' ' -f3- | sort -u \
  > "$2.servers"
: > "$2.own.json"
while read -r entry; do
  env -u SCCACHE_SERVER_UDS -u SCCACHE_SERVER_PORT "$entry" sccache --show-stats --stats-format json \
    >> "$2.own.json"
  echo >> "$2.own.json"
done < "$2.servers"
EOF
  "$SHIMCTL" measure --json -- bash "$TEST_DIR/$name.sh" "$build" "$TEST_DIR/$name" \
    >"$TEST_DIR/$name.json" 2>"$TEST_DIR/$name.err" \
    || fail "measured build $name failed:"$'\n'"$(tail -30 "$TEST_DIR/$name.err")"
}

# field NAME 'PYTHON EXPRESSION over d': of measure's NAME.json.
field() {
  python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' \
    "$TEST_DIR/$1.json" "$2" || fail "cannot read $TEST_DIR/$1.json"
}

# own NAME: "calls hits misses" sccache's own statistics say of the servers NAME's build used.
own() {
  python3 - "$TEST_DIR/$1.own.json" <<'PY' || fail "cannot read $TEST_DIR/$1.own.json"
import json, sys
calls = hits = misses = 0
for line in open(sys.argv[1]):
    if line.strip():
        s = json.loads(line)["stats"]
        calls += s["compile_requests"]
        hits += sum(s["cache_hits"]["counts"].values())
        misses += sum(s["cache_misses"]["counts"].values())
print(calls, hits, misses)
PY
}

# answers ENTRY: a server listens where ENTRY (SCCACHE_SERVER_UDS=PATH or SCCACHE_SERVER_PORT=N)
# says. Only then may a test run `sccache --show-stats` there: it would start a server of its own.
answers() {
  python3 - "$1" <<'PY' 2>/dev/null
import socket, sys
name, value = sys.argv[1].split("=", 1)
if name == "SCCACHE_SERVER_UDS":
    socket.socket(socket.AF_UNIX).connect(value)
else:
    socket.create_connection(("127.0.0.1", int(value)), timeout=5).close()
PY
}

# server_counts ENTRY: "calls hits misses" of the server ENTRY names, which must be running.
server_counts() {
  answers "$1" || { fail "no sccache server answers at $1"; return 1; }
  env -u SCCACHE_SERVER_UDS -u SCCACHE_SERVER_PORT "$1" sccache --show-stats --stats-format json \
    | python3 -c '
import json, sys
s = json.load(sys.stdin)["stats"]
print(s["compile_requests"], sum(s["cache_hits"]["counts"].values()), sum(s["cache_misses"]["counts"].values()))' \
    || fail "sccache --show-stats at $1 failed"
}

stop_server() { env -u SCCACHE_SERVER_UDS -u SCCACHE_SERVER_PORT "$1" sccache --stop-server >/dev/null 2>&1; }

# expect_stopped NAME: the servers NAME's build used are gone, with their sockets and locks.
expect_stopped() {
  local entry sock
  while read -r entry; do
    wait_until 30 "the server at $entry stopped" eval "! answers '$entry'"
    case $entry in
      SCCACHE_SERVER_UDS=*)
        sock=${entry#SCCACHE_SERVER_UDS=}
        [ ! -e "$sock" ] || fail "measure left its server's socket $sock"
        [ ! -e "${sock%.sock}.lock" ] || fail "measure left its server's lock ${sock%.sock}.lock"
        ;;
    esac
  done < "$TEST_DIR/$1.servers"
}

# expect_usual_unmoved COUNTS: the usual server ($SC_SERVER) still has COUNTS ("none": it still
# does not run): a measured build used servers of its own.
expect_usual_unmoved() {
  if [ "$1" != none ]; then
    expect_eq "$1" "$(server_counts "$SC_SERVER")" "the usual server's calls hits misses"
  elif answers "$SC_SERVER"; then
    fail "the usual server started during a measured build"
  fi
}
