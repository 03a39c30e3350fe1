# `install --divert` (issue 4): a Debian-packaged toolchain gets dpkg diversions of its wrapped
# compilers to NAME.real, so a package upgrade lands under the shim; rollback removes them.
# Serial: it installs a throwaway package (shimctl-test-toolchain-<random>, a ROCm-shaped
# prefix under /opt/shimctl-test-<random>) into the global dpkg database. The package, its
# diversions and its directory are removed at the end, also on failure (trap).

suite_requires() {
  [ "$(id -u)" = 0 ] && command -v ccache >/dev/null && command -v dpkg-divert >/dev/null &&
    command -v dpkg-deb >/dev/null && [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ] &&
    [ -x "$SHIM_BIN" ] && [ -x "$SHIMCTL" ]
}

DV_ID=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
DV_PKG=shimctl-test-toolchain-$DV_ID
DV_ROOT=/opt/shimctl-test-$DV_ID

# Our diversions of files under DV_ROOT, one "FILE" per line.
dv_diversions() {
  dpkg-divert --list 2>/dev/null | awk -v root="$DV_ROOT/" \
    '$3 ~ "^" root && $NF == "shimctl" { print $3 }'
}

dv_cleanup() {
  local f
  for f in $(dv_diversions); do
    dpkg-divert --package shimctl --no-rename --remove "$f" >/dev/null 2>&1
  done
  if dpkg-query -W "$DV_PKG" >/dev/null 2>&1; then
    dpkg --purge "$DV_PKG" >/dev/null 2>&1 || echo "serial_divert: dpkg --purge $DV_PKG failed" >&2
  fi
  rm -rf "$DV_ROOT"
}
trap dv_cleanup EXIT
trap 'exit 130' INT TERM

# dv_deb VERSION: builds (once) the package of the given version from the clang-15 fixture;
# 1.1 has a different llvm/bin/clang (bytes appended: still runs). Prints the .deb's path.
dv_deb() {
  local v=$1 stage=$SUITE_TMP/stage-$1 deb=$SUITE_TMP/$DV_PKG-$1.deb fixture
  if [ ! -f "$deb" ]; then
    fixture=$(rocm_prefix 15) || return 1
    mkdir -p "$stage/DEBIAN" "$stage/opt" || return 1
    cp -a "$fixture" "$stage$DV_ROOT" || return 1
    [ "$v" = 1.0 ] || printf '\n# shimctl-test-toolchain %s\n' "$v" >> "$stage$DV_ROOT/llvm/bin/clang"
    cat > "$stage/DEBIAN/control" <<EOF
Package: $DV_PKG
Version: $v
Architecture: all
Maintainer: shimctl tests <root@localhost>
Description: throwaway ROCm-shaped toolchain for shimctl's --divert tests
EOF
    dpkg-deb --root-owner-group -Zgzip -z1 --build "$stage" "$deb" >/dev/null || return 1
  fi
  echo "$deb"
}

dv_install_pkg() { # VERSION
  local deb
  deb=$(dv_deb "$1") || fail "cannot build the $1 test package"
  dpkg -i "$deb" > "$TEST_DIR/dpkg-$1.out" 2>&1 || fail "dpkg -i $1 failed: $(cat "$TEST_DIR/dpkg-$1.out")"
}

sha() { sha256sum < "$1" | cut -c1-64; }

manifest_field() { # python-expression-on-m
  python3 -c "import json,sys; m = json.load(open(sys.argv[1])); print($1)" "$DV_ROOT/.shimctl/manifest.json"
}

test_divert_refused_without_a_package() {
  TEST "--divert on a prefix no package owns: one-line error, exit 2, nothing changed"
  local fixture out rc=0
  fixture=$(rocm_prefix 15) || fail "cannot build the rocm fixture"
  P=$TEST_DIR/prefix
  cp -a "$fixture" "$P"
  tree_listing "$P" > before
  out=$("$SHIMCTL" install --divert --no-verify "$P" --cache-dir "$TEST_DIR/ccache" 2>&1) || rc=$?
  expect_eq 2 "$rc" "exit code (output: $out)"
  expect_eq "shimctl: error: --divert: no compiler in $P belongs to a dpkg package (dpkg -S); install without --divert" \
    "$(tail -1 <<< "$out")" "the error"
  expect_same_tree before "$P"
  [ ! -e "$P/.shimctl" ] || fail "install left $P/.shimctl"
}

