# Shared by rocm.bash (LLVM=15) and rocm16.bash (LLVM=16): end-to-end tests of
# `shimctl install/verify/status/rollback` on a ROCm-shaped prefix built by
# scripts/make-rocm-prefix from Debian's ROCm 5.2 files and clang-$LLVM.
# Not a suite itself (the runner only picks up test_* functions from the suite file):
# each suite defines thin test_* wrappers around the rocm_* functions here.
# Every test works on its own copy of the suite's fixture prefix ($TEST_DIR/prefix) and its
# own cache dir ($TEST_DIR/ccache, given to install with --cache-dir).

rocm_requires() {
  command -v ccache >/dev/null && [ -x "/usr/lib/llvm-$LLVM/bin/clang" ] && [ -f /usr/bin/hipcc.pl ] \
    && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ] && /usr/bin/python3 -c 'import jsonschema' 2>/dev/null
}

HIP_ARGS=(-x hip --offload-arch=gfx90a -c k.hip -o k.o)

# new_prefix [layout]: P = a private copy of the fixture prefix; CC = this test's cache dir.
# With STACK=sid (a sid suite, LLVM=21) the fixture is the ROCm-7-shaped one (rocm_prefix sid).
new_prefix() {
  local fixture
  if [ "${STACK:-debian12}" = sid ]; then
    fixture=$(rocm_prefix sid) || fail "cannot build the ROCm-7 (sid) fixture prefix"
  else
    fixture=$(rocm_prefix "$LLVM" "${1:-rocm}") || fail "cannot build the clang-$LLVM fixture prefix"
  fi
  P=$TEST_DIR/prefix
  CC=$TEST_DIR/ccache
  cp -a "$fixture" "$P" || fail "cannot copy $fixture"
}

# install_prefix [ARGS...]: shimctl install $P with this test's cache dir; output in $TEST_DIR/install.out.
install_prefix() {
  "$SHIMCTL" install "$P" --cache-dir "$CC" "$@" > "$TEST_DIR/install.out" 2>&1 \
    || fail "install $* failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
}

# fresh_dir NAME: a new directory under $TEST_DIR holding k.hip (and a.c, a.cpp); cd into it.
fresh_dir() {
  mkdir -p "$TEST_DIR/$1" && cd "$TEST_DIR/$1" || fail "cannot make $1"
  cat > k.hip <<'EOF'
#include <hip/hip_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
EOF
  printf '#define ANSWER 42\nint answer(void) { return ANSWER; }\n' > a.c
  printf '#include <cstdio>\nint main() {\n#ifdef SHIMCTL_TEST_CXX_CFG\n  std::puts("cfg");\n#else\n  std::puts("nocfg");\n#endif\n}\n' > a.cpp
}

# Counters of this test's cache: results = cache entries (files ending in R; manifests end in M).
# Newer ccache (4.14.2 in sid) names entries by hash alone: there the entry header's fourth byte
# gives the type (0 result, 1 manifest).
results_in() {
  local n f
  n=$(find "$1" -type f -name '*R' 2>/dev/null | wc -l)
  while IFS= read -r -d '' f; do
    case $(od -A n -t x1 -N 4 "$f" | tr -d ' \n') in ccac??00) n=$((n + 1)) ;; esac
  done < <(find "$1" -type f -regex '.*/[0-9a-f]+' -print0 2>/dev/null)
  echo "$n"
}
hits_in() { echo $(($(ccache_stat "$1" direct_cache_hit) + $(ccache_stat "$1" preprocessed_cache_hit))); }

is_shim() { cmp -s "$SHIM_BIN" "$1"; }

