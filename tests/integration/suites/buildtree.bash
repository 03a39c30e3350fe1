# Per-build statistics and build-tree checks (issue 6): `shimctl measure` and
# `shimctl check-build` on a small CMake project with C, C++ and HIP sources (CMake's HIP
# language), built through a clang-15 ROCm-shaped prefix (scripts/make-rocm-prefix). measure's
# counts are each tool's own (issue 23 item 9): ccache's counters move by what it reports, and
# with sccache 0.4 (a TCP port) they are what the build's own server says (measure_common.bash).
#
# CMake 3.25's HIP language with Debian's ROCm 5.2 needs help here: hip-lang's config is found
# through PREFIX/lib/cmake/hip-lang (a link to Debian's) with CMAKE_PREFIX_PATH for its
# dependencies (clang_rt.builtins it finds in the prefix's clang resource dir); the compiler
# check is skipped (CMAKE_HIP_COMPILER_FORCED) because Debian's hip-lang adds
# `-isystem /usr/include`, which breaks libstdc++'s #include_next <math.h> unless /usr/include
# is an implicit include dir.
#
# find_package(hip) needs no help: make-rocm-prefix gives the prefix its own hip package
# (test_find_package_hip). A project shaped like HIP's own tests, which sets CMAKE_CXX_COMPILER
# to hipcc after project(), is what check-build must judge by its rules rather than by
# CMakeCache.txt (test_check_build_compiler_after_project, Ninja and Makefiles).

source "$(dirname "${BASH_SOURCE[0]}")/measure_common.bash"

suite_requires() {
  command -v ccache >/dev/null && command -v cmake >/dev/null && command -v ninja >/dev/null \
    && [ -x "$SHIMCTL" ] && [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ] \
    && [ -f /usr/lib/x86_64-linux-gnu/cmake/hip-lang/hip-lang-config.cmake ] \
    && command -v python3 >/dev/null
}

# A prefix, built once per suite: SHIMMED is installed (clang and hipcc wrapped), PLAIN is not.
prefixes() {
  SHIMMED=$SUITE_TMP/shimmed PLAIN=$SUITE_TMP/plain
  local p
  for p in "$SHIMMED" "$PLAIN"; do
    [ -d "$p" ] && continue
    copy_rocm_prefix "$p"
    mkdir -p "$p/lib/cmake"
    ln -s /usr/lib/x86_64-linux-gnu/cmake/hip-lang "$p/lib/cmake/hip-lang"
  done
  [ -f "$SHIMMED/.shimctl/manifest.json" ] || "$SHIMCTL" install "$SHIMMED" --no-verify \
    --compilers clang,hipcc --cache-dir "$SUITE_TMP/unused-cache" >/dev/null 2>&1 || fail "install"
  export CCACHE_DIR=$TEST_DIR/ccache  # this test's own cache (the shim's default only fills unset)
}

project() {
  SRC=$SUITE_TMP/project
  [ -d "$SRC" ] && return
  mkdir -p "$SRC"
  cat > "$SRC/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.25)
project(demo LANGUAGES C CXX HIP)
add_library(demo STATIC a.c b.cpp k.hip)
CM
  echo 'int fa(int x) { return x * 2; }' > "$SRC/a.c"
  echo 'int fb(int x) { return x * 3; }' > "$SRC/b.cpp"
  printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\n' > "$SRC/k.hip"
}

# configure BUILD PREFIX [CMAKE ARGS...]: C, C++ and HIP compilers from PREFIX/llvm/bin.
configure() {
  local build=$1 p=$2
  shift 2
  project
  CMAKE_PREFIX_PATH=/usr/lib/x86_64-linux-gnu/cmake \
    cmake -S "$SRC" -B "$build" -G Ninja -DCMAKE_C_COMPILER="$p/llvm/bin/clang" \
    -DCMAKE_CXX_COMPILER="$p/llvm/bin/clang++" -DCMAKE_HIP_COMPILER="$p/llvm/bin/clang++" \
    -DCMAKE_HIP_ARCHITECTURES=gfx90a -DCMAKE_HIP_COMPILER_ROCM_ROOT="$p" \
    -DCMAKE_HIP_COMPILER_FORCED=1 -DCMAKE_HIP_IMPLICIT_INCLUDE_DIRECTORIES=/usr/include \
    "$@" > "$build.configure.log" 2>&1 || fail "configure $build failed: $(tail -20 "$build.configure.log")"
}

