# Every miss explained (issue 43): a real CMake + Ninja HIP project (scripts/gen-hip-project, 12
# kernel units) built, then rebuilt after one deliberate change at a time. For each change,
# `shimctl measure`'s reasons table counts exactly the changed compiles under the right reason,
# and `shimctl explain OBJECT` of one of them prints that reason on its first line. The stack is
# a parameter (explain.bash: Debian 12, hipcc 5.2/clang-15, ccache 4.7.5; sid_explain.bash:
# hipcc 7.0.2/clang-21, ccache 4.14.2 and sccache 0.17; sid23_explain.bash: clang-23, whose
# ld.lld is the toolchain part changed). A suite sets EX_TOOLS before it sources this file.

EX_UNITS=${EX_UNITS:-12}  # the sid suites: 8 (the same changes; the test budget)
EX_QUARTER=${EX_QUARTER:-3} # units that include quarter.h (gen-hip-project: units 0, 4, 8, ...)

# ex_prefix TOOL [INSTALL ARGS...]: P = a private copy of the stack's fixture installed with TOOL
# (its cache in $TEST_DIR/cache-TOOL); XDG_CACHE_HOME (the records) and TMPDIR of the test's own.
ex_prefix() {
  local tool=$1
  shift
  P=$TEST_DIR/rocm
  copy_stack_prefix "$P" || return 1
  export XDG_CACHE_HOME=$TEST_DIR/xdg
  mkdir -p "$XDG_CACHE_HOME" && TMPDIR=$(mktemp -d "$SUITE_TMP/t.XXXX") || { fail "mktemp"; return 1; }
  export TMPDIR
  unset CCACHE_DIR SCCACHE_DIR
  "$SHIMCTL" install "$P" --cache "$tool" --cache-dir "$TEST_DIR/cache-$tool" --no-verify "$@" \
    >"$TEST_DIR/install.out" 2>&1 || { fail "install --cache $tool failed:"$'\n'"$(cat "$TEST_DIR/install.out")"; return 1; }
  [ "$tool" = sccache ] && trap 'sc_stop_servers' EXIT
  return 0
}

# ex_checkout DIR: the project at DIR, its flags open to -DEXTRA_FLAGS=...
ex_checkout() {
  local project=$SUITE_TMP/project
  if [ ! -d "$project" ]; then
    "$SCRIPTS/gen-hip-project" "$project.new" "$EX_UNITS" >/dev/null &&
      sed -i 's/-x hip ${BENCH_ARCH_FLAGS})/-x hip ${BENCH_ARCH_FLAGS} ${EXTRA_FLAGS})/' \
        "$project.new/CMakeLists.txt" && grep -q EXTRA_FLAGS "$project.new/CMakeLists.txt" &&
      mv "$project.new" "$project" || { fail "gen-hip-project failed"; return 1; }
  fi
  mkdir -p "$1" && cp -a "$project/." "$1/" && mkdir -p "$1/.git" || fail "cannot lay out $1"
}

# ex_build NAME SRC BUILD [CMAKE ARGS...]: configured and built under `shimctl measure --json`
# (NAME.json); with EX_CLEAN=1 its objects removed first (a toolchain change rebuilds nothing).
ex_build() {
  local name=$1 src=$2 build=$3
  shift 3
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$P/bin/hipcc" \
    -DCMAKE_BUILD_TYPE=Release -DBENCH_ARCH=gfx90a "$@" >"$TEST_DIR/$name.configure.log" 2>&1 ||
    { fail "configure $name failed:"$'\n'"$(tail -30 "$TEST_DIR/$name.configure.log")"; return 1; }
  [ -z "${EX_CLEAN:-}" ] || cmake --build "$build" --target clean >/dev/null ||
    { fail "cannot clean $build"; return 1; }
  "$SHIMCTL" measure --json -- cmake --build "$build" >"$TEST_DIR/$name.json" 2>"$TEST_DIR/$name.log" ||
    { fail "build $name failed:"$'\n'"$(tail -30 "$TEST_DIR/$name.log")"; return 1; }
}

# ex_reasons NAME: "misses reason:count reason:count..." from NAME.json (rows in count order).
ex_reasons() {
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(d["misses"], " ".join("%s:%d" % (r["reason"], r["count"]) for r in d["reasons"]["rows"]))' \
    "$TEST_DIR/$1.json"
}

