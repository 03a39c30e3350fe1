# Concurrency (issue 4): the prefix lock (fail at once naming the holder's pid, or --wait),
# and live compiles through every wrapped name from two workers while install and rollback
# alternate: zero failed compiles, zero objects that differ from the reference.
# STACK (set by a suite that sources this file, as sid_serial_stress does) picks the toolchain:
# debian12 (default) Debian 12's clang-15 ROCm 5.2 prefix; sid the ROCm-7 prefix (hipBin, clang-21).

case ${STACK:=debian12} in
  debian12)
    stack_requires() { [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]; }
    WRAPPED="bin/hipcc llvm/bin/clang" # the compilers install wraps
    CLANG=llvm/bin/clang                   # the wrapped clang driver
    SYSTEM_CLANG=/usr/lib/llvm-15/bin/clang # what the prefix's clang is a copy of
    # The names the workers compile through; hipcc compiles the C++ source.
    WORKER_NAMES="bin/hipcc llvm/bin/clang llvm/bin/clang++ llvm/bin/clang-15 llvm/bin/clang++-15
      llvm/bin/amdclang llvm/bin/amdclang++"
    HIPCC_SOURCE=x.cpp
    ROUNDS=20 # install/rollback rounds under live compiles
    ;;
  sid)
    stack_requires() {
      [ -x /usr/lib/llvm-21/bin/clang ] && [ "$(head -c 4 /usr/bin/hipcc 2>/dev/null | tail -c 3)" = ELF ]
    }
    WRAPPED="bin/hipcc lib/llvm/bin/clang-21 lib/llvm/bin/amdllvm"
    CLANG=lib/llvm/bin/clang-21
    SYSTEM_CLANG=/usr/lib/llvm-21/bin/clang
    # Also the ROCm 7 links bin/amdclang{,++} -> ../lib/llvm/bin/amdclang{,++} -> amdllvm.
    # hipcc 7 compiles a .cpp as HIP (seconds per call, and the object embeds the -o path):
    # it compiles the C source, through the wrapped clang all the same.
    WORKER_NAMES="bin/hipcc llvm/bin/clang llvm/bin/clang++ llvm/bin/clang-21 llvm/bin/amdclang
      llvm/bin/amdclang++ bin/amdclang bin/amdclang++"
    HIPCC_SOURCE=x.c
    ROUNDS=10 # an install costs seconds here (job lists, fingerprint): 30 shims placed, 30 restored
    ;;
  *) echo "serial_stress: unknown STACK=$STACK" >&2; exit 1 ;;
esac
WRAPPED_COUNT=$(echo $WRAPPED | wc -w)

suite_requires() {
  command -v ccache >/dev/null && command -v flock >/dev/null && stack_requires &&
    [ -x "$SHIM_BIN" ] && [ -x "$SHIMCTL" ]
}

# stress_fixture: P = a private copy of the STACK's rocm prefix; sources.
stress_fixture() {
  private_rocm_copy
}

# hold_lock SECONDS [SCRIPT]: holds PREFIX/.shimctl/lock from a background process that writes
# its pid into the file, sleeps, runs SCRIPT and exits (killing HOLDER_PID releases the lock:
# flock -o keeps the lock out of the child; without SCRIPT the sleep is HOLDER_PID itself, so no
# sleep outlives the kill). Sets HOLDER_PID once the lock is held.
hold_lock() {
  local lock=$P/.shimctl/lock
  rm -f "$TEST_DIR/held"
  flock -o "$lock" sh -c 'echo $$ > "$1"; touch "$2"; [ -n "$4" ] || exec sleep "$3"; sleep "$3"; eval "$4"' sh \
    "$lock" "$TEST_DIR/held" "$1" "${2:-}" &
  wait_until 60 "the lock holder to start" test -e "$TEST_DIR/held"
  HOLDER_PID=$(cat "$lock")
}

millis() { date +%s%3N; }