# ---- hipcc through the shim: absolute path, relative path, bare name through PATH --------------
rocm_hipcc_paths() {
  TEST "hipcc (clang-$LLVM) by absolute, relative path and PATH: one entry, hits, object equals unshimmed"
  new_prefix
  fresh_dir ref
  # The unshimmed compile with the -cuid= the shim gives this command (clang-21 names a symbol
  # after it; clang-15/16 objects do not change).
  "$P/bin/hipcc" "${HIP_ARGS[@]}" -cuid="$(shim_cuid k.hip k.o)" || fail "unshimmed hipcc compile failed"
  install_prefix --no-verify
  is_shim "$P/bin/hipcc" || fail "bin/hipcc is not the shim"
  is_shim "$P/llvm/bin/clang" || fail "llvm/bin/clang is not the shim"

  fresh_dir abs
  "$P/bin/hipcc" "${HIP_ARGS[@]}" || fail "hipcc through the shim failed"
  expect_same_file "$TEST_DIR/ref/k.o" k.o
  # hipcc -> clang++-15 with both wrapped: one miss, one cache entry.
  expect_eq 1 "$(ccache_stat "$CC" cache_miss)" "cache misses after the first compile"
  expect_eq 1 "$(results_in "$CC")" "cache entries after the first compile"
  expect_eq 0 "$(hits_in "$CC")" "hits after the first compile"

  fresh_dir abs2
  "$P/bin/hipcc" "${HIP_ARGS[@]}" || fail "second compile by absolute path failed"
  expect_same_file "$TEST_DIR/ref/k.o" k.o
  expect_eq 1 "$(hits_in "$CC")" "hits after the repeat by absolute path"

  fresh_dir rel
  ../prefix/bin/hipcc "${HIP_ARGS[@]}" || fail "compile by relative path failed"
  expect_same_file "$TEST_DIR/ref/k.o" k.o
  expect_eq 2 "$(hits_in "$CC")" "hits after the repeat by relative path"

  fresh_dir path
  PATH=$P/bin:$PATH hipcc "${HIP_ARGS[@]}" || fail "compile through PATH failed"
  expect_same_file "$TEST_DIR/ref/k.o" k.o
  expect_eq 3 "$(hits_in "$CC")" "hits after the repeat through PATH"
  expect_eq 1 "$(ccache_stat "$CC" cache_miss)" "cache misses in the end"
  expect_eq 1 "$(results_in "$CC")" "cache entries in the end"
}

# ---- every alias behaves as before ------------------------------------------------------------
# alias_outputs DIR: what each alias of the prefix's clang does, with the executable's own
# name (clang or clang.real) normalised away.
alias_outputs() {
  local out=$1 b=$P/llvm/bin
  mkdir -p "$out"
  norm() { sed -e 's/clang\.real/clang/g'; }
  "$b/clang-cpp" a.c > "$out/cpp.txt" 2>&1 || echo "rc=$?" >> "$out/cpp.txt"
  "$b/clang++" a.cpp -o "$out/prog" > "$out/link.txt" 2>&1 || echo "rc=$?" >> "$out/link.txt"
  "$out/prog" > "$out/prog.txt" 2>&1 || echo "rc=$?" >> "$out/prog.txt"
  "$b/clang++" -dM -E -x c++ /dev/null 2>&1 | grep SHIMCTL_TEST > "$out/macros.txt"
  # The help's USAGE line shows the executable's own name (clang.real after install).
  { "$b/clang-cl" '/?' 2>&1 || echo "rc=$?"; } | norm > "$out/cl-help.txt"
  "$b/clang-cl" -### -c a.c 2>&1 | norm > "$out/cl-jobs.txt"
  "$b/clang-$LLVM" --version 2>&1 | norm > "$out/version.txt"
  "$b/clang-$LLVM" -### -c a.c 2>&1 | norm > "$out/clang-v-jobs.txt"
  "$b/clang++-15" -### -c a.cpp 2>&1 | norm > "$out/clangxx15-jobs.txt"
  "$b/clang++" -### -c a.cpp 2>&1 | norm > "$out/clangxx-jobs.txt"
  "$b/amdclang++" -### -c a.cpp 2>&1 | norm > "$out/amdclangxx-jobs.txt"
  "$b/clang" -### -c a.c 2>&1 | norm > "$out/clang-jobs.txt"
}