test_divert_upgrade_rollback() {
  TEST "--divert: diversions to .real, a package upgrade lands under the shim, verify/install/rollback follow"
  dv_install_pkg 1.0
  local out rc CC=$TEST_DIR/ccache clang=$DV_ROOT/llvm/bin/clang hipcc=$DV_ROOT/bin/hipcc
  # Without --divert: a note recommends it (dry run: nothing changes).
  out=$("$SHIMCTL" install --dry-run "$DV_ROOT" --cache-dir "$CC" 2>&1) || fail "dry run failed: $out"
  expect_contains "$out" "note: 2 compiler(s) belong to a dpkg package" "dry run note"
  expect_contains "$out" "'shimctl install --divert'" "dry run note"

  out=$("$SHIMCTL" install --divert "$DV_ROOT" --cache-dir "$CC" 2>&1) || fail "install --divert failed: $out"
  expect_contains "$out" "installed: 2 compiler(s)" "install"
  expect_contains "$out" "dpkg-divert llvm/bin/clang to llvm/bin/clang.real" "install progress"
  expect_eq "$(printf '%s\n' "$hipcc" "$clang")" "$(dv_diversions | sort)" "diversions by shimctl"
  expect_eq "$clang.real" "$(dpkg-divert --truename "$clang")" "clang diverted to"
  expect_eq "$hipcc.real" "$(dpkg-divert --truename "$hipcc")" "hipcc diverted to"
  expect_eq "dpkg dpkg" "$(manifest_field "' '.join(str(c['diverted_by']) for c in m['compilers'])")" \
    "manifest diverted_by"
  cmp -s "$SHIM_BIN" "$clang" || fail "llvm/bin/clang is not the shim"

  # The package upgrade: dpkg writes the new clang to clang.real; the shims stay.
  dv_install_pkg 1.1
  local new_sha; new_sha=$(sha "$SUITE_TMP/stage-1.1$DV_ROOT/llvm/bin/clang")
  expect_eq "$new_sha" "$(sha "$clang.real")" "clang.real after the upgrade"
  cmp -s "$SHIM_BIN" "$clang" || fail "the upgrade replaced the clang shim"
  cmp -s "$SHIM_BIN" "$hipcc" || fail "the upgrade replaced the hipcc shim"
  dpkg --verify "$DV_PKG" > "$TEST_DIR/dpkg-verify.out" 2>&1 ||
    fail "dpkg --verify with the diversions: $(cat "$TEST_DIR/dpkg-verify.out")"
  mkdir -p "$TEST_DIR/work" && cd "$TEST_DIR/work" || fail "cd"
  echo 'int answer(void) { return 42; }' > x.c
  printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { *p = 1; }\n' > k.hip
  CCACHE_DIR=$CC "$clang" -c x.c -o x.o || fail "clang through the shim failed after the upgrade"
  SHIMCTL_DISABLE=1 "$clang" -c x.c -o ref.o || fail "clang.real failed after the upgrade"
  expect_same_file ref.o x.o
  CCACHE_DIR=$CC "$hipcc" -x hip --offload-arch=gfx90a -c k.hip -o k.o || fail "hipcc through the shim failed"

  rc=0; out=$("$SHIMCTL" verify "$DV_ROOT" 2>&1) || rc=$?
  expect_eq 0 "$rc" "verify exit code after the upgrade (output: $out)"
  expect_contains "$out" "llvm/bin/clang.real was updated by its package (diverted); run 'shimctl install' to record it" "verify"
  expect_contains "$out" "toolchain changed since install: llvm/bin/clang.real" "verify identity"
  out=$("$SHIMCTL" status "$DV_ROOT" 2>&1) || fail "status failed: $out"
  expect_contains "$out" "updated by its package (diverted)" "status"

  local old_fp; old_fp=$(manifest_field "m['fingerprint']['sha256']")
  out=$("$SHIMCTL" install --divert "$DV_ROOT" --cache-dir "$CC" 2>&1) || fail "re-install failed: $out"
  expect_contains "$out" "llvm/bin/clang was updated by its package under the dpkg diversion; recording the new file as the original" "re-install"
  expect_eq "$new_sha" "$(manifest_field "[c for c in m['compilers'] if c['path'] == 'llvm/bin/clang'][0]['original']['sha256']")" \
    "manifest sha of clang"
  [ "$(manifest_field "m['fingerprint']['sha256']")" != "$old_fp" ] || fail "the fingerprint did not change"
  out=$("$SHIMCTL" verify "$DV_ROOT" 2>&1) || fail "verify after re-recording failed: $out"
  case $out in *warning*) fail "verify still warns: $out" ;; esac
  out=$("$SHIMCTL" install "$DV_ROOT" --cache-dir "$CC" 2>&1) || fail "a third install failed: $out"
  expect_contains "$out" "is already installed; nothing changed" "third install"

  # A second upgrade before rollback: rollback restores the newest .real without --force.
  printf '\n# second upgrade\n' >> "$SUITE_TMP/stage-1.1$DV_ROOT/llvm/bin/clang"
  new_sha=$(sha "$SUITE_TMP/stage-1.1$DV_ROOT/llvm/bin/clang")
  sed -i 's/^Version: 1.1$/Version: 1.2/' "$SUITE_TMP/stage-1.1/DEBIAN/control"
  dpkg-deb --root-owner-group -Zgzip -z1 --build "$SUITE_TMP/stage-1.1" "$SUITE_TMP/$DV_PKG-1.2.deb" >/dev/null ||
    fail "cannot build 1.2"
  dv_install_pkg 1.2
  expect_eq "$new_sha" "$(sha "$clang.real")" "clang.real after the second upgrade"

  out=$("$SHIMCTL" rollback "$DV_ROOT" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "kept: llvm/bin/clang: its package updated it under the diversion; restored the package's newer file from llvm/bin/clang.real" "rollback"
  expect_contains "$out" "rolled back: 1 original(s) restored byte-identical" "rollback"
  expect_eq "" "$(dv_diversions)" "diversions by shimctl after rollback"
  expect_eq "$clang" "$(dpkg-divert --truename "$clang")" "clang's true name after rollback"
  dpkg --verify "$DV_PKG" > "$TEST_DIR/dpkg-verify.out" 2>&1 ||
    fail "dpkg --verify after rollback: $(cat "$TEST_DIR/dpkg-verify.out")"
  tree_listing "$SUITE_TMP/stage-1.1$DV_ROOT" > expected
  expect_same_tree expected "$DV_ROOT"
  [ ! -e "$DV_ROOT/.shimctl" ] || fail "rollback left $DV_ROOT/.shimctl"
  "$clang" -c x.c -o after.o || fail "clang failed after rollback"
}