test_busy_prefix_fails_at_once() {
  TEST "a second shimctl fails at once with exit 3 naming the holder's pid"
  stress_fixture
  "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "install failed"
  hold_lock 600 # until killed below
  local cmd rc out
  # "At once": without --wait a command never waits (it fails while the holder, which holds the
  # lock until it is killed, still holds it). How fast it fails is measured by scripts/bench,
  # not here: an upper time bound fails on a busy machine.
  for cmd in "install --no-verify" rollback status verify refresh; do
    rc=0
    out=$("$SHIMCTL" $cmd "$P" 2>&1) || rc=$?
    expect_eq 3 "$rc" "exit code of '$cmd' on a locked prefix"
    expect_contains "$out" "$P/.shimctl is busy: another shimctl (pid $HOLDER_PID) is working on it" "$cmd"
  done
  kill "$HOLDER_PID" 2>/dev/null; wait
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback after the holder left: $out"
  expect_same_tree before "$P"
}

test_wait_until_the_holder_leaves() {
  TEST "--wait SECONDS waits for the holder, then succeeds; a short --wait times out"
  stress_fixture
  "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "install failed"
  local rc out t0 t1
  hold_lock 2
  rc=0; t0=$(millis)
  out=$("$SHIMCTL" status --wait 0.5 "$P" 2>&1) || rc=$?
  t1=$(millis)
  expect_eq 3 "$rc" "exit code of status --wait 0.5 on a locked prefix"
  expect_contains "$out" "(pid $HOLDER_PID)" "status --wait 0.5"
  [ $((t1 - t0)) -ge 450 ] || fail "--wait 0.5 gave up after $((t1 - t0)) ms"
  out=$("$SHIMCTL" rollback --wait 10 "$P" 2>&1) || fail "rollback --wait 10 failed: $out"
  t1=$(millis)
  [ $((t1 - t0)) -ge 1500 ] || fail "rollback --wait did not wait for the holder ($((t1 - t0)) ms)"
  expect_contains "$out" "rolled back: $WRAPPED_COUNT original(s)" "rollback --wait"
  expect_same_tree before "$P"
  wait
  # Install waits too (the state directory exists, its lock is held).
  mkdir "$P/.shimctl"
  hold_lock 1
  out=$("$SHIMCTL" install --no-verify --wait 10 "$P" 2>&1) || fail "install --wait 10 failed: $out"
  expect_contains "$out" "installed: $WRAPPED_COUNT compiler(s)" "install --wait"
  wait
  "$SHIMCTL" rollback "$P" > /dev/null || fail "rollback failed"
  expect_same_tree before "$P"
}

test_waiter_survives_the_state_dir_going_away() {
  TEST "a waiting shimctl starts again when the holder removes the state directory"
  stress_fixture
  "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "install failed"
  # The holder does what a rollback does, by hand, and removes .shimctl while holding the lock.
  local undo="" f
  for f in $WRAPPED; do undo+="mv '$P/$f.real' '$P/$f'; "; done
  for f in $WRAPPED; do undo+="rm -f '$P/$(dirname "$f")/.shimctl.conf'; "; done
  hold_lock 1 "$undo rm -rf '$P/.shimctl'"
  local out
  out=$("$SHIMCTL" install --no-verify --wait 10 "$P" 2>&1) || fail "install --wait 10 failed: $out"
  expect_contains "$out" "installed: $WRAPPED_COUNT compiler(s)" "install --wait after the state dir went away"
  wait
  [ -f "$P/.shimctl/manifest.json" ] || fail "no manifest after install"
  "$SHIMCTL" rollback "$P" > /dev/null || fail "rollback failed"
  expect_same_tree before "$P"
}

test_commands_wait_out_identity_helpers() {
  TEST "a command without --wait waits out the shim's identity helpers (a shared lock), not a command"
  stress_fixture
  "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "install failed"
  # What 'shimctl identity-check' holds while it writes the snapshot: the lock, shared.
  local helper out t0 t1
  t0=$(millis) # the holder lets go 2 s after this, at the earliest
  flock -s -o "$P/.shimctl/lock" sleep 2 &
  helper=$!
  wait_until 60 "the helper's shared lock" grep -q " READ .*:$(stat -c %i "$P/.shimctl/lock") " /proc/locks
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback while a helper held the lock: $out"
  t1=$(millis)
  [ $((t1 - t0)) -ge 1900 ] || fail "rollback did not wait for the helper (done $((t1 - t0)) ms after it took the lock)"
  expect_contains "$out" "rolled back: $WRAPPED_COUNT original(s)" "rollback after the helper"
  wait "$helper"
  expect_same_tree before "$P"
}