json_field() { # json-file expression
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

test_measure_cold_and_warm() {
  TEST "measure: a cold build has 3 misses, a warm build in a fresh dir 3 hits; up to date warns"
  prefixes
  configure "$TEST_DIR/cold" "$SHIMMED"
  "$SHIMCTL" measure --json -- cmake --build "$TEST_DIR/cold" > "$TEST_DIR/cold.json" 2>"$TEST_DIR/cold.err" \
    || fail "cold build failed: $(tail -20 "$TEST_DIR/cold.err")"
  expect_eq "3 0 3 0" "$(json_field "$TEST_DIR/cold.json" '"%d %d %d %d" % (d["compiles"], d["hits"], d["misses"], d["exit_code"])')" "cold: compiles hits misses exit"
  configure "$TEST_DIR/warm" "$SHIMMED"  # (CMake's compiler checks compile through the cache too)
  local hits_before misses_before
  hits_before=$(( $(ccache_stat "$CCACHE_DIR" direct_cache_hit) + $(ccache_stat "$CCACHE_DIR" preprocessed_cache_hit) ))
  misses_before=$(ccache_stat "$CCACHE_DIR" cache_miss)
  "$SHIMCTL" measure --json -- cmake --build "$TEST_DIR/warm" > "$TEST_DIR/warm.json" 2>"$TEST_DIR/warm.err" \
    || fail "warm build failed: $(tail -20 "$TEST_DIR/warm.err")"
  expect_eq "3 3 0 1.0" "$(json_field "$TEST_DIR/warm.json" '"%d %d %d %s" % (d["compiles"], d["hits"], d["misses"], d["hit_rate"])')" "warm: compiles hits misses rate"
  # The cache's own counters agree (they moved by exactly that), and nothing was zeroed.
  expect_hits "$CCACHE_DIR" $((hits_before + 3))
  expect_misses "$CCACHE_DIR" "$misses_before"
  [ "$misses_before" -ge 3 ] || fail "the cold build's misses are gone from the counters"
  # Nothing to build: the loud warning, exit code of the build (0).
  local out
  out=$("$SHIMCTL" measure -- cmake --build "$TEST_DIR/warm" 2>&1) || fail "up-to-date build failed"
  expect_contains "$out" "the launcher never reached the compiler" "zero-compile warning"
  expect_contains "$out" "0 compiles through the cache" "zero counts"
  # The build's exit code comes back.
  "$SHIMCTL" measure -- sh -c 'exit 7' >/dev/null 2>&1
  expect_eq 7 "$?" "build exit code"
}

test_measure_build_need_and_install_warning() {
  TEST "measure: what one build needs of its cache (written cold, used warm: the same 6 entries); install --max-size below it warns with the number, above it does not"
  prefixes
  configure "$TEST_DIR/cold" "$SHIMMED"
  "$SHIMCTL" measure --json -- cmake --build "$TEST_DIR/cold" > "$TEST_DIR/cold.json" 2>"$TEST_DIR/cold.err" \
    || fail "cold build failed: $(tail -20 "$TEST_DIR/cold.err")"
  local need entries
  expect_eq "$CCACHE_DIR" "$(json_field "$TEST_DIR/cold.json" 'd["needs"][0]["dir"]')" "the build's cache dir"
  need=$(json_field "$TEST_DIR/cold.json" 'd["needs"][0]["bytes"]')
  entries=$(json_field "$TEST_DIR/cold.json" 'd["needs"][0]["entries"]')
  # The build's 3 compiles: 3 results and 3 manifests, which are all the cache holds but the
  # compiler checks' entries that configure wrote before the build began.
  expect_eq 6 "$entries" "entries the cold build wrote"
  [ "$need" -gt 1000 ] || fail "one build needs $need bytes?"
  # A warm build from a fresh dir writes nothing; it uses the same entries (ccache touches them).
  configure "$TEST_DIR/warm" "$SHIMMED"
  "$SHIMCTL" measure -- cmake --build "$TEST_DIR/warm" > /dev/null 2>"$TEST_DIR/warm.err" \
    || fail "warm build failed: $(tail -20 "$TEST_DIR/warm.err")"
  grep -qx "shimctl measure: one build needs [0-9.]* [KM]iB of $CCACHE_DIR (6 entries written or used; 'shimctl install --max-size' that cannot hold it warns)" \
    "$TEST_DIR/warm.err" || fail "measure's line of the warm build: $(grep 'needs' "$TEST_DIR/warm.err")"
  # install (a dry run: nothing changes) with a limit below it warns, naming the number.
  local out
  out=$("$SHIMCTL" install "$PLAIN" --dry-run --no-verify --cache-dir "$CCACHE_DIR" --max-size 1k 2>&1) ||
    fail "install --dry-run failed: $out"
  expect_contains "$out" "warning: --max-size 1k cannot hold one build of $CCACHE_DIR: it needs " "install's warning"
  # shimctl keeps the limit over the whole cache: the need and room for one compile's entries.
  expect_contains "$out" " in 6 entries ('shimctl measure' of a build), and ccache keeps them all under a limit of " "install's number"
  expect_contains "$out" "give --max-size " "install's advice"
  out=$("$SHIMCTL" install "$PLAIN" --dry-run --no-verify --cache-dir "$CCACHE_DIR" --max-size 1G 2>&1) ||
    fail "install --dry-run failed: $out"
  case $out in *"cannot hold one build"*) fail "a limit above the need warned: $out" ;; esac
  [ ! -e "$PLAIN/.shimctl" ] || fail "a dry run changed $PLAIN"
}