test_divert_crash_recovery() {
  TEST "--divert killed right after the first diversion: the next command undoes it, no diversion left"
  need_test_hooks
  dpkg-query -W "$DV_PKG" >/dev/null 2>&1 || dv_install_pkg 1.0
  tree_listing "$DV_ROOT" > before
  local out rc=0 k
  # Steps: link_real hipcc, link_real clang, divert hipcc (3), divert clang (4), ...
  out=$(SHIMCTL_TEST_KILL_AFTER_STEP=3 "$SHIMCTL_HOOKS" install --divert --no-verify "$DV_ROOT" \
    --cache-dir "$TEST_DIR/ccache" 2>&1) || rc=$?
  expect_eq 137 "$rc" "exit code of the killed install (output: $out)"
  expect_eq "$DV_ROOT/bin/hipcc" "$(dv_diversions)" "diversions after the kill"
  rc=0; out=$("$SHIMCTL" status "$DV_ROOT" 2>&1) || rc=$?
  expect_eq 4 "$rc" "status after the kill: recovered, not installed (output: $out)"
  expect_contains "$out" "undid an interrupted install" "status recovers"
  expect_eq "" "$(dv_diversions)" "diversions after recovery"
  out=$("$SHIMCTL" rollback "$DV_ROOT" 2>&1) || fail "rollback failed: $out"
  expect_same_tree before "$DV_ROOT"
  for k in 5 9; do
    rc=0
    out=$(SHIMCTL_TEST_KILL_AFTER_STEP=$k "$SHIMCTL_HOOKS" install --divert --no-verify "$DV_ROOT" \
      --cache-dir "$TEST_DIR/ccache" 2>&1) || rc=$?
    expect_eq 137 "$rc" "exit code of the install killed after step $k (output: $out)"
    out=$("$SHIMCTL" install --divert --no-verify "$DV_ROOT" --cache-dir "$TEST_DIR/ccache" 2>&1) ||
      fail "install after the kill at step $k failed: $out"
    expect_eq 2 "$(dv_diversions | wc -l)" "diversions after the install that followed step $k"
    rc=0
    out=$(SHIMCTL_TEST_KILL_AFTER_STEP=1 "$SHIMCTL_HOOKS" rollback "$DV_ROOT" 2>&1) || rc=$?
    expect_eq 137 "$rc" "exit code of the rollback killed after its first step (output: $out)"
    out=$("$SHIMCTL" rollback "$DV_ROOT" 2>&1) || fail "rollback after the kill failed: $out"
    expect_eq "" "$(dv_diversions)" "diversions after the finished rollback"
    expect_same_tree before "$DV_ROOT"
  done
}

test_divert_notes() {
  TEST "a packaged prefix installed without --divert: notes recommend it, a later --divert says how"
  dpkg-query -W "$DV_PKG" >/dev/null 2>&1 || dv_install_pkg 1.0
  tree_listing "$DV_ROOT" > before
  local out
  out=$("$SHIMCTL" install --no-verify "$DV_ROOT" --cache-dir "$TEST_DIR/ccache" 2>&1) || fail "install failed: $out"
  expect_contains "$out" "note: 2 compiler(s) belong to a dpkg package (e.g. bin/hipcc): a package upgrade will replace the shim; 'shimctl install --divert' makes upgrades land on the .real instead" "install note"
  expect_eq "" "$(dv_diversions)" "diversions without --divert"
  out=$("$SHIMCTL" install --divert --no-verify "$DV_ROOT" --cache-dir "$TEST_DIR/ccache" 2>&1) || fail "install --divert failed: $out"
  expect_contains "$out" "note: installed without --divert: run 'shimctl rollback', then 'shimctl install --divert' to add the dpkg diversions" "second install note"
  expect_contains "$out" "already installed; nothing changed" "second install"
  out=$("$SHIMCTL" rollback "$DV_ROOT" 2>&1) || fail "rollback failed: $out"
  expect_same_tree before "$DV_ROOT"
}
