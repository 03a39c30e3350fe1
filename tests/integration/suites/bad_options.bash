# Bad options are refused before any work (issue 23, item 10): `install` with a size ccache cannot
# read, a remote URL its cache tool cannot store to (or one without a host), a GPU target the
# prefix's clang does not know, a cache directory that is a file, or a --base-dir that is not an
# absolute existing directory without ':' (or more than 4 of them), exits 2 with one line on
# stderr naming the option; the prefix is unchanged (its listing: type, mode, owner, SHA-256),
# no .shimctl is made, and nothing is compiled: no file in the prefix is read (atime; the GPU
# target's check reads only the clang it asks), no cache directory appears. An installed prefix
# (install's update path: reconfigure) refuses them the same way.

suite_requires() {
  command -v ccache >/dev/null && command -v python3 >/dev/null && [ -x /usr/lib/llvm-15/bin/clang ] &&
    [ -f /usr/bin/hipcc.pl ] && [ -x "$SHIM_BIN" ] && [ -x "$SHIMCTL" ]
}

# An old access time, set on every regular file of the prefix before a command: a file the
# command reads (an exec, a hash, a compile's input) gets a new one (relatime: an atime older
# than the file's ctime is always updated).
OLD_ATIME=2001-01-01
# What the GPU target check reads: the clang it runs, and the ROCm version file clang's driver
# reads to find the ROCm installation it belongs to.
CLANG_READS="./bin/.hipVersion ./llvm/bin/clang"

age_atimes() { find "$1" -type f -exec touch -a -d "$OLD_ATIME" {} +; }

# read_files DIR: the regular files under DIR read since age_atimes (relative, sorted).
read_files() { (cd "$1" && find . -path ./.shimctl -prune -o -type f -newerat "$OLD_ATIME" -print | sort); }

# expect_refused OPTION [ALLOWED-READS] -- INSTALL-ARGS...: `shimctl install $P INSTALL-ARGS` exits
# 2 with exactly one line on stderr, "shimctl: error: OPTION...", and nothing on stdout; $P's
# listing is ./before's, and it has no .shimctl unless it had one; no cache dir appeared; the
# files read in $P are exactly ALLOWED-READS (space-separated ./paths; default none).
expect_refused() {
  local option=$1 allowed="" rc=0 had_state=0
  shift
  [ "$1" = -- ] || { allowed=$1; shift; }
  shift
  [ -d "$P/.shimctl" ] && had_state=1
  [ -f "$P/.shimctl/manifest.json" ] && cp "$P/.shimctl/manifest.json" manifest.before
  age_atimes "$P"
  local start; start=$(date +%s%N)
  "$SHIMCTL" install "$P" "$@" >out 2>err || rc=$?
  echo "    (install $*: exit $rc after $(elapsed_since "$start") s)"
  read_files "$P" > read # first: the listing below reads every file
  expect_eq 2 "$rc" "exit code of install $*"
  expect_eq 1 "$(wc -l < err)" "lines on stderr of install $* ($(cat err))"
  expect_contains "$(cat err)" "shimctl: error: $option" "the refusal of install $*"
  expect_eq "" "$(cat out)" "stdout of install $*"
  expect_same_tree before "$P"
  if [ "$had_state" = 0 ]; then
    [ ! -e "$P/.shimctl" ] || fail "install $* left $P/.shimctl"
  else
    cmp -s manifest.before "$P/.shimctl/manifest.json" || fail "install $* changed the manifest"
  fi
  [ ! -e "$CCACHE_DIR" ] || fail "install $* made the cache dir $CCACHE_DIR: something was compiled"
  expect_eq "$allowed" "$(tr '\n' ' ' < read | sed 's/ $//')" "files in the prefix read by install $*"
}

# The control: on this file system a read shows in the atime (else the checks above see nothing).
expect_reads_show() {
  age_atimes "$P"
  "$P/llvm/bin/clang" --version >/dev/null || fail "clang --version failed"
  read_files "$P" | grep -qx ./llvm/bin/clang ||
    fail "clang --version did not show as a read of llvm/bin/clang (its atime): a noatime mount? The checks above see nothing there"
}

test_bad_size_is_refused() {
  TEST "install --max-size foo: exit 2, one line naming --max-size, nothing changed or compiled"
  private_rocm_copy
  expect_refused --max-size -- --max-size foo
  expect_eq "shimctl: error: --max-size: 'foo' is not a size (e.g. 5G, 500M, 1.5G, 5GiB; 0 for no limit)" \
    "$(cat err)" "the refusal"
  expect_refused --max-size -- --max-size 5g
  expect_refused --max-size -- --max-size ""
  expect_reads_show
}