test_check_build_verdicts() {
  TEST "check-build: C/CXX launchers only flags HIP; all three launchers pass; shimmed compilers pass"
  prefixes
  local out rc
  configure "$TEST_DIR/cxx-only" "$PLAIN" -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  out=$("$SHIMCTL" check-build "$TEST_DIR/cxx-only" 2>&1); rc=$?
  expect_eq 1 "$rc" "exit code, C/CXX launchers only ($out)"
  expect_contains "$out" "HIP      1 compile(s)  UNCACHED" "HIP flagged"
  expect_contains "$out" "CXX      1 compile(s)  cached    launcher ccache" "CXX cached"
  expect_contains "$out" "CMAKE_CXX_COMPILER_LAUNCHER is set but HIP sources compile without one" "the trap"
  "$SHIMCTL" check-build "$TEST_DIR/cxx-only" --json > "$TEST_DIR/cxx-only.json"
  expect_eq "False C:True CXX:True HIP:False" "$(json_field "$TEST_DIR/cxx-only.json" '" ".join([str(d["ok"])] + ["%s:%s" % (l["language"], l["cached"]) for l in d["languages"]])')" "JSON verdicts"

  configure "$TEST_DIR/all" "$PLAIN" -DCMAKE_C_COMPILER_LAUNCHER=ccache \
    -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_HIP_COMPILER_LAUNCHER=/usr/bin/ccache
  out=$("$SHIMCTL" check-build "$TEST_DIR/all" 2>&1) || fail "all launchers: exit $? ($out)"
  expect_contains "$out" "HIP      1 compile(s)  cached    launcher ccache" "HIP cached by launcher"

  configure "$TEST_DIR/shimmed" "$SHIMMED"
  out=$("$SHIMCTL" check-build "$TEST_DIR/shimmed" 2>&1) || fail "shimmed compilers: exit $? ($out)"
  expect_contains "$out" "HIP      1 compile(s)  cached    shimmed compiler" "HIP through the shim"
  expect_contains "$out" "C        1 compile(s)  cached    shimmed compiler" "C through the shim"

  # Makefiles: the same verdicts from build.make.
  configure "$TEST_DIR/make" "$PLAIN" -G "Unix Makefiles" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
  out=$("$SHIMCTL" check-build "$TEST_DIR/make" 2>&1); rc=$?
  expect_eq 1 "$rc" "exit code, Makefiles ($out)"
  expect_contains "$out" "CXX      1 compile(s)  cached" "Makefiles CXX"
  expect_contains "$out" "HIP      1 compile(s)  UNCACHED" "Makefiles HIP"

  out=$("$SHIMCTL" check-build "$TEST_DIR" 2>&1); rc=$?
  expect_eq 2 "$rc" "not a build dir ($out)"
}

