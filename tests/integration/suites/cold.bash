# Cold misses at the compiler's own cost (Debian 12: perl hipcc 5.2, clang-15, ccache 4.7.5;
# sid_cold runs the same tests with hipcc 7.0.2, clang-21, ccache 4.14.2). A compile that names no
# depfile gets one of the shim's own, in the user's private runtime directory, so that ccache runs
# in depend mode (no preprocessor before a miss); a device-only compile, for which clang-21 writes
# no depfile, runs without depend mode (else ccache compiles twice). Asserted on bytes, ccache's
# log (which compiler runs it executed), hit counts and the files left anywhere.

LLVM=15
source "$(dirname "${BASH_SOURCE[0]}")/rocm_common.bash"

suite_requires() { rocm_requires; }

# cold_setup: P installed (ccache), a private runtime dir and TMPDIR, and k.hip including h.h.
cold_setup() {
  new_prefix
  install_prefix --no-verify
  if [ "${STACK:-debian12}" = sid ]; then CLANGXX=$P/lib/llvm/bin/clang++; else CLANGXX=$P/llvm/bin/clang++; fi
  # Short: the private dir also holds sccache's socket, whose path has a length limit.
  RUN=$(mktemp -d "$SUITE_TMP/run.XXXX"); export XDG_RUNTIME_DIR=$RUN
  export TMPDIR=$TEST_DIR/tmp; mkdir -p "$TMPDIR"
  mkdir -p "$TEST_DIR/src" && cd "$TEST_DIR/src" || fail "no src dir"
  printf '#include <hip/hip_runtime.h>\n#include "h.h"\n__global__ void k(float* x) { x[threadIdx.x] *= SCALE; }\n' > k.hip
  printf '#define SCALE 2.0f\n' > h.h
}

# ccache_runs LOG: the compiler runs ccache's log records (each "Executing" line), as
# "<compiles> <preprocessor runs>".
ccache_runs() {
  local all pp
  all=$(grep -c 'Executing ' "$1" || true)
  pp=$(grep 'Executing ' "$1" | grep -cE -- ' -E( |$)' || true)
  echo "$((all - pp)) $pp"
}

# no_leftovers WHAT: nothing of the shim's own depfiles in the private dir, no temporary file in
# the cache dir, and (when UNCACHED_TMP is set) TMPDIR holds what the uncached compile left there
# (hipcc 5.2 leaves two empty directories per compile; ccache's preprocessor mode left three).
no_leftovers() {
  local left
  left=$(find "$RUN" -name 'dep-*' 2>/dev/null)
  [ -z "$left" ] || fail "$1: depfiles left in the private dir: $left"
  left=$(find "$CC" -name '*.tmp*' -o -name '*.d' 2>/dev/null)
  [ -z "$left" ] || fail "$1: temporary files left in the cache dir: $left"
  [ -z "${UNCACHED_TMP:-}" ] ||
    expect_eq "$UNCACHED_TMP" "$(find "$TMPDIR" -mindepth 1 -maxdepth 1 | wc -l)" "$1: entries in TMPDIR"
}

test_depfile_less_miss_runs_compiler_once() {
  TEST "a depfile-less hipcc miss: depend mode with the shim's depfile, compiler run once, same bytes, nothing left"
  cold_setup
  SHIMCTL_DISABLE=1 "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o ref.o || fail "uncached compile failed"
  mv ref.o ../ref.o
  UNCACHED_TMP=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 | wc -l)
  rm -rf "${TMPDIR:?}"/*
  ls -A > ../tree.before
  CCACHE_LOGFILE=$TEST_DIR/miss.log "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o ref.o \
    || fail "shimmed compile failed"
  expect_same_file ../ref.o ref.o
  expect_eq "1 0" "$(ccache_runs "$TEST_DIR/miss.log")" "compiles and preprocessor runs of the miss"
  expect_contains "$(cat "$TEST_DIR/miss.log")" "Dependency file: $RUN/shimctl-run/dep-" "the depfile ccache read"
  expect_contains "$(cat "$TEST_DIR/miss.log")" "Got result key from dependency file" "depend mode"
  expect_misses "$CC" 1
  rm ref.o
  ls -A > ../tree.after
  diff ../tree.before ../tree.after > /dev/null || fail "the source dir changed: $(diff ../tree.before ../tree.after)"
  no_leftovers "after a miss"
  # The hit: direct, same bytes, nothing left.
  "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o ref.o || fail "repeat failed"
  expect_same_file ../ref.o ref.o
  expect_eq 1 "$(ccache_stat "$CC" direct_cache_hit)" "direct hits"
  no_leftovers "after a hit"
}

# manifests_in DIR: ccache's manifest files (named ...M in 4.7; by the entry header's type byte,
# 01, in 4.14).
manifests_in() {
  local f
  find "$1" -type f -name '*M'
  while IFS= read -r -d '' f; do
    case $(od -A n -t x1 -N 4 "$f" | tr -d ' \n') in ccac??01) echo "$f" ;; esac
  done < <(find "$1" -type f -regex '.*/[0-9a-f]+' -print0)
}

