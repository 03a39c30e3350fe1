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