# A project shaped like HIP's own tests: project(x LANGUAGES CXX), then CMAKE_CXX_COMPILER set to
# hipcc (so CMakeCache.txt keeps naming the C++ compiler CMake found), find_package(hip) from
# CMAKE_PREFIX_PATH, a HIP kernel in a .cpp, and a subdirectory (Makefiles: `cd sub && ...`).
late_project() {
  LATE=$SUITE_TMP/late-project
  [ -d "$LATE" ] && return
  mkdir -p "$LATE/sub"
  cat > "$LATE/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.16)
project(x LANGUAGES CXX)
set(CMAKE_CXX_COMPILER ${HIPCC})
find_package(hip REQUIRED)
message(STATUS "hip_DIR=${hip_DIR}")
message(STATUS "HIP_CLANG_INCLUDE_PATH=${HIP_CLANG_INCLUDE_PATH}")
add_subdirectory(sub)
add_executable(k k.cpp util.cpp)
target_link_libraries(k hip::device sub)
CM
  echo 'add_library(sub STATIC sub.cpp)' > "$LATE/sub/CMakeLists.txt"
  echo 'int sub() { return 0; }' > "$LATE/sub/sub.cpp"
  echo 'int util() { return 0; }' > "$LATE/util.cpp"
  printf '#include <hip/hip_runtime.h>\n__global__ void k(int* p) { p[threadIdx.x] = 1; }\nint util();\nint sub();\nint main() { return util() + sub(); }\n' > "$LATE/k.cpp"
}

# configure_late BUILD PREFIX GENERATOR [CMAKE ARGS...]: the late project against PREFIX's hipcc.
configure_late() {
  local build=$1 p=$2 gen=$3
  shift 3
  late_project
  CMAKE_PREFIX_PATH=$p cmake -S "$LATE" -B "$build" -G "$gen" -DHIPCC="$p/bin/hipcc" \
    -DGPU_TARGETS=gfx90a -DAMDGPU_TARGETS=gfx90a "$@" > "$build.configure.log" 2>&1 \
    || fail "configure $build failed: $(tail -20 "$build.configure.log")"
}

test_find_package_hip() {
  TEST "make-rocm-prefix: find_package(hip) finds the prefix's own package; its clang++ builds"
  prefixes
  local log
  # The prefix's clang++ as the compiler from the start (hip-config takes clang's root from it);
  # hipcc set after project(): test_check_build_compiler_after_project.
  late_project
  CMAKE_PREFIX_PATH=$PLAIN cmake -S "$LATE" -B "$TEST_DIR/clang" -G Ninja \
    -DCMAKE_CXX_COMPILER="$PLAIN/llvm/bin/clang++" -DHIPCC="$PLAIN/llvm/bin/clang++" \
    -DGPU_TARGETS=gfx90a -DAMDGPU_TARGETS=gfx90a > "$TEST_DIR/clang.log" 2>&1 \
    || fail "configure with clang++ failed: $(tail -20 "$TEST_DIR/clang.log")"
  log=$(cat "$TEST_DIR/clang.log")
  expect_contains "$log" "hip_DIR=$PLAIN/lib/x86_64-linux-gnu/cmake/hip" "the prefix's hip package"
  expect_contains "$log" "HIP_CLANG_INCLUDE_PATH=$PLAIN/llvm/lib/clang/15.0.6/include" "clang's headers"
  cmake --build "$TEST_DIR/clang" -v > "$TEST_DIR/clang.build.log" 2>&1 \
    || fail "build with clang++ failed: $(tail -20 "$TEST_DIR/clang.build.log")"
  expect_eq 4 "$(grep -cE "^\[[0-9]/[0-9]\] (: && )?$PLAIN/llvm/bin/clang\+\+ " "$TEST_DIR/clang.build.log")" \
    "steps run by the prefix's clang++ (3 compiles, 1 link)"
  file "$TEST_DIR/clang/k" | grep -q ELF || fail "no executable k"
}