test_header_change_misses() {
  TEST "after a depfile-less cold compile, a header change misses (depend mode's manifest lists it)"
  cold_setup
  "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o || fail "first compile failed"
  local manifest
  manifest=$(manifests_in "$CC" | head -1)
  [ -n "$manifest" ] || fail "no manifest in $CC"
  ccache --inspect "$manifest" 2>&1 | grep -Eq '^ +[0-9]+: (h\.h|.*/src/h\.h)$' \
    || fail "the manifest does not list h.h: $(ccache --inspect "$manifest" 2>&1 | grep -A3 'File paths')"
  printf '#define SCALE 3.0f\n' > h.h
  "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o || fail "compile after the change failed"
  expect_misses "$CC" 2
  expect_eq 0 "$(hits_in "$CC")" "hits after the change"
  mv k.o ../cached.o
  SHIMCTL_DISABLE=1 "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o || fail "uncached compile failed"
  expect_same_file ../cached.o k.o
  no_leftovers "after the header change"
}

test_device_only_compiles_once() {
  TEST "device-only: with -MD -MF the compiler runs once (uncached); without, cached and no depend mode"
  cold_setup
  SHIMCTL_DISABLE=1 "$CLANGXX" -x hip --cuda-device-only --offload-arch=gfx90a -c k.hip -o dev.o -MD -MF dev.d \
    2> ../uncached.err || fail "uncached device-only compile failed"
  mv dev.o ../dev.o
  [ ! -e dev.d ] || mv dev.d ../dev.d # clang-15 writes it, clang-21 does not
  local trace
  trace=$(SHIMCTL_SHIM_TRACE=1 CCACHE_LOGFILE=$TEST_DIR/dev.log "$CLANGXX" -x hip --cuda-device-only \
    --offload-arch=gfx90a -c k.hip -o dev.o -MD -MF dev.d 2>&1) || fail "shimmed device-only compile failed"
  expect_same_file ../dev.o dev.o
  [ ! -e ../dev.d ] || expect_same_file ../dev.d dev.d
  expect_contains "$trace" "device-only with a depfile (the cache tool would compile again): uncached" "the shim's trace"
  [ ! -s "$TEST_DIR/dev.log" ] || fail "ccache ran the device-only -MD compile: $(grep Executing "$TEST_DIR/dev.log")"
  "$CLANGXX" -x hip --cuda-device-only --offload-arch=gfx90a -c k.hip -o dev.o -MD -MF dev.d 2> ../shim.err \
    || fail "shimmed device-only compile failed"
  diff ../uncached.err ../shim.err > /dev/null || fail "stderr differs: $(diff ../uncached.err ../shim.err)"
  # Without a depfile: cached, without depend mode, the compiler run once after the preprocessor.
  CCACHE_LOGFILE=$TEST_DIR/nodep.log "$CLANGXX" -x hip --cuda-device-only --offload-arch=gfx90a -c k.hip \
    -o dev2.o || fail "device-only compile without a depfile failed"
  expect_eq "1 1" "$(ccache_runs "$TEST_DIR/nodep.log")" "compiles and preprocessor runs of the device-only miss"
  expect_contains "$(cat "$TEST_DIR/nodep.log")" "(environment) depend_mode = false" "depend mode off"
  "$CLANGXX" -x hip --cuda-device-only --offload-arch=gfx90a -c k.hip -o dev2.o || fail "repeat failed"
  expect_eq 1 "$(hits_in "$CC")" "hits of the device-only repeat"
}