# expect_reasons NAME "MISSES REASON:COUNT...": the build's misses and its reasons table, exactly;
# adds to EX_MISSES and EX_SPECIFIC (misses with a reason other than unknown).
expect_reasons() {
  local got
  got=$(ex_reasons "$1")
  expect_eq "$2" "$got" "misses and reasons of $1 (measure's table; the log: $TEST_DIR/$1.log)"
  EX_MISSES=$((EX_MISSES + ${got%% *}))
  EX_SPECIFIC=$((EX_SPECIFIC + $(python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
print(sum(r["count"] for r in d["reasons"]["rows"] if r["reason"] != "unknown"))' "$TEST_DIR/$1.json")))
}

# expect_explained OBJECT PATTERN: `shimctl explain OBJECT` exits 0 and its first line matches
# PATTERN (a grep -E pattern, anchored by the caller).
expect_explained() {
  local out rc=0
  out=$("$SHIMCTL" explain "$1" 2>&1) || rc=$?
  expect_eq 0 "$rc" "explain $(basename "$1")'s exit code ($out)"
  head -1 <<<"$out" | grep -qE "$2" ||
    fail "explain $(basename "$1"): first line '$(head -1 <<<"$out")' does not match '$2'"
}

EX_OBJ=CMakeFiles/hipbench.dir/src/unit_000.hip.o

# ex_step STEP: true unless STEP (flag, header, targets, place: the checkout's path with
# SHIMCTL_ANYWHERE=0, eviction) is in EX_SKIP, the steps a stack leaves to another suite (the test
# budget): the cold build and the toolchain's change always run.
ex_step() { [[ " ${EX_SKIP:-} " != *" $1 "* ]]; }

# ex_changes TOOL: the project's builds, one deliberate change at a time, each explained.
ex_changes() {
  local tool=$1 a=$TEST_DIR/home/alice/proj
  EX_MISSES=0 EX_SPECIFIC=0
  ex_prefix "$tool" || return 1
  ex_checkout "$a" || return 1
  ex_build cold "$a" "$a/build" || return 1
  expect_reasons cold "$EX_UNITS first-compile:$EX_UNITS"
  expect_explained "$a/build/$EX_OBJ" '^first compile of this output here'
  ex_build same "$a" "$a/build" || return 1 # nothing to do, nothing missed
  if ex_step flag; then # a flag
    ex_build flag "$a" "$a/build" -DEXTRA_FLAGS=-DNDEBUG || return 1
    expect_reasons flag "$EX_UNITS flags:$EX_UNITS"
    expect_explained "$a/build/$EX_OBJ" '^-DNDEBUG added$'
  fi
  if ex_step header; then # only its includers (code, not a comment: sccache keys the preprocessed text)
    echo 'inline int quarter_changed() { return 1; }' >> "$a/include/quarter.h"
    ex_build header "$a" "$a/build" || return 1
    expect_reasons header "$EX_QUARTER input-changed:$EX_QUARTER"
    expect_explained "$a/build/$EX_OBJ" 'include/quarter\.h changed \(sha [0-9a-f]{4}\.\. -> [0-9a-f]{4}\.\.\)$'
  fi
  # A toolchain part: a device library (clang-23: ld.lld, what the new driver links with).
  local part expected
  if [ "${SID_LLVM:-}" = 23 ]; then
    part=lib/llvm/bin/ld.lld # a link to lld: the file the fingerprint hashes may be named either way
    [ -e "$P/$part" ] || { fail "no $part in $P"; return 1; }
    printf '\0' >> "$P/$part"
    expected='^toolchain: lib/llvm/bin/(ld\.)?lld changed'
  else
    part=$(cd "$P" && find . -name oclc_finite_only_off.bc | head -1)
    [ -n "$part" ] || { fail "no oclc_finite_only_off.bc in $P"; return 1; }
    cp "$P/${part%_off.bc}_on.bc" "$P/$part.new" && mv "$P/$part.new" "$P/$part"
    part=${part#./}
    expected="^toolchain: ${part//./\\.} changed"
  fi
  EX_CLEAN=1 ex_build toolchain "$a" "$a/build" || return 1
  expect_reasons toolchain "$EX_UNITS toolchain:$EX_UNITS"
  expect_explained "$a/build/$EX_OBJ" "$expected"
  if ex_step targets; then # the GPU target set
    ex_build targets "$a" "$a/build" "-DEXTRA_FLAGS=-DNDEBUG;--offload-arch=gfx908" || return 1
    expect_reasons targets "$EX_UNITS gpu-targets:$EX_UNITS"
    expect_explained "$a/build/$EX_OBJ" '^GPU targets gfx90a -> gfx90a,gfx908$'
  fi
  if ex_step place; then # the checkout's path, with issue 42's location-free form off: A, then B
    local b=$TEST_DIR/ci/runner-7/work/proj
    SHIMCTL_ANYWHERE=0 EX_CLEAN=1 ex_build absolute "$a" "$a/build" "-DEXTRA_FLAGS=-DNDEBUG;--offload-arch=gfx908" || return 1
    ex_checkout "$b" && cp "$a/include/quarter.h" "$b/include/quarter.h" || return 1
    SHIMCTL_ANYWHERE=0 ex_build moved "$b" "$b/build" "-DEXTRA_FLAGS=-DNDEBUG;--offload-arch=gfx908" || return 1
    expect_reasons moved "$EX_UNITS checkout-path:$EX_UNITS"
    expect_explained "$b/build/$EX_OBJ" "^the checkout's place $TEST_DIR/home/alice -> $TEST_DIR/ci/runner-7/work: the compile names it"
  fi
  ! ex_step eviction || ex_eviction "$tool" "$a" || return 1
  # At least 95 % of the misses have a specific reason (here: all of them).
  expect_eq "$EX_MISSES" "$EX_SPECIFIC" "misses with a specific reason"
}

# ex_eviction TOOL A: A built, its cache cleaned up to a size too small to hold the build (ccache:
# CCACHE_MAXSIZE and `ccache -c`, its own cleanup; 4.14 evicts a subdirectory's oldest entries as
# it stores, which may spare the build's own), then rebuilt from an empty build dir with nothing
# changed: every miss is named "evicted".
ex_eviction() {
  [ "$1" = ccache ] || return 0 # sccache reads its size at the server's start
  local a=$2
  rm -rf "$a/build"
  CCACHE_MAXSIZE=200k ex_build evict1 "$a" "$a/build" || return 1
  CCACHE_DIR=$TEST_DIR/cache-ccache CCACHE_MAXSIZE=200k ccache -c >/dev/null || fail "ccache -c"
  rm -rf "$a/build"
  CCACHE_MAXSIZE=200k ex_build evict2 "$a" "$a/build" || return 1
  local misses
  misses=$(ex_reasons evict2 | cut -d' ' -f1)
  [ "$misses" -gt 0 ] || { fail "the tiny cache evicted nothing"; return 1; }
  expect_reasons evict2 "$misses evicted:$misses"
  expect_explained "$a/build/$EX_OBJ" '^evicted: the entry was written at .* and is gone \(cache full: .* of .*\)|^first'
}

# ex_store_out: a team store (Redis) taken out with the local cache empty: the compiles miss, and
# each says the store was out, not a made-up reason (ccache; the same seam serves sccache).
ex_store_out() {
  local a=$TEST_DIR/proj
  start_redis_store || return 1
  ex_prefix ccache --remote "redis://127.0.0.1:$STORE_PORT" || return 1
  ex_checkout "$a" || return 1
  ex_build stored "$a" "$a/build" || return 1
  expect_reasons stored "$EX_UNITS first-compile:$EX_UNITS"
  CCACHE_DIR=$TEST_DIR/cache-ccache ccache -C >/dev/null || fail "ccache -C"
  stop_store "$STORE_PIDFILE"
  sleep $((10 + 1)) # SHIMCTL_STORE_RECHECK: the store's verdict is due, the first compile asks
  EX_CLEAN=1 ex_build out "$a" "$a/build" || return 1
  expect_reasons out "$EX_UNITS store-out:$EX_UNITS"
  expect_explained "$a/build/$EX_OBJ" '^the team store was out: compiled locally'
  stores_cleanup
}
