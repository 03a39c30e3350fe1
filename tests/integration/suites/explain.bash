# explain_common.bash on Debian 12: hipcc 5.2 (perl) with clang-15 and ccache 4.7.5 (sccache 0.4
# caches no HIP: ccache only).
EX_TOOLS="ccache"
source "$(dirname "${BASH_SOURCE[0]}")/explain_common.bash"

suite_requires() {
  command -v ccache >/dev/null && command -v cmake >/dev/null && command -v ninja >/dev/null &&
    command -v python3 >/dev/null && command -v redis-server >/dev/null && [ -x "$SHIMCTL" ] &&
    [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]
}

test_explain_store_out() {
  TEST "ccache + Redis: the store taken out, the local cache empty: every miss says the store was out"
  EX_MISSES=0 EX_SPECIFIC=0
  ex_store_out
}

test_explain_ccache() {
  TEST "ccache: a flag, a header, a device library, the GPU targets, the checkout's path, an eviction: each miss named"
  ex_changes ccache
}

# expect_one_line_error EXPECTED-CODE PATTERN COMMAND...: COMMAND exits EXPECTED-CODE with one
# line on stderr matching PATTERN, nothing on stdout.
expect_one_line_error() {
  local code=$1 pattern=$2 rc=0
  shift 2
  "$@" >"$TEST_DIR/err.out" 2>"$TEST_DIR/err.err" || rc=$?
  expect_eq "$code" "$rc" "exit code of $*"
  expect_eq 1 "$(wc -l < "$TEST_DIR/err.err")" "lines on stderr of $* ($(cat "$TEST_DIR/err.err"))"
  expect_eq 0 "$(wc -c < "$TEST_DIR/err.out")" "bytes on stdout of $*"
  grep -qE "$pattern" "$TEST_DIR/err.err" || fail "$*: '$(cat "$TEST_DIR/err.err")' does not match '$pattern'"
}

test_explain_bad_input() {
  TEST "explain: a record cut short or garbage, a newer one, an archive without records, an object never compiled: one line, exit 2, nothing changed"
  ex_prefix ccache || return 1
  mkdir -p "$TEST_DIR/w" && cd "$TEST_DIR/w" || return 1
  printf '#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = 1.0f; }\n' > k.hip
  "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c k.hip -o k.o -MD -MF k.d || { fail "hipcc"; return 1; }
  local records=$XDG_CACHE_HOME/shimctl/records record
  record=$(ls "$records"/*/*.json | head -1)
  [ -f "$record" ] || { fail "no record written for k.o"; return 1; }
  expect_perm "$records" 700
  expect_perm "$record" 600
  expect_success "$SHIMCTL" explain k.o
  # Never compiled through a shim; no object named; both an object and --source.
  expect_one_line_error 2 '^shimctl: error: no record: other\.o was never compiled through a shim' \
    "$SHIMCTL" explain other.o
  expect_one_line_error 2 '^shimctl: error: explain: name one object, or one source with --source' "$SHIMCTL" explain
  expect_one_line_error 2 '^shimctl: error: explain: name one object' "$SHIMCTL" explain k.o --source k.hip
  # A record cut short, garbage, from a newer shimctl: named, and left as it is.
  local saved=$TEST_DIR/record.saved listing
  cp "$record" "$saved"
  head -c 100 "$saved" > "$record"
  listing=$(cd "$records" && find . -type f -exec sha256sum {} + | sort)
  expect_one_line_error 2 "^shimctl: error: .*$(basename "$record") is not a compile record \(cut short or garbage\)" \
    "$SHIMCTL" explain k.o
  expect_eq "$listing" "$(cd "$records" && find . -type f -exec sha256sum {} + | sort)" "the records after explain"
  printf '\x00\x01garbage' > "$record"
  expect_one_line_error 2 'is not a compile record' "$SHIMCTL" explain --source k.hip
  sed 's/"version":1/"version":7/' "$saved" > "$record"
  expect_one_line_error 2 'is a compile record of format 7, newer than this shimctl' "$SHIMCTL" explain k.o
  cp "$saved" "$record"
  # An archive that is not one, or carries no records: before any build runs.
  printf 'not an archive' > "$TEST_DIR/bad.tar.zst"
  expect_one_line_error 2 '^shimctl: error: cannot read .*bad\.tar\.zst' \
    "$SHIMCTL" explain --against "$TEST_DIR/bad.tar.zst" k.o
  expect_one_line_error 2 '^shimctl: error: cannot read .*missing\.tar\.zst' \
    "$SHIMCTL" measure --against "$TEST_DIR/missing.tar.zst" -- touch "$TEST_DIR/built"
  [ ! -e "$TEST_DIR/built" ] || fail "measure ran the build with a bad --against"
  [ ! -e "$TEST_DIR/missing.tar.zst" ] || fail "explain made the archive it was named"
  # SHIMCTL_RECORDS=0: no record.
  SHIMCTL_RECORDS=0 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -DOFF -c k.hip -o off.o || fail "hipcc"
  expect_one_line_error 2 '^shimctl: error: no record: off\.o' "$SHIMCTL" explain off.o
}