test_failing_compile() {
  TEST "a failing depfile-less compile: same stderr and exit code as uncached, nothing left"
  cold_setup
  printf '__global__ void broken( { }\n' > bad.hip
  local compiler rc_u rc_s
  for compiler in "$CLANGXX -x hip" "$P/bin/hipcc"; do
    rc_u=0 rc_s=0
    SHIMCTL_DISABLE=1 $compiler --offload-arch=gfx90a -c bad.hip -o bad.o 2> ../u.err > ../u.out || rc_u=$?
    $compiler --offload-arch=gfx90a -c bad.hip -o bad.o 2> ../s.err > ../s.out || rc_s=$?
    [ "$rc_u" -ne 0 ] || fail "the broken source compiled"
    expect_eq "$rc_u" "$rc_s" "exit code of $compiler"
    # hipcc 7's hipBin echoes the clang command it ran when it fails: that line names the
    # shim's depfile (as it names the shim's -cuid= in both runs). Every other byte is the same.
    diff <(grep -v '^failed to execute:' ../u.err) <(grep -v '^failed to execute:' ../s.err) > /dev/null \
      || fail "stderr of $compiler differs: $(diff ../u.err ../s.err | head)"
    [[ $compiler == *hipcc ]] || diff ../u.err ../s.err > /dev/null || fail "stderr of $compiler differs"
    diff ../u.out ../s.out > /dev/null || fail "stdout of $compiler differs"
    [ ! -e bad.o ] || fail "a failed compile left bad.o"
  done
  no_leftovers "after a failed compile"
}

test_killed_compile_leaves_nothing() {
  TEST "a SIGKILLed shim: the next compile removes its depfile; a killed compiler's is removed at once"
  cold_setup
  # The shim killed outright while ccache runs on (an orphan): ccache finishes, clang has written
  # the depfile, and nobody removes it. Only this test's processes are matched: their command
  # lines name its prefix (other suites run alongside).
  "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o 2>/dev/null &
  local pid=$!
  wait_until 60 "ccache's compile" pgrep -f "ccache $P/bin/hipcc .*k[.]hip" > /dev/null
  kill -9 "$pid"
  wait "$pid" 2>/dev/null
  wait_until 120 "the orphaned ccache to finish" sh -c "! pgrep -f 'ccache $P/bin/hipcc .*k[.]hip' > /dev/null"
  [ -n "$(find "$RUN" -name 'dep-*')" ] || fail "no depfile left to clean (the test does not test)"
  "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o || fail "the next compile failed"
  [ -z "$(find "$RUN" -name 'dep-*')" ] || fail "the next compile left the killed one's depfile: $(find "$RUN" -name 'dep-*')"
  # The compiler killed under a live shim: the shim removes its depfile and dies of the same signal.
  sed -i 's/2.0f/4.0f/' h.h
  "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o 2>/dev/null &
  pid=$!
  wait_until 60 "the compiler" pgrep -f -- "-cc1 .*$TEST_DIR/.*k[.]hip" > /dev/null
  pkill -9 -f -- "-cc1 .*$TEST_DIR/.*k[.]hip"
  local rc=0
  wait "$pid" || rc=$?
  [ "$rc" -ne 0 ] || fail "the shim succeeded although its compiler was killed"
  [ -z "$(find "$RUN" -name 'dep-*')" ] || fail "depfile left after the compiler was killed"
}