test_check_build_compiler_after_project() {
  TEST "check-build: CMAKE_CXX_COMPILER set after project(): shimmed hipcc cached, plain UNCACHED, plain + ccache cached"
  prefixes
  local gen b out rc
  for gen in Ninja "Unix Makefiles"; do
    b=$TEST_DIR/${gen// /_}
    configure_late "$b-shimmed" "$SHIMMED" "$gen"
    out=$("$SHIMCTL" check-build "$b-shimmed" 2>&1) || fail "$gen, shimmed hipcc: exit $? ($out)"
    expect_contains "$out" "CXX      3 compile(s)  cached    shimmed compiler  ($SHIMMED/bin/hipcc; CMakeCache.txt names " "$gen, shimmed hipcc"

    configure_late "$b-plain" "$PLAIN" "$gen"
    # find_package(hip) used the prefix's package and clang (make-rocm-prefix).
    expect_contains "$(cat "$b-plain.configure.log")" "hip_DIR=$PLAIN/lib/x86_64-linux-gnu/cmake/hip" "$gen: hip_DIR"
    expect_contains "$(cat "$b-plain.configure.log")" "HIP_CLANG_INCLUDE_PATH=$PLAIN/llvm/lib/clang/15.0.6/include" "$gen: clang's headers"
    out=$("$SHIMCTL" check-build "$b-plain" 2>&1); rc=$?
    expect_eq 1 "$rc" "$gen, plain hipcc: exit code ($out)"
    expect_contains "$out" "CXX      3 compile(s)  UNCACHED  no launcher, compiler is not a shim  ($PLAIN/bin/hipcc; " "$gen, plain hipcc"

    configure_late "$b-launcher" "$PLAIN" "$gen" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
    out=$("$SHIMCTL" check-build "$b-launcher" 2>&1) || fail "$gen, plain hipcc + ccache: exit $? ($out)"
    expect_contains "$out" "CXX      3 compile(s)  cached    launcher ccache  ($PLAIN/bin/hipcc; " "$gen, launcher"
    "$SHIMCTL" check-build "$b-launcher" --json > "$b-launcher.json"
    expect_eq "True ccache $PLAIN/bin/hipcc" "$(json_field "$b-launcher.json" '"%s %s %s" % (d["ok"], d["languages"][0]["launcher"], d["languages"][0]["compiler"])')" "$gen, launcher: JSON"
  done
  # The verdicts are what the builds do: the shimmed tree's 3 compiles reach ccache, the plain
  # tree's none, the launcher tree's 3.
  "$SHIMCTL" measure --json -- cmake --build "$TEST_DIR/Ninja-shimmed" > "$TEST_DIR/shimmed.json" \
    2>"$TEST_DIR/shimmed.err" || fail "shimmed build failed: $(tail -20 "$TEST_DIR/shimmed.err")"
  expect_eq 3 "$(json_field "$TEST_DIR/shimmed.json" 'd["compiles"]')" "compiles through the shim"
  "$SHIMCTL" measure --json -- cmake --build "$TEST_DIR/Unix_Makefiles-plain" > "$TEST_DIR/plain.json" \
    2>"$TEST_DIR/plain.err" || fail "plain build failed: $(tail -20 "$TEST_DIR/plain.err")"
  expect_eq 0 "$(json_field "$TEST_DIR/plain.json" 'd["compiles"]')" "compiles through plain hipcc"
  file "$TEST_DIR/Unix_Makefiles-plain/k" | grep -q ELF || fail "plain hipcc built no executable k"
  "$SHIMCTL" measure --json -- cmake --build "$TEST_DIR/Unix_Makefiles-launcher" > "$TEST_DIR/launcher.json" \
    2>"$TEST_DIR/launcher.err" || fail "launcher build failed: $(tail -20 "$TEST_DIR/launcher.err")"
  expect_eq 3 "$(json_field "$TEST_DIR/launcher.json" 'd["compiles"]')" "compiles through the launcher"
}

test_measure_names_calls_no_cache_can_store() {
  TEST "measure: Inductor's one-step calls, links and -E probes are named by kind, never counted as misses"
  prefixes
  mkdir -p "$TEST_DIR/w" && cd "$TEST_DIR/w" || fail "cd"
  printf '#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] *= 2; }\nextern "C" int f() { return 1; }\n' > k.cpp
  # PyTorch Inductor's ROCm shape: realpath(ROCM_HOME/llvm/bin/clang), one step to a shared object
  # (an explicit --offload-arch here: there is no GPU for "native").
  local clang
  clang=$(realpath "$SHIMMED/llvm/bin/clang")
  cat > build.sh <<EOF
set -e
"$clang" -x hip --offload-arch=gfx90a -fPIC -shared -O2 k.cpp -o k.so
"$SHIMMED/bin/hipcc" -x hip --offload-arch=gfx90a -fPIC -c k.cpp -o k.o
"$SHIMMED/bin/hipcc" -shared k.o -o k2.so
"$SHIMMED/bin/hipcc" -mcumode -x hip -E -P /dev/null -o /dev/null
EOF
  "$SHIMCTL" measure --json -- bash build.sh > m.json 2> m.err || fail "the build failed: $(tail -5 m.err)"
  [ -s k.so ] && [ -s k2.so ] || fail "no shared objects built"
  expect_eq "ccache 1 1 0 1" "$(json_field m.json '"%s %d %d %d %d" % (d["tool"], d["calls"], d["compiles"], d["hits"], d["misses"])')" "tool calls compiles hits misses"
  # The shim's own calls, by reason; none of them is ccache's (issue 23 item 9).
  expect_eq '{"link": 1, "one_step_compile_and_link": 1, "preprocess": 1} {}' \
    "$(json_field m.json 'json.dumps(d["not_sent"], sort_keys=True) + " " + json.dumps(d["uncacheable"])')" \
    "the shim's calls; ccache's not-cacheable calls"
  # Only the -c compile reached ccache.
  expect_eq 1 "$(ccache_stat "$CCACHE_DIR" cache_miss)" "ccache's misses"
  expect_eq 0 "$(ccache_stat "$CCACHE_DIR" called_for_link)" "links ccache saw"
  local out
  out=$("$SHIMCTL" measure -- bash build.sh 2>&1 >/dev/null) || fail "second build failed"
  expect_contains "$out" "1 compiles through the cache: 1 hits, 0 misses, hit rate 100.0% (ccache)" "text summary"
  expect_contains "$out" "3 calls the shim ran without the cache: 1 link, 1 one_step_compile_and_link, 1 preprocess" \
    "text names the shim's calls"
  # SHIMCTL_DISABLE=1: nothing reaches a tool, and measure says why.
  out=$(SHIMCTL_DISABLE=1 "$SHIMCTL" measure --json -- bash build.sh 2>/dev/null) || fail "disabled build failed"
  expect_eq 'none 0 {}' \
    "$(python3 -c 'import json, sys; d = json.loads(sys.argv[1]); print(d["tool"], d["calls"], json.dumps(d["not_sent"]))' "$out")" \
    "SHIMCTL_DISABLE=1: tool, calls, the shim's calls"
  expect_contains "$out" "SHIMCTL_DISABLE=1 is set: the shims ran every call without the cache" "SHIMCTL_DISABLE=1: the warning"
}

test_measure_sccache_counts_are_sccaches() {
  TEST "measure with sccache 0.4 (a server on a TCP port): calls, hits and misses are sccache's own; HIP is its not-cacheable call"
  command -v sccache >/dev/null || { echo "    (sccache is not installed: nothing to measure)"; return 0; }
  prefixes
  local p=$TEST_DIR/scprefix b=$TEST_DIR/b
  copy_rocm_prefix "$p"
  mkdir -p "$p/lib/cmake" && ln -s /usr/lib/x86_64-linux-gnu/cmake/hip-lang "$p/lib/cmake/hip-lang"
  "$SHIMCTL" install "$p" --no-verify --compilers clang,hipcc --cache sccache --cache-dir "$TEST_DIR/sc" \
    >"$TEST_DIR/install.out" 2>&1 || fail "install --cache sccache failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  sc_server_of "$p" # SC_SERVER: this user's usual server (SCCACHE_SERVER_PORT=...)
  trap sc_stop_servers EXIT
  configure "$b" "$p" # its C and C++ checks compile through the usual server
  local usual=none
  answers "$SC_SERVER" && usual=$(server_counts "$SC_SERVER")
  measured cold "$b"
  expect_usual_unmoved "$usual"
  expect_eq 1 "$(wc -l < "$TEST_DIR/cold.servers")" \
    "servers the cold build used (the shim's last event: $(tail -1 "$p/.shimctl/events.log" 2>/dev/null))"
  grep -q "^measured $(command -v sccache) SCCACHE_SERVER_PORT=" "$TEST_DIR/cold.shim-log" \
    || fail "no record of a server of the build's own:"$'\n'"$(cat "$TEST_DIR/cold.shim-log")"
  expect_eq "$(own cold)" "$(field cold '"%d %d %d" % (d["calls"], d["hits"], d["misses"])')" \
    "measure's calls hits misses against sccache's own statistics of the cold build"
  # a.c and b.cpp are misses; sccache 0.4 does not cache HIP (its own not-cacheable count).
  expect_eq "sccache 3 2 0 2 1" \
    "$(field cold '"%s %d %d %d %d %d" % (d["tool"], d["calls"], d["compiles"], d["hits"], d["misses"], sum(d["uncacheable"].values()))')" \
    "cold: tool calls compiles hits misses not-cacheable"
  expect_eq "{}" "$(field cold 'json.dumps(d["not_sent"])')" "cold: the shim's calls (a static library: no link)"
  expect_stopped cold
  rm -rf "$b" && configure "$b" "$p" # a fresh tree at the same path
  usual=none
  answers "$SC_SERVER" && usual=$(server_counts "$SC_SERVER")
  measured warm "$b"
  expect_usual_unmoved "$usual"
  expect_eq "$(own warm)" "$(field warm '"%d %d %d" % (d["calls"], d["hits"], d["misses"])')" \
    "measure's calls hits misses against sccache's own statistics of the warm build"
  expect_eq "3 2 2 0" "$(field warm '"%d %d %d %d" % (d["calls"], d["compiles"], d["hits"], d["misses"])')" \
    "warm: calls compiles hits misses"
  expect_stopped warm
  # The control: the same build without measure through the usual server (restarted: it reads
  # the entries the measured builds stored) moves its statistics by what measure said.
  answers "$SC_SERVER" && stop_server "$SC_SERVER"
  wait_until 30 "the usual server stopped" eval "! answers '$SC_SERVER'"
  rm -rf "$b" && configure "$b" "$p"
  local before after c0 h0 m0 c1 h1 m1
  before=$(server_counts "$SC_SERVER") || return
  cmake --build "$b" >"$TEST_DIR/control.log" 2>&1 || fail "control build failed:"$'\n'"$(tail -30 "$TEST_DIR/control.log")"
  after=$(server_counts "$SC_SERVER") || return
  read -r c0 h0 m0 <<<"$before"
  read -r c1 h1 m1 <<<"$after"
  expect_eq "3 2 0" "$((c1 - c0)) $((h1 - h0)) $((m1 - m0))" "the control build's calls hits misses (sccache --show-stats)"
}