rocm_aliases() {
  TEST "every clang-$LLVM alias keeps its behaviour (clang-cpp, clang++ + clang++.cfg, clang-cl, clang-$LLVM)"
  new_prefix
  fresh_dir work
  alias_outputs "$TEST_DIR/before"
  install_prefix --no-verify
  is_shim "$P/llvm/bin/clang" || fail "llvm/bin/clang is not the shim"
  [ -L "$P/llvm/bin/clang-cl" ] || fail "clang-cl is no longer a symlink"
  alias_outputs "$TEST_DIR/after"
  local f
  for f in "$TEST_DIR"/before/*.txt; do
    diff -u "$f" "$TEST_DIR/after/$(basename "$f")" > "$TEST_DIR/diff.txt" \
      || fail "$(basename "$f") differs after install:"$'\n'"$(head -30 "$TEST_DIR/diff.txt")"
  done
  # And each one behaves as it should, not merely as before.
  expect_contains "$(cat "$TEST_DIR/after/cpp.txt")" "return 42;" "clang-cpp preprocesses"
  expect_contains "$(cat "$TEST_DIR/after/cl-jobs.txt")" "windows-msvc" "clang-cl keeps cl mode"
  expect_contains "$(cat "$TEST_DIR/after/cl-help.txt")" "/Zi" "clang-cl /? lists cl options"
  expect_contains "$(cat "$TEST_DIR/after/version.txt")" "clang version $LLVM." "clang-$LLVM --version"
  expect_contains "$(cat "$TEST_DIR/after/clangxx15-jobs.txt")" '"-x" "c++"' "clang++-15 is the C++ driver"
  if [ "$LLVM" -ge 16 ]; then
    # clang >= 16 reads clang++.cfg by the invoked name; the fixture's defines SHIMCTL_TEST_CXX_CFG.
    expect_eq cfg "$(cat "$TEST_DIR/after/prog.txt")" "program linked by clang++ (reads clang++.cfg)"
    expect_contains "$(cat "$TEST_DIR/after/macros.txt")" "SHIMCTL_TEST_CXX_CFG 1" "clang++ -dM -E"
  else
    # clang 15 reads no default config file at all; the program still links and runs.
    expect_eq nocfg "$(cat "$TEST_DIR/after/prog.txt")" "program linked by clang++"
  fi
}

# ---- a launcher on top: ccache PREFIX/llvm/bin/clang++ ------------------------------------------
rocm_launcher() {
  TEST "ccache as a launcher above the clang-$LLVM shim: one cache entry, correct object"
  new_prefix
  fresh_dir ref
  "$P/llvm/bin/clang++" -O2 -c a.cpp -o a.o || fail "unshimmed clang++ failed"
  install_prefix --no-verify
  fresh_dir launch
  local L=$TEST_DIR/launcher-cache
  CCACHE_DIR=$L ccache "$P/llvm/bin/clang++" -O2 -c a.cpp -o a.o || fail "ccache clang++ failed"
  expect_same_file "$TEST_DIR/ref/a.o" a.o
  expect_eq 1 "$(ccache_stat "$L" cache_miss)" "launcher cache misses"
  expect_eq 1 "$(results_in "$L")" "launcher cache entries"
  expect_eq 0 "$(results_in "$CC")" "entries in the shim's own cache (must not cache twice)"
  fresh_dir launch2
  CCACHE_DIR=$L ccache "$P/llvm/bin/clang++" -O2 -c a.cpp -o a.o || fail "ccache clang++ repeat failed"
  expect_same_file "$TEST_DIR/ref/a.o" a.o
  expect_eq 1 "$(hits_in "$L")" "launcher hits on repeat"
  expect_eq 1 "$(results_in "$L")" "launcher cache entries after the repeat"
}

# ---- install with verification, verify, status, rollback: the prefix is as before ---------------
rocm_install_rollback() {
  TEST "clang-$LLVM: install (verified), verify, status, install again, rollback: tree equal, manifest valid"
  new_prefix
  tree_listing "$P" > "$TEST_DIR/before.lst"
  install_prefix
  validate_manifest "$P/.shimctl/manifest.json"
  is_shim "$P/bin/hipcc" || fail "bin/hipcc is not the shim"
  [ -f "$P/bin/hipcc.real" ] && [ -f "$P/llvm/bin/clang.real" ] || fail "no .real originals"
  tree_listing "$P" > "$TEST_DIR/installed.lst"
  cp "$P/.shimctl/manifest.json" "$TEST_DIR/manifest.json"

  local out rc
  out=$("$SHIMCTL" verify "$P" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code (output: $out)"
  out=$("$SHIMCTL" status "$P" 2>&1) || fail "status failed: $out"
  expect_contains "$out" "bin/hipcc" "status names the wrapped hipcc"
  expect_contains "$out" "$CC" "status shows the cache dir"

  # A second install changes nothing.
  out=$("$SHIMCTL" install "$P" --cache-dir "$CC" 2>&1) || fail "second install failed: $out"
  expect_contains "$out" "already installed; nothing changed" "second install"
  expect_same_tree "$TEST_DIR/installed.lst" "$P"
  expect_same_file "$TEST_DIR/manifest.json" "$P/.shimctl/manifest.json"

  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "rolled back" "rollback output"
  expect_same_tree "$TEST_DIR/before.lst" "$P"
  [ ! -e "$P/.shimctl/manifest.json" ] || fail "manifest left behind after rollback"
  # Idempotent.
  out=$("$SHIMCTL" rollback "$P" 2>&1) || fail "second rollback failed: $out"
  expect_same_tree "$TEST_DIR/before.lst" "$P"
}

# ---- --offload-arch=native: keyed by what the compiler itself runs (amdgpu-arch; offload-arch,
# which clang >= 23 runs and LLVM >= 20's amdgpu-arch links to, where it exists) ------------------
# native_compile OUT COMPILER [ENV...]: COMPILER -x hip --offload-arch=native -c k.hip -o k.o, then
# k.o moved to OUT (one -o name: the shim's CUID follows it). FRESH=1: the original, no cache.
native_compile() {
  local out=$1 compiler=$2; shift 2
  env "$@" ${FRESH:+SHIMCTL_DISABLE=1} "$compiler" -x hip --offload-arch=native -c k.hip -o k.o \
    >"$TEST_DIR/compile.out" 2>&1 && mv k.o "$out" \
    || fail "$compiler --offload-arch=native -o $out failed:"$'\n'"$(cat "$TEST_DIR/compile.out")"
}

rocm_native_target() {
  TEST "--offload-arch=native (clang-$LLVM, hipcc): keyed by the GPU probe's answer, probed once; another GPU misses"
  new_prefix
  export XDG_CACHE_HOME=$TEST_DIR/xdg # the shim's probe memo
  local clang=$P/llvm/bin/clang++ arch=$P/llvm/bin/amdgpu-arch runs=$TEST_DIR/arch.runs
  [ -e "$P/llvm/bin/offload-arch" ] && arch=$P/llvm/bin/offload-arch
  install_prefix --no-verify
  local conf; conf=$(dirname "$(realpath "$clang")")/.shimctl.conf
  grep -q "^native-probe [^ ]* $(dirname "$(realpath "$clang")")/$(basename "$arch")$" "$conf" \
    || fail "no native-probe line for clang naming $(basename "$arch") in $conf:"$'\n'"$(cat "$conf")"
  fresh_dir native
  fake_probe "$arch" "$runs" 'gfx90a\n'
  local i
  for i in 1 2 3; do native_compile n$i.o "$clang"; done
  expect_eq 1 "$(wc -l < "$runs")" "$(basename "$arch") runs by the shim for 3 native compiles"
  expect_eq "misses=1 hits=2" "misses=$(ccache_stat "$CC" cache_miss) hits=$(hits_in "$CC")" "cache counters"
  expect_same_file n1.o n2.o
  expect_same_file n1.o n3.o
  # The object equals an uncached compile for the GPU the probe names.
  SHIMCTL_DISABLE=1 "$clang" -x hip --offload-arch=gfx90a -c k.hip -o k.o || fail "gfx90a reference"
  mv k.o ref90a.o
  expect_same_file ref90a.o n1.o
  # Another GPU (the probe's answer changes): probed again, a miss, that GPU's object.
  fake_probe "$arch" "$runs" 'gfx1030\n'
  native_compile g1.o "$clang"
  native_compile g2.o "$clang"
  expect_eq 2 "$(wc -l < "$runs")" "runs after the GPU changed"
  expect_eq "misses=2 hits=3" "misses=$(ccache_stat "$CC" cache_miss) hits=$(hits_in "$CC")" "cache counters"
  SHIMCTL_DISABLE=1 "$clang" -x hip --offload-arch=gfx1030 -c k.hip -o k.o || fail "gfx1030 reference"
  mv k.o ref1030.o
  cmp -s ref90a.o ref1030.o && fail "gfx90a and gfx1030 objects are equal: the test proves nothing"
  expect_same_file ref1030.o g1.o
  expect_same_file ref1030.o g2.o
  # A visibility variable: probed again, its own key.
  native_compile v1.o "$clang" HIP_VISIBLE_DEVICES=0
  expect_eq 3 "$(wc -l < "$runs")" "runs with HIP_VISIBLE_DEVICES=0"
  expect_eq 3 "$(ccache_stat "$CC" cache_miss)" "misses with HIP_VISIBLE_DEVICES=0"
  # hipcc hands --offload-arch=native to its clang: keyed by the same probe.
  native_compile h1.o "$P/bin/hipcc"
  native_compile h2.o "$P/bin/hipcc"
  expect_eq "misses=4 hits=4" "misses=$(ccache_stat "$CC" cache_miss) hits=$(hits_in "$CC")" "counters after hipcc"
  # (one memo per probe, holding the last answer: the HIP_VISIBLE_DEVICES one was replaced once)
  expect_eq 4 "$(wc -l < "$runs")" "runs after two hipcc compiles"
  FRESH=1 native_compile href.o "$P/bin/hipcc"
  expect_same_file href.o h1.o
  expect_same_file href.o h2.o
  # No GPU (the probe fails): uncached, and the compile fails exactly as without the shim.
  fake_probe "$arch" "$runs" '' 1
  local rc_shim rc_orig
  "$clang" -x hip --offload-arch=native -c k.hip -o k.o > shim.err 2>&1; rc_shim=$?
  SHIMCTL_DISABLE=1 "$clang" -x hip --offload-arch=native -c k.hip -o k.o > orig.err 2>&1; rc_orig=$?
  [ "$rc_orig" -ne 0 ] || fail "clang succeeded without a GPU: the test proves nothing"
  expect_eq "$rc_orig" "$rc_shim" "exit code without a GPU (shim vs original)"
  expect_eq "$(grep error orig.err | head -1)" "$(grep error shim.err | head -1)" "error without a GPU"
  expect_eq "misses=4 hits=4" "misses=$(ccache_stat "$CC" cache_miss) hits=$(hits_in "$CC")" "counters after a failing probe"
}

# ---- fresh build directories when every command names build-directory paths (issue 13) -----------
# build_paths_project DIR: hipCUB's test shape in small: a header generated into the build
# directory (configure_file) and -I<build dir>/include on every compile, hipcc as the CXX compiler.
build_paths_project() {
  mkdir -p "$1/src" "$1/include/bp" || fail "cannot make $1"
  cat > "$1/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.16)
project(build_paths LANGUAGES CXX)
set(BP_BLOCK 256)
configure_file(config.h.in ${CMAKE_CURRENT_BINARY_DIR}/include/bp/config.h)
add_library(bp STATIC src/u0.cpp src/u1.cpp src/u2.cpp)
target_include_directories(bp PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/include ${CMAKE_CURRENT_SOURCE_DIR}/include)
target_compile_options(bp PRIVATE -x hip --offload-arch=gfx90a)
EOF
  printf '#pragma once\n#define BP_BLOCK @BP_BLOCK@\n' > "$1/config.h.in"
  printf '#pragma once\n#include <hip/hip_runtime.h>\n#include <bp/config.h>\n' > "$1/include/bp/common.h"
  local i
  for i in 0 1 2; do
    printf '#include <bp/common.h>\n__global__ void k%s(float* x) { x[threadIdx.x] *= BP_BLOCK + %s; }\nconst char* where%s() { return __FILE__; }\n' \
      "$i" "$i" "$i" > "$1/src/u$i.cpp"
  done
}

# bp_configure SOURCE BUILD [CMAKE ARGS]: its compiler checks go to another cache.
bp_configure() {
  local src=$1 build=$2; shift 2
  CCACHE_DIR=$TEST_DIR/configure-ccache cmake -S "$src" -B "$build" -G Ninja \
    -DCMAKE_CXX_COMPILER="$P/bin/hipcc" "$@" > "$build.configure.log" 2>&1 \
    || fail "cmake configure of $build failed:"$'\n'"$(tail -30 "$build.configure.log")"
}

bp_build() { # BUILD [ENV...]
  local build=$1; shift
  env "$@" cmake --build "$build" > "$build.build.log" 2>&1 \
    || fail "build of $build failed:"$'\n'"$(tail -30 "$build.build.log")"
}

bp_objects() { find "$1/CMakeFiles/bp.dir/src" -name '*.o' | sort; }

# counts: "direct=N preprocessed=N misses=N" of this test's cache.
bp_counts() {
  echo "direct=$(ccache_stat "$CC" direct_cache_hit) preprocessed=$(ccache_stat "$CC" preprocessed_cache_hit) misses=$(ccache_stat "$CC" cache_miss)"
}

rocm_fresh_build_dir_paths() {
  TEST "fresh build dirs with -I<build dir> paths hit (base_dir = the build tree); -g objects and depfiles keep their own dir"
  new_prefix
  install_prefix --no-verify
  export CCACHE_DIR=$CC
  local src=$TEST_DIR/src o
  build_paths_project "$src"
  bp_configure "$src" "$TEST_DIR/b1"
  bp_build "$TEST_DIR/b1"
  expect_eq "direct=0 preprocessed=0 misses=3" "$(bp_counts)" "b1 (cold)"
  grep -q -- "-I$TEST_DIR/b1/include" "$TEST_DIR/b1/build.ninja" || fail "b1's commands name no build-dir include path"
  # The control: without a base_dir, another build dir misses every compile (its -I paths differ).
  bp_configure "$src" "$TEST_DIR/b2"
  bp_build "$TEST_DIR/b2" CCACHE_BASEDIR=
  expect_eq "direct=0 preprocessed=0 misses=6" "$(bp_counts)" "b2 (CCACHE_BASEDIR= : no base_dir)"
  # The default: a fresh build dir hits every compile in direct mode, with b1's objects.
  bp_configure "$src" "$TEST_DIR/b3"
  bp_build "$TEST_DIR/b3"
  expect_eq "direct=3 preprocessed=0 misses=6" "$(bp_counts)" "b3 (fresh build dir)"
  for o in $(bp_objects "$TEST_DIR/b1"); do expect_same_file "$o" "$TEST_DIR/b3/${o#"$TEST_DIR/b1/"}"; done
  # Its dependency records name b3's generated header, never b1's: a change there rebuilds b3.
  local deps; deps=$(ninja -C "$TEST_DIR/b3" -t deps)
  expect_contains "$deps" "include/bp/config.h" "b3's recorded dependencies"
  [[ $deps == *"$TEST_DIR/b1"* ]] && fail "b3's dependencies name b1:"$'\n'"$deps"
  sed -i 's/256/128/' "$TEST_DIR/b3/include/bp/config.h"
  bp_build "$TEST_DIR/b3"
  expect_eq "direct=3 preprocessed=0 misses=9" "$(bp_counts)" "b3 after its generated header changed"
  cmp -s "$TEST_DIR/b1/CMakeFiles/bp.dir/src/u0.cpp.o" "$TEST_DIR/b3/CMakeFiles/bp.dir/src/u0.cpp.o" \
    && fail "b3's object did not change with its header"
  # -g: the directory stays in the key (ccache's hash_dir): b5 is not served b4's debug info; a
  # clean rebuild of b5 hits with exactly b5's objects.
  bp_configure "$src" "$TEST_DIR/b4" -DCMAKE_BUILD_TYPE=Debug
  bp_build "$TEST_DIR/b4"
  bp_configure "$src" "$TEST_DIR/b5" -DCMAKE_BUILD_TYPE=Debug
  bp_build "$TEST_DIR/b5"
  expect_eq "direct=3 preprocessed=0 misses=15" "$(bp_counts)" "b4, b5 (-g)"
  for o in $(bp_objects "$TEST_DIR/b5"); do
    grep -q "$TEST_DIR/b5" "$o" || fail "$o does not name its build dir"
    grep -q "$TEST_DIR/b4" "$o" && fail "$o names another build dir (b4)"
    cp "$o" "$o.first"
  done
  cmake --build "$TEST_DIR/b5" --target clean > /dev/null 2>&1 || fail "clean b5"
  bp_build "$TEST_DIR/b5"
  expect_eq "direct=6 preprocessed=0 misses=15" "$(bp_counts)" "b5 rebuilt"
  for o in $(bp_objects "$TEST_DIR/b5"); do expect_same_file "$o.first" "$o"; done
  # A generated HIP source named by absolute path from a subdirectory of the build tree (where the
  # Makefiles generator runs compiles): the shim's -cuid= is made of the path as ccache passes it
  # (../gen/g.hip), so another build tree hits, with the object a fresh compile there makes.
  local t
  for t in m1 m2; do
    mkdir -p "$TEST_DIR/$t/gen" "$TEST_DIR/$t/sub" && : > "$TEST_DIR/$t/CMakeCache.txt" || fail "cannot make $t"
    printf '#include <hip/hip_runtime.h>\n__global__ void g(float* x) { x[0] = 1; }\n' > "$TEST_DIR/$t/gen/g.hip"
    (cd "$TEST_DIR/$t/sub" && "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c "$TEST_DIR/$t/gen/g.hip" -o g.o) \
      || fail "compile of the generated source in $t"
  done
  expect_eq "direct=7 preprocessed=0 misses=16" "$(bp_counts)" "a generated source in two build trees"
  expect_same_file "$TEST_DIR/m1/sub/g.o" "$TEST_DIR/m2/sub/g.o"
  (cd "$TEST_DIR/m2/sub" && SHIMCTL_DISABLE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -c "$TEST_DIR/m2/gen/g.hip" -o g.o \
    && cmp -s g.o "$TEST_DIR/m1/sub/g.o") || fail "the hit in m2 differs from a fresh compile there"
}