test_bad_remote_is_refused() {
  TEST "install --remote garbage://x and --remote redis:// (no host): exit 2, one line, nothing changed"
  private_rocm_copy
  expect_refused --remote -- --remote garbage://x
  expect_eq "shimctl: error: --remote: 'garbage://x' has scheme 'garbage', which ccache $(ccache --version | sed -n '1s/.* //p') does not store to; use redis://HOST[:PORT], http://HOST[:PORT]/PATH, file:/DIR or redis+unix:/SOCKET" \
    "$(cat err)" "the refusal"
  expect_refused --remote -- --remote redis://
  expect_eq "shimctl: error: --remote: 'redis://' names no host (e.g. redis://HOST:6379)" "$(cat err)" "the refusal"
  expect_refused --remote -- --remote 'redis://Secret@cache.example:port'
  case $(cat err) in *Secret*) fail "the refusal shows the password: $(cat err)" ;; esac
  expect_refused --remote -- --remote http://
  expect_refused --remote -- --remote file:relative/dir
  expect_refused --remote -- --remote 'redis://cache.example|shards=a,b'
  expect_reads_show
}

test_bad_offload_arch_is_refused() {
  TEST "install --offload-arch gfx9999: the prefix's clang asked once (-###), exit 2, one line"
  private_rocm_copy
  expect_refused --offload-arch "$CLANG_READS" -- --offload-arch gfx9999
  expect_contains "$(cat err)" "shimctl: error: --offload-arch: 'gfx9999' is not a GPU target $P/llvm/bin/clang knows" "the refusal"
  expect_contains "$(cat err)" "invalid target ID 'gfx9999'" "clang's reason in the refusal"
  expect_refused --offload-arch "$CLANG_READS" -- --offload-arch gfx90a:nosuchfeature+
}

test_cache_dir_that_is_a_file_is_refused() {
  TEST "install --cache-dir /etc/passwd (a file): exit 2, one line, /etc/passwd untouched"
  private_rocm_copy
  local sum; sum=$(sha256sum < /etc/passwd)
  expect_refused --cache-dir -- --cache-dir /etc/passwd
  expect_eq "shimctl: error: --cache-dir: /etc/passwd is a file, not a directory; name a directory (shimctl creates it when missing)" \
    "$(cat err)" "the refusal"
  expect_refused --cache-dir -- --cache-dir /etc/passwd/ccache
  expect_eq "$sum" "$(sha256sum < /etc/passwd)" "/etc/passwd"
}

test_bad_base_dir_is_refused() {
  TEST "install --base-dir: relative, missing, a ':', five: exit 2, one line, nothing changed"
  private_rocm_copy
  mkdir -p deps "$TEST_DIR/a:b" "$TEST_DIR/d1" "$TEST_DIR/d2" "$TEST_DIR/d3" "$TEST_DIR/d4" "$TEST_DIR/d5"
  expect_refused --base-dir -- --base-dir deps
  expect_eq "shimctl: error: --base-dir: deps is a relative path; name the directory by its absolute path (e.g. --base-dir $(pwd -P)/deps)" \
    "$(cat err)" "the refusal"
  expect_refused --base-dir -- --base-dir "$TEST_DIR/missing"
  expect_eq "shimctl: error: --base-dir: $TEST_DIR/missing does not exist; name an existing directory (the top of a dependency tree)" \
    "$(cat err)" "the refusal"
  expect_refused --base-dir -- --base-dir "$TEST_DIR/a:b"
  expect_eq "shimctl: error: --base-dir: $TEST_DIR/a:b holds a ':', which separates the base dirs in SHIMCTL_BASE_DIRS; name a directory whose path has none" \
    "$(cat err)" "the refusal"
  expect_refused --base-dir -- --base-dir "$TEST_DIR/d1" --base-dir "$TEST_DIR/d2" --base-dir "$TEST_DIR/d3" \
    --base-dir "$TEST_DIR/d4" --base-dir "$TEST_DIR/d5"
  expect_eq "shimctl: error: --base-dir is given 5 times; the shim takes at most 4 base dirs: give the 4 that hold your dependency trees" \
    "$(cat err)" "the refusal"
  # A good one beside a bad one: still refused, nothing done.
  expect_refused --base-dir -- --base-dir "$TEST_DIR/d1" --base-dir "$TEST_DIR/x.c"
  expect_eq "shimctl: error: --base-dir: $TEST_DIR/x.c is a file, not a directory; name a directory" "$(cat err)" "the refusal"
}

test_installed_prefix_refuses_the_same() {
  TEST "an installed prefix: install's update path refuses each bad option the same way"
  private_rocm_copy
  "$SHIMCTL" install --no-verify --compilers clang "$P" >/dev/null 2>install.err || fail "install: $(cat install.err)"
  rm -rf "$CCACHE_DIR" # the install's identity probes ran no cached compile; make sure
  tree_listing "$P" > before
  expect_refused --max-size -- --max-size foo
  expect_refused --remote -- --remote garbage://x
  expect_refused --remote -- --remote redis://
  expect_refused --cache-dir -- --cache-dir /etc/passwd
  expect_refused --base-dir -- --base-dir deps
  expect_refused --base-dir -- --base-dir "$TEST_DIR/missing"
  # The check runs clang through its shim, which reads its config and execs the original (-###).
  expect_refused --offload-arch "./bin/.hipVersion ./llvm/bin/.shimctl.conf ./llvm/bin/clang ./llvm/bin/clang.real" \
    -- --offload-arch gfx9999
  expect_success "$SHIMCTL" rollback "$P"
}
