# Crash safety (issue 4): shimctl killed with SIGKILL after every step of install and of
# rollback (SHIMCTL_TEST_KILL_AFTER_STEP=K; K=0 is right after the journal is written).
# After each kill: every wrapped name compiles (objects byte-equal to the ones the untouched
# toolchain made), the next shimctl command recovers, and the prefix listing (SHA-256, mode,
# owner, link target) equals the one taken before install.
# STACK (set by a suite that sources this file, as sid_serial_crash does) picks the toolchain:
# debian12 (default) Debian 12's clang-15 ROCm 5.2 prefix; sid the ROCm-7 prefix (hipBin, clang-21).

case ${STACK:=debian12} in
  debian12)
    stack_requires() { [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]; }
    # The C and C++ drivers under llvm/bin (clang is wrapped, the rest are its aliases).
    CLANG_NAMES="clang clang++ clang-15 clang++-15 amdclang amdclang++"
    CLANG_CL=clang-cl # an alias of clang in this prefix
    WRAPPED_COUNT=2   # bin/hipcc, llvm/bin/clang
    ROLLBACK_STEPS=6
    REPEAT_CHECKS=1
    ;;
  sid)
    stack_requires() {
      [ -x /usr/lib/llvm-21/bin/clang ] && [ "$(head -c 4 /usr/bin/hipcc 2>/dev/null | tail -c 3)" = ELF ]
    }
    # Under lib/llvm/bin (llvm -> lib/llvm): clang-21 is wrapped, clang, clang++ and clang-cpp
    # are its aliases; amdclang and amdclang++ are links to the wrapped launcher amdllvm.
    CLANG_NAMES="clang clang++ clang-21 amdclang amdclang++"
    CLANG_CL="" # not in a ROCm 7 prefix
    WRAPPED_COUNT=3 # bin/hipcc, lib/llvm/bin/clang-21, lib/llvm/bin/amdllvm
    ROLLBACK_STEPS=7
    # Install costs seconds here (job lists, fingerprint): every step is still killed, but the
    # compile checks that prove nothing new are dropped (REPEAT_CHECKS=0; see their tests).
    REPEAT_CHECKS=0
    ;;
  *) echo "serial_crash: unknown STACK=$STACK" >&2; exit 1 ;;
esac

suite_requires() {
  command -v ccache >/dev/null && stack_requires && [ -x "$SHIM_BIN" ] && [ -x "$SHIMCTL" ]
}

# crash_fixture: P = a private copy of the STACK's rocm prefix, sources, reference objects
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
  if [ -n "$CLANG_CL" ]; then
    (cd ref && "$P/llvm/bin/$CLANG_CL" /c /Brepro ../x.c /Foclang-cl.obj >/dev/null) ||
      fail "reference clang-cl failed"
  fi
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
  if [ -n "$CLANG_CL" ]; then
    (cd "$out" && "$P/llvm/bin/$CLANG_CL" /c /Brepro ../x.c /Foclang-cl.obj >/dev/null) ||
      fail "$what: clang-cl failed"
    cmp -s ref/clang-cl.obj "$out/clang-cl.obj" || fail "$what: clang-cl made a different object"
  fi
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
  need_test_hooks
  SHIMCTL_TEST_KILL_AFTER_STEP=$k "$SHIMCTL_HOOKS" "$@" > "$TEST_DIR/killed.out" 2>&1 || rc=$?
  echo "$rc"
}

test_install_killed_after_every_step() {
  TEST "install killed after each step k: compilers work, next command undoes, rollback restores"
  crash_fixture
  local steps k rc out recover hip_shim
  "$SHIMCTL" install --dry-run "$P" > dry-run || fail "install --dry-run failed"
  steps=$(grep -c '^  ' dry-run)
  [ "$steps" -ge 5 ] || fail "install --dry-run listed $steps steps"
  # The step that puts the shim at bin/hipcc (K counts the steps from 1).
  hip_shim=$(grep '^  ' dry-run | grep -nxF '  put the shim at bin/hipcc' | cut -d: -f1)
  [ -n "$hip_shim" ] || fail "install --dry-run does not put a shim at bin/hipcc"
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
    # config (the step before its shim: k=4 on a two-compiler prefix) and one where its shim is
    # in place (k=5). Without REPEAT_CHECKS only the latter: hipBin (an ELF, unlike the perl
    # hipcc that loads hipvars.pm from its directory) reads nothing install wrote before its shim.
    if ((k == hip_shim || (REPEAT_CHECKS && k == hip_shim - 1))); then
      check_compilers "install killed after step $k" hip
    else check_compilers "install killed after step $k"; fi
    # The next command recovers: status on even k, install on odd k.
    # (status exits 4 when the recovery undid the install: not installed, as verify says.)
    if ((k % 2 == 0)); then
      rc=0; out=$("$SHIMCTL" status "$P" 2>&1) || rc=$?
      [ "$rc" = 0 ] || [ "$rc" = 4 ] || fail "k=$k: status after the crash failed ($rc): $out"
    else
      out=$("$SHIMCTL" install --no-verify "$P" 2>&1) ||
        fail "k=$k: install after the crash failed: $out"
      expect_contains "$out" "installed: $WRAPPED_COUNT compiler(s)" "k=$k: install after recovery"
      # The same installed prefix whatever k was: without REPEAT_CHECKS, compiled through once.
      if ((REPEAT_CHECKS || k == 1)); then check_compilers "k=$k: installed after recovery"; fi
    fi
    expect_contains "$out" "recovered: undid an interrupted install ($steps steps)" "k=$k"
    [ ! -e "$P/.shimctl/journal.json" ] || fail "k=$k: the journal survived recovery"
    out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "k=$k: rollback failed: $out"
    expect_same_tree "$TEST_DIR/before" "$P"
    [ ! -e "$P/.shimctl" ] || fail "k=$k: rollback left $(ls -A "$P/.shimctl")"
    echo "    k=$k/$steps ok"
  done
  expect_eq $((steps + 1)) "$k" "the loop reached the step after the last"
  # The tree equals the one the references came from (without REPEAT_CHECKS, that is enough).
  if ((REPEAT_CHECKS)); then check_compilers "after the last rollback"; fi
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
    # (status exits 4 once the rollback is finished: not installed, as verify says.)
    if ((k % 2 == 0)); then
      rc=0; out=$("$SHIMCTL" status "$P" 2>&1) || rc=$?
      expect_eq 4 "$rc" "k=$k: status after the crash (not installed once recovered): $out"
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
  expect_eq "$ROLLBACK_STEPS" "$steps" "rollback steps of a $WRAPPED_COUNT-compiler rocm prefix"
  if ((REPEAT_CHECKS)); then check_compilers "after the last rollback"; fi
}

test_full_install_with_verify() {
  TEST "a full install with verification, then rollback"
  crash_fixture
  local out
  out=$("$SHIMCTL" install "$P" 2>&1) || fail "install failed: $out"
  expect_contains "$out" "installed: $WRAPPED_COUNT compiler(s)" "install"
  check_compilers "installed" hip
  out=$("$SHIMCTL" verify "$P" 2>&1) || fail "verify failed: $out"
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "rolled back: $WRAPPED_COUNT original(s) restored byte-identical" "rollback"
  expect_same_tree "$TEST_DIR/before" "$P"
  [ ! -e "$P/.shimctl" ] || fail "rollback left $(ls -A "$P/.shimctl")"
}