# hold_real: a clang started as $P/$CLANG.real that waits on its stdin until
# $TEST_DIR/go exists, as a driver does between the jobs it runs. Sets HELD_PID.
hold_real() {
  rm -f "$TEST_DIR/go"
  { while [ ! -e "$TEST_DIR/go" ]; do sleep 0.05; done; echo 'int held(void) { return 1; }'; } |
    "$P/$CLANG.real" -x c -c - -o held.o &
  HELD_PID=$!
  wait_until 60 "the held $CLANG.real to start" runs_real "$HELD_PID"
}
runs_real() { [ "$(readlink "/proc/$1/exe")" = "$P/$CLANG.real" ]; }

test_rollback_waits_for_a_running_original() {
  TEST "rollback puts the original back at once, and removes NAME.real only when no process runs it"
  stress_fixture
  "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "install failed"
  hold_real
  "$SHIMCTL" rollback --busy-wait 30 "$P" > rollback.out 2>&1 &
  local rollback_pid=$!
  wait_until 120 "rollback's notice that it waits" grep -q "waiting for" rollback.out
  expect_contains "$(cat rollback.out)" \
    "shimctl: waiting for 1 process (pid $HELD_PID) still running $P/$CLANG.real (up to 30 s, --busy-wait)" \
    "rollback's notice"
  expect_eq "$(sha256sum < "$SYSTEM_CLANG")" "$(sha256sum < "$P/$CLANG")" \
    "clang is the original again while rollback waits"
  [ -e "$P/$CLANG.real" ] || fail "clang.real was removed while a process runs it"
  touch "$TEST_DIR/go"
  wait "$HELD_PID" || fail "the held compile failed"
  [ -s held.o ] || fail "the held compile wrote no object"
  wait "$rollback_pid" || fail "rollback failed: $(cat rollback.out)"
  expect_same_tree before "$P"
}

test_rollback_busy_wait_zero() {
  TEST "rollback --busy-wait 0 removes NAME.real at once and says who may fail"
  stress_fixture
  "$SHIMCTL" install --no-verify "$P" > /dev/null || fail "install failed"
  hold_real
  local out
  out=$("$SHIMCTL" rollback --busy-wait 0 "$P" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "shimctl: 1 process (pid $HELD_PID) still running $P/$CLANG.real after 0 s; removed it anyway" \
    "rollback --busy-wait 0"
  touch "$TEST_DIR/go"
  wait "$HELD_PID" # started before the removal: it has its file open and finishes
  expect_same_tree before "$P"
}

# The one failure no installer can prevent: the kernel started perl on the hipcc *script*, and
# before perl opened it by path, install renamed the shim over it (the window is perl's startup,
# about a millisecond; see README "Limits"). Binaries have no such window.
script_swap_race() {
  [ "$1" = bin/hipcc ] && [ "$(cat "$2")" = \
    "Unrecognized character \x7F; marked by <-- HERE after <-- HERE near column 1 at $P/bin/hipcc line 1." ]
}

# worker ID: compiles through every wrapped name until $TEST_DIR/stop exists; writes
# "done failed wrong races" to $TEST_DIR/worker-ID.count, and one byte to
# $TEST_DIR/worker-ID.progress after each compile (its size counts them while it runs).
worker() {
  local id=$1 out=$TEST_DIR/w$1 done=0 failed=0 wrong=0 races=0 n src obj
  mkdir -p "$out"
  : > "$TEST_DIR/worker-$id.progress"
  while [ ! -e "$TEST_DIR/stop" ]; do
    for n in $WORKER_NAMES; do
      case $n in *++*) src=x.cpp ;; */hipcc) src=$HIPCC_SOURCE ;; *) src=x.c ;; esac
      obj=$out/$(basename "$n").o
      rm -f "$obj"
      if "$P/$n" -c "$src" -o "$obj" 2> "$out/last-error"; then
        cmp -s "$obj" "ref/$(basename "$n").o" || { wrong=$((wrong + 1)); cp "$obj" "$obj.wrong.$done"; }
      elif script_swap_race "$n" "$out/last-error"; then
        races=$((races + 1))
      else
        failed=$((failed + 1))
        { cat "$out/last-error"; echo "failed: $n (compile $done)"; } >> "$out/errors"
      fi
      done=$((done + 1))
      printf . >> "$TEST_DIR/worker-$id.progress"
    done
  done
  echo "$done $failed $wrong $races" > "$TEST_DIR/worker-$id.count"
}

