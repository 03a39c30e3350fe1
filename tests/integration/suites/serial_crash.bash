# Crash safety (issue 4): shimctl killed with SIGKILL after every step of install and of
# rollback (SHIMCTL_TEST_KILL_AFTER_STEP=K; K=0 is right after the journal is written).
# After each kill: every wrapped name compiles (objects byte-equal to the ones the untouched
# toolchain made), the next shimctl command recovers, and the prefix listing (SHA-256, mode,
# owner, link target) equals the one taken before install.

suite_requires() {
  command -v ccache >/dev/null && [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ] &&
    [ -x "$SHIM_BIN" ] && [ -x "$SHIMCTL" ]
}

# The C and C++ drivers under llvm/bin (clang is wrapped, the rest are its aliases).
CLANG_NAMES="clang clang++ clang-15 clang++-15 amdclang amdclang++"

# crash_fixture: P = a private copy of the clang-15 rocm prefix, sources, reference objects
# made by the untouched toolchain, and the listing before install in $TEST_DIR/before.
crash_fixture() {
  private_rocm_copy
  printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { *p = 1; }\n' > x.hip
  mkdir -p ref
  local n
  for n in $CLANG_NAMES; do
    "$P/llvm/bin/$n" -c x.c -o "ref/$n.o" 2>/dev/null || fail "reference compile with $n failed"
  done
  # clang-cl objects carry a timestamp unless /Brepro.
  (cd ref && "$P/llvm/bin/clang-cl" /c /Brepro ../x.c /Foclang-cl.obj >/dev/null) ||
    fail "reference clang-cl failed"
  "$P/llvm/bin/clang-cpp" x.c > ref/clang-cpp.i || fail "reference clang-cpp failed"
  "$P/bin/hipcc" -c x.c -o ref/hipcc.o || fail "reference hipcc failed"
}

# check_compilers WHAT [hip]: every wrapped name compiles and matches the reference objects.
check_compilers() {
  local what=$1 n out=$TEST_DIR/out
  rm -rf "$out"; mkdir -p "$out"
  for n in $CLANG_NAMES; do
    "$P/llvm/bin/$n" -c x.c -o "$out/$n.o" 2>/dev/null || fail "$what: $n -c x.c failed"
    cmp -s "ref/$n.o" "$out/$n.o" || fail "$what: $n made a different object"
  done
  (cd "$out" && "$P/llvm/bin/clang-cl" /c /Brepro ../x.c /Foclang-cl.obj >/dev/null) ||
    fail "$what: clang-cl failed"
  cmp -s ref/clang-cl.obj "$out/clang-cl.obj" || fail "$what: clang-cl made a different object"
  "$P/llvm/bin/clang-cpp" x.c > "$out/clang-cpp.i" || fail "$what: clang-cpp failed"
  cmp -s ref/clang-cpp.i "$out/clang-cpp.i" || fail "$what: clang-cpp output differs"
  "$P/bin/hipcc" --version > "$out/hipcc.version" || fail "$what: hipcc --version failed"
  "$P/bin/hipcc" -c x.c -o "$out/hipcc.o" || fail "$what: hipcc -c x.c failed"
  cmp -s ref/hipcc.o "$out/hipcc.o" || fail "$what: hipcc made a different object"
  if [ "${2:-}" = hip ]; then
    "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c x.hip -o "$out/hip.o" ||
      fail "$what: hipcc -x hip failed"
    [ -s "$out/hip.o" ] || fail "$what: hipcc -x hip wrote no object"
  fi
  true
}

# killed K COMMAND...: runs shimctl with the fault switch; echoes its exit code.
killed() {
  local k=$1; shift
  local rc=0
  SHIMCTL_TEST_KILL_AFTER_STEP=$k "$SHIMCTL" "$@" > "$TEST_DIR/killed.out" 2>&1 || rc=$?
  echo "$rc"
}

