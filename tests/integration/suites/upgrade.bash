# Package upgrades and foreign files (issue 4): a package manager renames a new compiler over
# an installed shim. verify and status report it, install re-adopts it (its .real, the manifest
# and the fingerprint follow), rollback keeps it and drops the stale .real. A <name>.real that
# shimctl did not create makes install refuse and change nothing. A compiler upgraded between
# install's plan and its transaction (SHIMCTL_TEST_AFTER_PLAN, a test build's hook) stops the
# install with nothing changed.

suite_requires() {
  command -v ccache >/dev/null && command -v python3 >/dev/null && [ -x /usr/lib/llvm-15/bin/clang ] &&
    [ -f /usr/bin/hipcc.pl ] && [ -x "$SHIM_BIN" ] && [ -x "$SHIMCTL" ]
}

# upgrade_fixture: P = a private copy of the clang-15 rocm prefix, installed (no verify).
upgrade_fixture() {
  private_rocm_copy
  local n
  for n in clang clang++ clang-15 amdclang; do
    "$P/llvm/bin/$n" -c x.c -o "ref-$n.o" 2>/dev/null || fail "reference compile with $n failed"
  done
  "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "install failed"
}

# upgrade REL: what dpkg does: the new file is written under a temporary name in the same
# directory and renamed over REL (here: the original plus bytes, so it differs and still runs).
upgrade() {
  local dir name
  dir=$(dirname "$P/$1"); name=$(basename "$1")
  cat "$P/$1.real" > "$dir/.$name.dpkg-new"
  printf '\n# upgraded %s\n' "$1" >> "$dir/.$name.dpkg-new"
  chmod 755 "$dir/.$name.dpkg-new"
  mv "$dir/.$name.dpkg-new" "$P/$1"
}

# expected_after_upgrade REL...: the listing of the untouched prefix with REL upgraded the same way.
expected_after_upgrade() {
  local shared rel
  shared=$(rocm_prefix 15)
  rm -rf "$TEST_DIR/pristine"; cp -a "$shared" "$TEST_DIR/pristine"
  for rel in "$@"; do
    printf '\n# upgraded %s\n' "$rel" >> "$TEST_DIR/pristine/$rel"
  done
  tree_listing "$TEST_DIR/pristine" > expected
}

manifest_field() { # python-expression-on-m
  python3 -c "import json,sys; m = json.load(open(sys.argv[1])); print($1)" "$P/.shimctl/manifest.json"
}

test_upgrade_is_reported_and_readopted() {
  TEST "an upgraded clang under the shim: verify and status report it, install re-adopts it"
  upgrade_fixture
  local old_fp new_sha out rc
  old_fp=$(manifest_field "m['fingerprint']['sha256']")
  upgrade llvm/bin/clang
  new_sha=$(sha256sum < "$P/llvm/bin/clang" | cut -c1-64)

  rc=0; out=$("$SHIMCTL" status "$P" 2>&1) || rc=$?
  expect_eq 0 "$rc" "status exit code"
  expect_contains "$out" "llvm/bin/clang" "status"
  expect_contains "$out" "shim replaced by another file (package upgrade?): run 'shimctl install'" "status"
  rc=0; out=$("$SHIMCTL" verify "$P" 2>&1) || rc=$?
  expect_eq 1 "$rc" "verify exit code"
  expect_contains "$out" "replaced by another file (a package upgrade?); run 'shimctl install' to adopt it" "verify"

  out=$("$SHIMCTL" install --no-verify "$P" 2>&1) || fail "install failed: $out"
  expect_contains "$out" "llvm/bin/clang was replaced by a newer compiler (a package upgrade?); adopting it as the original" "install"
  expect_contains "$out" "re-adopted upgraded compilers in $P" "install"
  expect_eq "$new_sha" "$(sha256sum < "$P/llvm/bin/clang.real" | cut -c1-64)" "clang.real is the new file"
  expect_same_file "$SHIM_BIN" "$P/llvm/bin/clang"
  expect_same_file "$SHIM_BIN" "$P/bin/hipcc"
  expect_eq "$new_sha" "$(manifest_field "[c for c in m['compilers'] if c['path'] == 'llvm/bin/clang'][0]['original']['sha256']")" "manifest sha of clang"
  [ "$(manifest_field "m['fingerprint']['sha256']")" != "$old_fp" ] || fail "the fingerprint did not change"
  out=$("$SHIMCTL" status "$P" 2>&1) || fail "status failed: $out"
  case $out in *"shim replaced"*) fail "status still reports the upgrade: $out" ;; esac
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify after re-adoption failed: $out"
  local n
  for n in clang clang++ clang-15 amdclang; do
    "$P/llvm/bin/$n" -c x.c -o "$n.o" 2>/dev/null || fail "$n failed after re-adoption"
    expect_same_file "ref-$n.o" "$n.o"
  done
  "$P/bin/hipcc" -c x.cpp -o hipcc.o || fail "hipcc failed after re-adoption"
  out=$("$SHIMCTL" install --no-verify "$P" 2>&1) || fail "a second install failed: $out"
  expect_contains "$out" "is already installed; nothing changed" "second install"

  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "rolled back: 2 original(s) restored byte-identical" "rollback"
  expected_after_upgrade llvm/bin/clang
  expect_same_tree expected "$P"
}