# progress ID: compiles worker ID has finished so far.
progress() { stat -c %s "$TEST_DIR/worker-$1.progress" 2>/dev/null || echo 0; }

# compiled_since N1 N2: a worker finished two compiles since its count was N1 (resp. N2): the
# second of them started after that count was read.
compiled_since() { [ "$(progress 1)" -ge $(($1 + 2)) ] || [ "$(progress 2)" -ge $(($2 + 2)) ]; }

# compile_in_this_state WHAT: waits until a compile that started after now has finished.
compile_in_this_state() {
  wait_until 300 "a worker to compile after $1" compiled_since "$(progress 1)" "$(progress 2)"
}

test_live_compiles_while_install_and_rollback_alternate() {
  TEST "two workers compile through every wrapped name while install/rollback alternate $ROUNDS times"
  stress_fixture
  local n src rounds=$ROUNDS i out t0 t1
  mkdir -p ref
  for n in $WORKER_NAMES; do
    case $n in *++*) src=x.cpp ;; */hipcc) src=$HIPCC_SOURCE ;; *) src=x.c ;; esac
    "$P/$n" -c $src -o "ref/$(basename "$n").o" || fail "reference compile with $n failed"
  done
  t0=$(millis)
  worker 1 & worker 2 &
  # Each install and each rollback is followed by compiles in the state it left (and others
  # run during it): the workers' progress, not a fixed sleep.
  for ((i = 1; i <= rounds; i++)); do
    out=$("$SHIMCTL" install --no-verify "$P" 2>&1) || { touch stop; wait; fail "install $i: $out"; }
    (compile_in_this_state "install $i") || { touch stop; wait; exit 1; }
    out=$("$SHIMCTL" rollback "$P" 2>&1) || { touch stop; wait; fail "rollback $i: $out"; }
    (compile_in_this_state "rollback $i") || { touch stop; wait; exit 1; }
  done
  touch stop
  wait
  t1=$(millis)
  local d1 f1 w1 r1 d2 f2 w2 r2
  read -r d1 f1 w1 r1 < worker-1.count || fail "worker 1 left no count"
  read -r d2 f2 w2 r2 < worker-2.count || fail "worker 2 left no count"
  echo "    $rounds installs + $rounds rollbacks in $((t1 - t0)) ms; compiles: $((d1 + d2))," \
    "failed: $((f1 + f2)), wrong objects: $((w1 + w2)), perl-script swap races: $((r1 + r2))"
  [ $((f1 + f2)) -eq 0 ] || fail "$((f1 + f2)) compiles failed: $(sort w*/errors | uniq -c | head -20)"
  [ $((w1 + w2)) -eq 0 ] || fail "$((w1 + w2)) objects differ from the reference"
  # A race needs a compile starting within a millisecond of an install: a few per run at most,
  # whereas a shim that perl reads on every call would fail every hipcc compile.
  [ $((r1 + r2)) -le $((rounds / 4)) ] || fail "$((r1 + r2)) perl-script swap races: not a race"
  # Compiles ran in every state: compile_in_this_state waited for them after each install and
  # each rollback (so no floor on how many ran: that depends on the machine's load).
  expect_same_tree before "$P"
}