test_concurrent_compiles_of_one_unit() {
  TEST "four concurrent depfile-less compiles of one unit: all succeed, same bytes, nothing left"
  cold_setup
  local i pids=()
  for i in 1 2 3 4; do
    mkdir -p "$TEST_DIR/c$i" && cp k.hip h.h "$TEST_DIR/c$i/"
  done
  (cd "$TEST_DIR/c1" && SHIMCTL_DISABLE=1 "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o && mv k.o ../ref.o) \
    || fail "uncached compile failed"
  for i in 1 2 3 4; do
    (cd "$TEST_DIR/c$i" && "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o) &
    pids+=($!)
  done
  for i in "${pids[@]}"; do wait "$i" || fail "a concurrent compile failed"; done
  for i in 1 2 3 4; do expect_same_file "$TEST_DIR/ref.o" "$TEST_DIR/c$i/k.o"; done
  expect_eq 4 "$(($(ccache_stat "$CC" cache_miss) + $(hits_in "$CC")))" "misses + hits"
  [ -z "$(find "$RUN" -name 'dep-*')" ] || fail "depfiles left: $(find "$RUN" -name 'dep-*')"
}

test_own_depfile_only_where_it_helps() {
  TEST "no shim depfile with the user's -MD, CCACHE_NODEPEND=1 or a response file"
  cold_setup
  local trace
  trace=$(SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k.o -MD -MF k.d 2>&1) \
    || fail "compile with -MD failed"
  [[ $trace != *"shim's depfile"* ]] || fail "own depfile beside the user's -MD: $trace"
  [ -s k.d ] || fail "the user's depfile is missing"
  trace=$(CCACHE_NODEPEND=1 SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k2.o 2>&1) \
    || fail "compile with CCACHE_NODEPEND=1 failed"
  [[ $trace != *"shim's depfile"* ]] || fail "own depfile despite CCACHE_NODEPEND=1"
  echo "-c k.hip -o k3.o" > args.rsp
  trace=$(SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" --offload-arch=gfx90a @args.rsp 2>&1) || fail "compile with @rsp failed"
  [[ $trace != *"shim's depfile"* ]] || fail "own depfile with a response file"
  trace=$(SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" --offload-arch=gfx90a -c k.hip -o k4.o 2>&1) || fail "plain compile failed"
  expect_contains "$trace" "depend mode with the shim's depfile $RUN/shimctl-run/dep-" "the plain compile's trace"
}

# probe_answer NAME ARGS...: runs hipcc ARGS (a probe call) into NAME.{out,err,rc}.
probe_answer() {
  local name=$1; shift
  local rc=0
  "$P/bin/hipcc" "$@" > "$TEST_DIR/$name.out" 2> "$TEST_DIR/$name.err" || rc=$?
  echo "$rc" > "$TEST_DIR/$name.rc"
}
expect_same_answer() { # A B
  local f
  for f in out err rc; do
    cmp -s "$TEST_DIR/$1.$f" "$TEST_DIR/$2.$f" ||
      fail "$1 and $2 differ in $f: $(diff "$TEST_DIR/$1.$f" "$TEST_DIR/$2.$f" | head -5)"
  done
}
# probe_source ARGS...: how the shim answered a probe call: "memo", "ran" (and kept) or "direct".
probe_source() {
  local trace
  trace=$(SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" "$@" 2>&1 >/dev/null)
  case $trace in
    *"probe call answered from the memo"*) echo memo ;;
    *"probe call ran and was kept"*) echo ran ;;
    *) echo direct ;;
  esac
}

test_probe_calls_answered_once() {
  TEST "aiter's flag probes (-E of /dev/null): answered once, same bytes and exit codes; toolchain, argument and variable changes re-run"
  cold_setup
  export XDG_CACHE_HOME=$TEST_DIR/xdg-cache
  local ok=(-mcumode -x hip -E -P /dev/null -o /dev/null) bad=(-fno-such-flag-here -x hip -E -P /dev/null -o /dev/null)
  local macros=(--offload-arch=gfx90a -x hip -E -dM /dev/null)
  local args
  for args in ok bad macros; do
    local -n a=$args
    SHIMCTL_DISABLE=1 probe_answer "$args.orig" "${a[@]}"
    probe_answer "$args.first" "${a[@]}"
    probe_answer "$args.memo" "${a[@]}"
    expect_same_answer "$args.orig" "$args.first"
    expect_same_answer "$args.orig" "$args.memo"
    expect_eq memo "$(probe_source "${a[@]}")" "how the repeated $args probe was answered"
  done
  [ "$(cat "$TEST_DIR/bad.orig.rc")" -ne 0 ] || fail "the failing probe succeeded (the test does not test)"
  [ -s "$TEST_DIR/bad.orig.err" ] || fail "the failing probe said nothing (the test does not test)"
  grep -q __HIP__ "$TEST_DIR/macros.orig.out" || fail "-dM printed no HIP macros (the test does not test)"
  # An argument changes: run again.
  expect_eq ran "$(probe_source -mcumode -x hip -E -P /dev/null -o /dev/null -DX=1)" "a changed argument"
  # A keyed variable changes the answer: run again, and the answer follows it.
  HIPCC_COMPILE_FLAGS_APPEND=-DSHIMCTL_PROBE_VAR=7 probe_answer var.first "${macros[@]}"
  HIPCC_COMPILE_FLAGS_APPEND=-DSHIMCTL_PROBE_VAR=7 SHIMCTL_DISABLE=1 probe_answer var.orig "${macros[@]}"
  expect_same_answer var.orig var.first
  grep -q 'SHIMCTL_PROBE_VAR 7' "$TEST_DIR/var.first.out" || fail "the keyed variable did not reach the answer"
  expect_eq memo "$(HIPCC_COMPILE_FLAGS_APPEND=-DSHIMCTL_PROBE_VAR=7 probe_source "${macros[@]}")" "the variable's repeat"
  # The toolchain changes (a device library's bytes): run again.
  local lib
  lib=$(ls "$P"/amdgcn/bitcode/oclc_*.bc | head -1)
  printf 'x' >> "$lib"
  expect_eq ran "$(probe_source "${ok[@]}")" "the probe after a toolchain change"
  # SHIMCTL_DISABLE=1: no memo.
  expect_eq direct "$(SHIMCTL_DISABLE=1 probe_source "${ok[@]}")" "with SHIMCTL_DISABLE=1"
  # A probe of a file (not /dev/null) always runs.
  : > empty.hip
  expect_eq direct "$(probe_source -x hip -E -P empty.hip -o /dev/null)" "a probe of a file"
}

test_sccache_device_only_depfile_uncached() {
  TEST "sccache (0.17, sid): a device-only -MD -MF compile runs uncached, once; a full compile is cached"
  [ "${STACK:-debian12}" = sid ] || { echo "    (sccache caches HIP from 0.8: sid only)"; return 0; }
  new_prefix
  install_prefix --cache sccache --no-verify
  CLANGXX=$P/lib/llvm/bin/clang++
  mkdir -p "$TEST_DIR/src" && cd "$TEST_DIR/src" || fail "no src dir"
  printf '#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n' > k.hip
  SHIMCTL_DISABLE=1 "$CLANGXX" -x hip --cuda-device-only --offload-arch=gfx90a -c k.hip -o ref.o -MD -MF k.d \
    2>/dev/null || fail "uncached device-only compile failed"
  local trace
  trace=$(SHIMCTL_SHIM_TRACE=1 "$CLANGXX" -x hip --cuda-device-only --offload-arch=gfx90a -c k.hip -o ref.o.2 \
    -MD -MF k.d 2>&1) || fail "shimmed device-only compile failed"
  expect_contains "$trace" "device-only with a depfile (the cache tool would compile again): uncached" "the trace"
  sc_server_of "$P"
  "$CLANGXX" -x hip --offload-arch=gfx90a -c k.hip -o full.o || fail "full compile failed"
  "$CLANGXX" -x hip --offload-arch=gfx90a -c k.hip -o full.o || fail "repeat failed"
  expect_eq 1 "$(sc_stat 's["stats"]["cache_hits"]["counts"].get("HIP", 0)')" "sccache HIP hits"
  expect_eq 0 "$(sc_stat 's["stats"]["cache_errors"]["counts"].get("HIP", 0) if "cache_errors" in s["stats"] else 0')" "sccache errors"
  sc_stop_servers
}