test_install_killed_after_every_step() {
  TEST "install killed after each step k: compilers work, next command undoes, rollback restores"
  crash_fixture
  local steps k rc out recover
  steps=$("$SHIMCTL" install --dry-run "$P" | grep -c '^  ')
  [ "$steps" -ge 5 ] || fail "install --dry-run listed $steps steps"
  for ((k = 0; k <= steps + 1; k++)); do
    rc=$(killed "$k" install --no-verify "$P")
    if [ "$k" -gt "$steps" ]; then
      expect_eq 0 "$rc" "install with K=$k beyond the last step (not killed)"
      "$SHIMCTL" rollback "$P" > /dev/null || fail "rollback after the unkilled install"
      expect_same_tree "$TEST_DIR/before" "$P"
      break
    fi
    expect_eq 137 "$rc" "exit code of install killed after step $k (SIGKILL)"
    [ -f "$P/.shimctl/journal.json" ] || fail "k=$k: no journal left by the killed install"
    # HIP compiles cost seconds: one where hipcc is still the original behind a written
    # config (k=4) and one where its shim is in place (k=5).
    if ((k == 4 || k == 5)); then check_compilers "install killed after step $k" hip
    else check_compilers "install killed after step $k"; fi
    # The next command recovers: status on even k, install on odd k.
    if ((k % 2 == 0)); then
      out=$("$SHIMCTL" status "$P" 2>&1) || fail "k=$k: status after the crash failed: $out"
    else
      out=$("$SHIMCTL" install --no-verify "$P" 2>&1) ||
        fail "k=$k: install after the crash failed: $out"
      expect_contains "$out" "installed: 2 compiler(s)" "k=$k: install after recovery"
      check_compilers "k=$k: installed after recovery"
    fi
    expect_contains "$out" "recovered: undid an interrupted install ($steps steps)" "k=$k"
    [ ! -e "$P/.shimctl/journal.json" ] || fail "k=$k: the journal survived recovery"
    out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "k=$k: rollback failed: $out"
    expect_same_tree "$TEST_DIR/before" "$P"
    [ ! -e "$P/.shimctl" ] || fail "k=$k: rollback left $(ls -A "$P/.shimctl")"
    echo "    k=$k/$steps ok"
  done
  expect_eq $((steps + 1)) "$k" "the loop reached the step after the last"
  check_compilers "after the last rollback"
}

test_rollback_killed_after_every_step() {
  TEST "rollback killed after each step k: compilers work, the next command finishes it"
  crash_fixture
  local steps="" k rc out
  for ((k = 0; k <= 20; k++)); do
    "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "k=$k: install failed"
    rc=$(killed "$k" rollback "$P")
    if [ "$rc" = 0 ]; then
      steps=$((k - 1))
      expect_same_tree "$TEST_DIR/before" "$P"
      break
    fi
    expect_eq 137 "$rc" "exit code of rollback killed after step $k (SIGKILL)"
    [ -f "$P/.shimctl/journal.json" ] || fail "k=$k: no journal left by the killed rollback"
    # hipcc goes back to the original at step 1: a HIP compile at k=0 (shim) and k=1 (original).
    if ((k <= 1)); then check_compilers "rollback killed after step $k" hip
    else check_compilers "rollback killed after step $k"; fi
    # The next command finishes the rollback: status on even k, rollback on odd k.
    if ((k % 2 == 0)); then
      out=$("$SHIMCTL" status "$P" 2>&1) || fail "k=$k: status after the crash failed: $out"
    else
      out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "k=$k: rollback after the crash failed: $out"
    fi
    expect_contains "$out" "recovered: finished an interrupted rollback" "k=$k"
    expect_same_tree "$TEST_DIR/before" "$P"
    out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "k=$k: a second rollback failed: $out"
    expect_contains "$out" "not installed; nothing to roll back" "k=$k: second rollback"
    [ ! -e "$P/.shimctl" ] || fail "k=$k: rollback left $(ls -A "$P/.shimctl")"
    echo "    k=$k ok"
  done
  [ -n "$steps" ] || fail "rollback was still killed at k=20"
  expect_eq 6 "$steps" "rollback steps of a two-compiler rocm prefix"
  check_compilers "after the last rollback"
}

test_full_install_with_verify() {
  TEST "a full install with verification, then rollback"
  crash_fixture
  local out
  out=$("$SHIMCTL" install "$P" 2>&1) || fail "install failed: $out"
  expect_contains "$out" "installed: 2 compiler(s)" "install"
  check_compilers "installed" hip
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify failed: $out"
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "rolled back: 2 original(s) restored byte-identical" "rollback"
  expect_same_tree "$TEST_DIR/before" "$P"
  [ ! -e "$P/.shimctl" ] || fail "rollback left $(ls -A "$P/.shimctl")"
}