test_rollback_keeps_the_newer_compiler() {
  TEST "rollback after upgrades keeps the newer compilers and removes the stale .real files"
  upgrade_fixture
  upgrade bin/hipcc
  upgrade llvm/bin/clang
  local out
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "kept: bin/hipcc: a newer compiler replaced the shim; kept it and removed the stale bin/hipcc.real" "rollback"
  expect_contains "$out" "kept: llvm/bin/clang: a newer compiler replaced the shim; kept it and removed the stale llvm/bin/clang.real" "rollback"
  expect_contains "$out" "rolled back: 0 original(s) restored" "rollback"
  [ ! -e "$P/bin/hipcc.real" ] && [ ! -e "$P/llvm/bin/clang.real" ] || fail "a stale .real is left"
  expected_after_upgrade bin/hipcc llvm/bin/clang
  expect_same_tree expected "$P"
  [ ! -e "$P/.shimctl" ] || fail "rollback left $(ls -A "$P/.shimctl")"
  "$P/llvm/bin/clang++" -c x.cpp -o y.o || fail "clang++ failed after rollback"
  "$P/bin/hipcc" -c x.cpp -o h.o || fail "hipcc failed after rollback"
}

test_foreign_real_is_refused() {
  TEST "a <name>.real that shimctl did not create: install refuses, exit 2, nothing changes"
  local shared out rc
  shared=$(rocm_prefix 15) || fail "cannot build the rocm fixture"
  P=$TEST_DIR/prefix
  cp -a "$shared" "$P"
  export CCACHE_DIR=$TEST_DIR/ccache
  echo 'someone else put this here' > "$P/llvm/bin/clang.real"
  tree_listing "$P" > before
  rc=0; out=$("$SHIMCTL" install --no-verify "$P" 2>&1) || rc=$?
  expect_eq 2 "$rc" "install exit code"
  expect_contains "$out" "shimctl: error: $P/llvm/bin/clang.real already exists and shimctl did not create it (no manifest)" "install"
  expect_eq 1 "$(printf '%s\n' "$out" | wc -l)" "lines of output"
  expect_same_tree before "$P"
  [ ! -e "$P/.shimctl" ] || fail "install left $P/.shimctl"
  # The same with hipcc.real as a symlink.
  rm "$P/llvm/bin/clang.real"; ln -s hipcc.pl "$P/bin/hipcc.real"
  tree_listing "$P" > before
  rc=0; out=$("$SHIMCTL" install --no-verify "$P" 2>&1) || rc=$?
  expect_eq 2 "$rc" "install exit code (symlink)"
  expect_contains "$out" "$P/bin/hipcc.real already exists and shimctl did not create it" "install"
  expect_same_tree before "$P"
  [ ! -e "$P/.shimctl" ] || fail "install left $P/.shimctl"
}

test_upgrade_between_plan_and_transaction() {
  TEST "a compiler upgraded between install's plan and its transaction: refused, nothing changed"
  need_test_hooks
  private_rocm_copy
  expected_after_upgrade llvm/bin/clang
  local f=$P/llvm/bin/clang out rc
  rc=0
  out=$(SHIMCTL_TEST_AFTER_PLAN="cp -p '$f' '$f.dpkg-new' && printf '\n# upgraded llvm/bin/clang\n' >> '$f.dpkg-new' && mv '$f.dpkg-new' '$f'" \
    "$SHIMCTL_HOOKS" install --no-verify "$P" 2>&1) || rc=$?
  expect_eq 1 "$rc" "install exit code"
  expect_contains "$out" "shimctl: error: $P/llvm/bin/clang changed since the install was planned" "install"
  expect_contains "$out" "Nothing was changed; run the install again" "install"
  expect_eq 1 "$(grep -c '^shimctl: error:' <<<"$out")" "error lines"
  expect_same_tree expected "$P"
  [ ! -e "$P/.shimctl" ] || fail "install left $P/.shimctl behind"
  # Planned again, the upgraded file is the original: installed, and rolled back byte-identical.
  "$SHIMCTL" install --no-verify "$P" >/dev/null || fail "the second install failed"
  cmp -s "$P/llvm/bin/clang.real" "$TEST_DIR/pristine/llvm/bin/clang" || fail "clang.real is not the upgraded file"
  "$SHIMCTL" rollback "$P" >/dev/null || fail "rollback failed"
  expect_same_tree expected "$P"
}
