# The sid leg's end-to-end suite: shimctl's core guarantees on a ROCm-7-shaped /opt/rocm built from
# Debian sid's hipcc 7.0.2 (hipBin), clang-21 and rocm-device-libs-21, with ccache 4.14.2.
# Runs inside the sid root (scripts/test-sid). /opt and /etc/alternatives are private to the suite
# (private_mounts, private_opt_rocm7): /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-7.0.2,
# built once; a test that compares "before" with "after" rolls it back first (opt_pristine) and
# installs it again (opt_install). Tests on a copy of the prefix reuse rocm_common.bash (STACK=sid).

LLVM=$SID_LLVM
STACK=sid
source "$(dirname "${BASH_SOURCE[0]}")/rocm_common.bash"
private_mounts

suite_requires() {
  command -v ccache >/dev/null && command -v cmake >/dev/null && command -v ninja >/dev/null \
    && [ -x "/usr/lib/llvm-$SID_LLVM/bin/clang" ] && file -L /usr/bin/hipcc 2>/dev/null | grep -q ELF \
    && [ -x "$SHIMCTL" ] && [ -x "$SHIM_BIN" ]
}

OPT=/opt/rocm
# The three compilers of the ROCm-7 layout; every other name is a symlink to one of them.
WRAPPED=(bin/hipcc "lib/llvm/bin/clang-$SID_LLVM" lib/llvm/bin/amdllvm)

# opt_pristine: /opt/rocm-7.0.2 built (once per suite) and not installed (a test left it so: rolled back).
opt_pristine() {
  private_opt_rocm7 || exit 1
  [ -e "$ROCM7/.shimctl/manifest.json" ] || return 0
  "$SHIMCTL" rollback "$OPT" > "$TEST_DIR/rollback.out" 2>&1 \
    || fail "rollback of $OPT before the test failed:"$'\n'"$(cat "$TEST_DIR/rollback.out")"
}

# opt_install: install through /opt/rocm without the verification (the first test verifies); the
# install's cache dir is the suite's, the test's compiles go to its own CCACHE_DIR (the environment
# wins over the shim's default).
opt_install() {
  env -u CCACHE_DIR "$SHIMCTL" install "$OPT" --cache-dir "$SUITE_TMP/opt-ccache" --no-verify \
    > "$TEST_DIR/install.out" 2>&1 || fail "install $OPT failed:"$'\n'"$(cat "$TEST_DIR/install.out")"
  local f
  for f in "${WRAPPED[@]}"; do is_shim "$ROCM7/$f" || fail "$ROCM7/$f is not the shim"; done
}

# own_cache: this test's compiles go to CC=$TEST_DIR/ccache.
own_cache() { CC=$TEST_DIR/ccache; export CCACHE_DIR=$CC; }

# alt_links: the alternatives chain as stat sees it (target, inode, owner, mtime of each link).
alt_links() { stat -c '%N %i %u:%g %Y' /opt/rocm /etc/alternatives/rocm; }

# work_dir NAME: a fresh directory $TEST_DIR/NAME; cd into it.
work_dir() { mkdir -p "$TEST_DIR/$1" && cd "$TEST_DIR/$1" || fail "cannot make $1"; }

write_kernel() { # FILE
  cat > "$1" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
EOF
}

# norm: a job list or message with the originals' names (NAME.real) and clang's random temporary
# file names normalised away.
norm() {
  sed -E -e "s#(hipcc|clang-$SID_LLVM|amdllvm)\\.real#\\1#g" -e 's#/tmp/[^/" ]*-[0-9a-f]{6}(/[^" ]*)?#TMP#g'
}

# ---- install / verify / status / rollback through the alternatives chain -----------------------
test_install_verify_status_rollback() {
  TEST "install through /opt/rocm (alternatives chain), verify, status, rollback: tree and links as before"
  opt_pristine
  CC=$TEST_DIR/ccache
  alt_links > alt.before
  tree_listing "$ROCM7" > before.lst
  local out rc f
  # Verified once, below (install's own verification is the same code).
  out=$("$SHIMCTL" install "$OPT" --cache-dir "$CC" --no-verify 2>&1) || fail "install $OPT failed:"$'\n'"$out"
  expect_contains "$out" "3 compiler(s) in $ROCM7 now go through ccache" "install summary"
  alt_links | diff -u alt.before - > alt.diff || fail "install changed the alternatives chain:"$'\n'"$(cat alt.diff)"
  # aiter's ROCM_HOME = dirname(dirname(realpath(which hipcc))): the shim is a regular file there.
  expect_eq "$ROCM7/bin/hipcc" "$(realpath "$OPT/bin/hipcc")" "realpath of $OPT/bin/hipcc"
  [ -f "$ROCM7/bin/hipcc" ] && [ ! -L "$ROCM7/bin/hipcc" ] || fail "bin/hipcc is not a regular file"
  # Install changed exactly: three compilers (now the shim), their .real originals (the original's
  # bytes, mode and owner), and one .shimctl.conf per directory. Nothing else, no alias.
  tree_listing "$ROCM7" > installed.lst
  expect_eq "./bin/.shimctl.conf ./bin/hipcc ./bin/hipcc.real ./lib/llvm/bin/.shimctl.conf \
./lib/llvm/bin/amdllvm ./lib/llvm/bin/amdllvm.real ./lib/llvm/bin/clang-$SID_LLVM ./lib/llvm/bin/clang-$SID_LLVM.real" \
    "$(comm -3 <(sort before.lst) <(sort installed.lst) | awk '{ print $2 }' | sort -u | xargs)" "paths install changed"
  for f in "${WRAPPED[@]}"; do
    is_shim "$ROCM7/$f" || fail "$f is not the shim"
    expect_eq "$(grep " ./$f " before.lst | sed "s# ./$f # ./$f.real #")" \
      "$(grep " ./$f.real " installed.lst)" "$f.real against the original"
  done

  # verify: exit 0, and the repeat-hit check reads ccache 4.14.2's debug log (regression: 4.10+
  # writes no stats log with CCACHE_NOSTATS=1, so a stats-log reader saw no hit).
  out=$("$SHIMCTL" verify "$OPT" 2>&1); rc=$?
  expect_eq 0 "$rc" "verify exit code (output: $out)"
  expect_contains "$out" "verify: all checks passed" "verify"
  for f in "${WRAPPED[@]}"; do
    grep -Eq "^$f +cache hit +ok +the repeat compile was a cache hit \(ccache's log\)$" <<<"$out" \
      || fail "no 'cache hit ok' from ccache's log for $f:"$'\n'"$out"
  done
  # The reference compile gets the shim's -cuid: byte-identical objects, clang-21's CUID included.
  grep -Eq "^bin/hipcc +reference +ok +identical to the original's object$" <<<"$out" \
    || fail "hipcc's object is not byte-identical to the original's:"$'\n'"$out"
  expect_eq "0 0 0" "$(ccache_stat "$CC" direct_cache_hit) $(ccache_stat "$CC" preprocessed_cache_hit) \
$(ccache_stat "$CC" cache_miss)" "ccache statistics after install and verify (verify counts nothing)"
  # status after one miss and one hit through /opt/rocm/bin/hipcc (the install's cache dir; a
  # source of its own: verify's compiles stored theirs there).
  work_dir s1; write_kernel k.hip; echo '// status' >> k.hip
  "$OPT/bin/hipcc" "${HIP_ARGS[@]}" || fail "compile through $OPT/bin/hipcc failed"
  work_dir s2; write_kernel k.hip; echo '// status' >> k.hip
  "$OPT/bin/hipcc" "${HIP_ARGS[@]}" || fail "repeat through $OPT/bin/hipcc failed"
  expect_same_file "$TEST_DIR/s1/k.o" k.o
  out=$("$SHIMCTL" status "$OPT" 2>&1) || fail "status failed: $out"
  expect_contains "$out" "prefix:      $ROCM7" "status: the prefix behind the link"
  expect_contains "$out" "cache tool:  ccache $(ccache --version | sed -n '1s/^ccache version //p') (/usr/bin/ccache)" \
    "status: the cache tool"
  expect_contains "$out" "cache dir:   $CC" "status: the cache location"
  expect_contains "$out" "statistics:  1 hits, 1 misses" "status: hits and misses"
  grep -Eq '^  bin/hipcc +wrapped \(0 aliases\)$' <<<"$out" || fail "status: bin/hipcc:"$'\n'"$out"
  grep -Eq "^  lib/llvm/bin/clang-$SID_LLVM +wrapped \\(3 aliases\\)\$" <<<"$out" || fail "status: clang-$SID_LLVM:"$'\n'"$out"
  grep -Eq '^  lib/llvm/bin/amdllvm +wrapped \(4 aliases\)$' <<<"$out" || fail "status: amdllvm:"$'\n'"$out"

  cd "$TEST_DIR" || fail "cd"
  out=$("$SHIMCTL" rollback "$OPT" 2>&1) || fail "rollback failed: $out"
  expect_contains "$out" "rolled back" "rollback output"
  expect_same_tree before.lst "$ROCM7"
  alt_links | diff -u alt.before - > alt.diff || fail "rollback changed the alternatives chain:"$'\n'"$(cat alt.diff)"
  [ ! -e "$ROCM7/.shimctl/manifest.json" ] || fail "manifest left behind after rollback"
  out=$("$SHIMCTL" rollback "$OPT" 2>&1) || fail "a second rollback failed: $out"
  alt_links | diff -u alt.before - > alt.diff || fail "a second rollback changed the alternatives chain"
}

# ---- aiter's JIT: ROCM_HOME/bin/hipcc by absolute path, sources copied into build/<m>/build/srcs --
AITER_FLAGS=(-fPIC -std=c++17 -O3 -D__HIP_PLATFORM_AMD__=1 -U__HIP_NO_HALF_CONVERSIONS__
  -fno-gpu-rdc -x hip --offload-arch=gfx90a)

# aiter_compile NAME HIPCC: a fresh "home" $TEST_DIR/NAME with aiter's layout; the module's source
# copied in as .cu; HIPCC run by absolute path from the module's build dir, without -MMD.
aiter_compile() {
  local b=$TEST_DIR/$1/build/module_scale/build
  mkdir -p "$b/srcs" && cd "$b" || fail "cannot make $b"
  write_kernel srcs/scale_kernel.cu
  # The reference (the unshimmed hipcc) gets the -cuid= the shim gives the same command.
  local cuid=()
  is_shim "$2" || is_shim "$(realpath "$2")" || cuid=(-cuid="$(shim_cuid srcs/scale_kernel.cu scale_kernel.o)")
  "$2" "${AITER_FLAGS[@]}" "${cuid[@]}" -c srcs/scale_kernel.cu -o scale_kernel.o > log 2>&1 \
    || fail "$2 failed in $1:"$'\n'"$(cat log)"
  [ -s scale_kernel.o ] || fail "no object in $1"
}

test_aiter_jit() {
  TEST "aiter-style JIT by absolute path from fresh dirs: one miss, then hits with the reference object"
  opt_pristine
  own_cache
  aiter_compile ref "$OPT/bin/hipcc"
  local ref=$TEST_DIR/ref/build/module_scale/build/scale_kernel.o
  opt_install
  local home
  home=$(dirname "$(dirname "$(realpath "$(PATH=$OPT/bin:$PATH command -v hipcc)")")")
  expect_eq "$ROCM7" "$home" "ROCM_HOME as aiter derives it"
  is_shim "$home/bin/hipcc" || fail "$home/bin/hipcc is not the shim"
  aiter_compile jit1 "$home/bin/hipcc"
  expect_same_file "$ref" scale_kernel.o
  expect_eq "1 1 0" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after the first JIT compile"
  aiter_compile jit2 "$home/bin/hipcc"
  expect_same_file "$ref" scale_kernel.o
  expect_eq "1 1 1" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after the JIT compile from a second fresh dir"
  # ROCM_HOME=/opt/rocm (set by the user): the path through the link hits the same entry.
  aiter_compile jit3 "$OPT/bin/hipcc"
  expect_same_file "$ref" scale_kernel.o
  expect_eq "1 1 2" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after the JIT compile through $OPT"
}

# ---- aiter's probes: `hipcc <flag> -x hip -E -P /dev/null -o /dev/null` and a source on stdin ---
PROBE_FLAGS=(-O3 "-mllvm -amdgpu-early-inline-all=true" -fno-such-flag-at-all --offload-arch=gfx_bogus
  -std=c++99x)

probe_all() { # OUT-FILE
  local f out=$1 b=$OPT/bin/hipcc
  : > "$out"
  for f in "${PROBE_FLAGS[@]}"; do
    # shellcheck disable=SC2086 # aiter passes the flag through a shell: "-mllvm X" is two words
    $b $f -x hip -E -P /dev/null -o /dev/null > "$out.probe" 2>&1
    echo "$? $f" >> "$out"
    norm < "$out.probe" >> "$out.messages"
  done
  printf '#define TWICE(x) ((x) * 2)\nint v = TWICE(21);\n' \
    | "$b" -x hip --offload-arch=gfx90a -E -P - > "$out.stdin" 2> "$out.stdin-err"
  echo "stdin rc=$?" >> "$out"
}

test_probes() {
  TEST "aiter's flag probes and a stdin compile through the hipcc shim: as without it, no cache entry"
  opt_pristine
  own_cache
  work_dir probe
  probe_all "$TEST_DIR/before"
  opt_install
  probe_all "$TEST_DIR/after"
  diff -u "$TEST_DIR/before" "$TEST_DIR/after" > "$TEST_DIR/diff" \
    || fail "probe exit codes differ:"$'\n'"$(cat "$TEST_DIR/diff")"
  local s
  for s in messages stdin stdin-err; do
    cmp -s "$TEST_DIR/before.$s" "$TEST_DIR/after.$s" \
      || fail "$s differ:"$'\n'"$(diff -u "$TEST_DIR/before.$s" "$TEST_DIR/after.$s" | head -30)"
  done
  # The probes mean something: good flags pass, bogus ones fail, stdin was preprocessed.
  grep -q '^0 -O3$' "$TEST_DIR/after" || fail "the -O3 probe failed: $(cat "$TEST_DIR/after")"
  grep -q '^0 -mllvm -amdgpu-early-inline-all=true$' "$TEST_DIR/after" || fail "the -mllvm probe failed"
  grep -q '^[1-9][0-9]* -fno-such-flag-at-all$' "$TEST_DIR/after" || fail "a bogus flag passed its probe"
  grep -q '^[1-9][0-9]* --offload-arch=gfx_bogus$' "$TEST_DIR/after" || fail "a bogus target passed its probe"
  grep -q '^stdin rc=0$' "$TEST_DIR/after" || fail "the stdin compile failed: $(cat "$TEST_DIR/after.stdin-err")"
  if [ "$SID_LLVM" -ge 23 ]; then
    # clang-23's `-x hip -E -P -` prints none of the source's lines (the same without shimctl:
    # before.stdin, compared above); that it ran is what can be checked.
    [ -s "$TEST_DIR/after.stdin" ] || fail "the stdin compile printed nothing"
  else
    expect_contains "$(cat "$TEST_DIR/after.stdin")" "int v = ((21) * 2);" "stdin preprocessed"
  fi
  expect_eq 0 "$(results_in "$CC")" "cache entries made by probes"
  expect_eq 0 "$(hits_in "$CC")" "cache hits of probes"
}

# ---- hipcc -> clang++ (and amdclang++ -> amdllvm -> clang++): one entry per compile -------------
# On a copy of the fixture (rocm_common.bash): by absolute and relative path and through PATH,
# one miss and one cache entry, then hits, objects equal to the unshimmed compile.
test_failed_verification_quotes_the_error() {
  TEST "a verification compile that fails: install names the command and the compiler's first error line, and rolls back"
  new_prefix
  # A header every compile includes (through rocm.cfg), which includes a broken one: the compiler's
  # first line is "In file included from ...", its first error comes after.
  mkdir -p "$P/include/shimctl-test" && echo '#include "inner.h"' > "$P/include/shimctl-test/outer.h" &&
    echo '#error shimctl test: a broken header' > "$P/include/shimctl-test/inner.h" &&
    echo "-include '<CFGDIR>/../../../include/shimctl-test/outer.h'" >> "$P/lib/llvm/bin/rocm.cfg" \
    || fail "cannot plant the broken header"
  tree_listing "$P" > before.lst
  local out rc=0
  out=$("$SHIMCTL" install "$P" --cache-dir "$CC" 2>&1) || rc=$?
  [ "$rc" -ne 0 ] || fail "install passed with a broken header:"$'\n'"$out"
  expect_contains "$out" "a test compile through the shim failed: \`$P/bin/hipcc -x hip --offload-arch=gfx90a -c k.hip -o out.o\`: $P/lib/llvm/bin/../../../include/shimctl-test/inner.h:1:2: error: shimctl test: a broken header" \
    "the failed check quotes the command and the first error"
  case $out in *"In file included from"*) fail "the message quotes the include chain, not the error:"$'\n'"$out" ;; esac
  expect_same_tree before.lst "$P"
}

test_hipcc_paths() { rocm_hipcc_paths; }
# ccache as a launcher above the clang-21 shim (as CMAKE_HIP_COMPILER_LAUNCHER=ccache): one entry.
test_launcher() { rocm_launcher; }
test_native_target() { rocm_native_target; }
test_fresh_build_dir_paths() { rocm_fresh_build_dir_paths; }

# ---- CMake (sid's cmake 4.x): project(LANGUAGES HIP) with CMAKE_HIP_COMPILER=/opt/rocm/llvm/bin/clang++
# Debian installs hip-lang's CMake package in /usr/lib/x86_64-linux-gnu/cmake, outside the ROCm root
# clang reports (rocm.cfg's --rocm-path): CMAKE_HIP_COMPILER_ROCM_LIB names it.
cmake_project() { # DIR
  mkdir -p "$1" || fail "cannot make $1"
  cat > "$1/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.28)
project(shimctl_hip LANGUAGES HIP)
add_executable(app app.hip)
EOF
  cat > "$1/app.hip" <<'EOF'
#include <hip/hip_runtime.h>
__global__ void scale(float* x, float a) { x[threadIdx.x] *= a; }
int main() { return 0; }
EOF
}

cmake_configure() { # SOURCE BUILD
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_HIP_COMPILER="$OPT/llvm/bin/clang++" -DCMAKE_HIP_ARCHITECTURES=gfx90a \
    -DCMAKE_HIP_COMPILER_ROCM_LIB=/usr/lib/x86_64-linux-gnu > "$2.configure.log" 2>&1 \
    || fail "cmake configure of $2 failed:"$'\n'"$(tail -30 "$2.configure.log")"
}

# hip_identification BUILD: the compiler identification CMake recorded (CMakeHIPCompiler.cmake).
hip_identification() {
  local f
  f=$(find "$1/CMakeFiles" -mindepth 2 -maxdepth 2 -name CMakeHIPCompiler.cmake)
  [ -n "$f" ] && [ -f "$f" ] && cat "$f"
}

test_cmake_hip() {
  TEST "CMake HIP project on /opt/rocm/llvm/bin/clang++: same identification with the shim, builds through it"
  opt_pristine
  own_cache
  local src=$TEST_DIR/src
  cmake_project "$src"
  cmake_configure "$src" "$TEST_DIR/b0"
  cmake --build "$TEST_DIR/b0" > "$TEST_DIR/b0.build.log" 2>&1 || fail "unshimmed build failed"
  hip_identification "$TEST_DIR/b0" > "$TEST_DIR/b0.id" || fail "no CMakeHIPCompiler.cmake in b0"
  opt_install
  # Configure's own compiles (identification, ABI) go to another cache: the build's are counted alone.
  CCACHE_DIR=$TEST_DIR/configure-ccache cmake_configure "$src" "$TEST_DIR/b1"
  hip_identification "$TEST_DIR/b1" > "$TEST_DIR/b1.id" || fail "no CMakeHIPCompiler.cmake in b1"
  local v
  for v in COMPILER_ID COMPILER_VERSION IMPLICIT_LINK_DIRECTORIES IMPLICIT_INCLUDE_DIRECTORIES \
    IMPLICIT_LINK_LIBRARIES COMPILER_ROCM_ROOT; do
    grep -q "^set(CMAKE_HIP_$v " "$TEST_DIR/b0.id" || fail "CMAKE_HIP_$v not recorded"
  done
  diff -u "$TEST_DIR/b0.id" "$TEST_DIR/b1.id" > "$TEST_DIR/id.diff" \
    || fail "CMakeHIPCompiler.cmake differs with the shim:"$'\n'"$(head -30 "$TEST_DIR/id.diff")"
  # And it is the right identification: clang 21 with rocm.cfg's ROCm root (read through clang++.cfg).
  local id
  id=$(cat "$TEST_DIR/b1.id")
  expect_contains "$id" 'set(CMAKE_HIP_COMPILER_ID "Clang")' "compiler id"
  expect_contains "$id" "set(CMAKE_HIP_COMPILER_VERSION \"$SID_LLVM." "compiler version"
  expect_contains "$id" "set(CMAKE_HIP_COMPILER_ROCM_ROOT \"$ROCM7/lib/llvm/bin/../../..\")" "ROCm root"
  grep -Eq "^set\(CMAKE_HIP_IMPLICIT_INCLUDE_DIRECTORIES \".*;$ROCM7/include(;|\")" <<<"$id" \
    || fail "the ROCm include dir is not implicit: $(grep IMPLICIT_INCLUDE <<<"$id")"
  grep -Eq "^set\(CMAKE_HIP_IMPLICIT_LINK_DIRECTORIES \".*;$ROCM7/lib(;|\")" <<<"$id" \
    || fail "the ROCm lib dir is not implicit: $(grep IMPLICIT_LINK_DIR <<<"$id")"

  cmake --build "$TEST_DIR/b1" -v > "$TEST_DIR/b1.build.log" 2>&1 \
    || fail "build through the shim failed:"$'\n'"$(tail -30 "$TEST_DIR/b1.build.log")"
  expect_contains "$(cat "$TEST_DIR/b1.build.log")" "$OPT/llvm/bin/clang++" "the build runs the shimmed name"
  # The same object as without the shim but for its CUID: ccache runs clang++ with
  # -fcolor-diagnostics and -c/-o moved to the end, and clang-21 hashes the arguments into the
  # __hip_cuid_ and __hip_gpubin_handle_ symbols (hipcc's compiles keep them: ccache adds nothing
  # for a compiler of type "other", and hipcc runs clang++ with its own argument order).
  local obj=CMakeFiles/app.dir/app.hip.o
  expect_eq "$(stat -c %s "$TEST_DIR/b0/$obj")" "$(stat -c %s "$TEST_DIR/b1/$obj")" "object size"
  expect_eq "$(nm "$TEST_DIR/b0/$obj" | sed -E 's/__hip_(cuid|gpubin_handle)_[0-9a-f]+/\1/')" \
    "$(nm "$TEST_DIR/b1/$obj" | sed -E 's/__hip_(cuid|gpubin_handle)_[0-9a-f]+/\1/')" "symbols of the object"
  cp "$TEST_DIR/b1/$obj" "$TEST_DIR/miss.o"
  file "$TEST_DIR/b1/app" | grep -q 'ELF 64-bit LSB pie executable' || fail "no executable linked: $(file "$TEST_DIR/b1/app")"
  expect_eq "1 1 0" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after the build"
  cmake --build "$TEST_DIR/b1" --target clean > /dev/null 2>&1 || fail "clean failed"
  cmake --build "$TEST_DIR/b1" > "$TEST_DIR/b1.rebuild.log" 2>&1 || fail "rebuild through the shim failed"
  expect_same_file "$TEST_DIR/miss.o" "$TEST_DIR/b1/$obj"
  expect_eq "1 1 1" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after the clean rebuild"
  # A fresh build directory: every compile hits (CMake's -o is relative: the same CUID), and the
  # object is the one b1 built.
  CCACHE_DIR=$TEST_DIR/configure-ccache cmake_configure "$src" "$TEST_DIR/b2"
  cmake --build "$TEST_DIR/b2" > "$TEST_DIR/b2.build.log" 2>&1 || fail "fresh build dir failed"
  expect_eq "1 2" "$(ccache_stat "$CC" cache_miss) $(hits_in "$CC")" "misses and hits after a fresh build dir"
  expect_same_file "$TEST_DIR/miss.o" "$TEST_DIR/b2/$obj"
}

# ---- CUIDs: a hit is the object a fresh compile of that command makes (issue 13) ------------------
# cuid_sources: t.hip has internal symbols only (so two objects of it link together) and a static
# __device__ variable (what -fgpu-rdc renames after the CUID); main.hip calls nothing of it.
cuid_sources() {
  cat > t.hip <<'EOF'
#include <hip/hip_runtime.h>
static __device__ int counter;
namespace { __global__ void bump(int* x) { x[threadIdx.x] += counter; } }
static void launch(int* x) { hipLaunchKernelGGL(bump, dim3(1), dim3(1), 0, 0, x); }
static int used = (launch(nullptr), 0);
EOF
  printf 'int main() { return 0; }\n' > main.hip
}

cuid_of() { nm "$1" | sed -n 's/.* B __hip_cuid_\([0-9a-f]*\)$/\1/p'; }

test_cuid_follows_the_output() {
  TEST "HIP CUIDs: x1.o and x2.o of one source differ, equal a forced fresh compile, link together (-fgpu-rdc too)"
  new_prefix
  install_prefix --no-verify
  export CCACHE_DIR=$CC
  work_dir w
  cuid_sources
  local hipcc=$P/bin/hipcc flags=(-x hip --offload-arch=gfx90a -fPIC) o
  # Without the shim, what the issue measured: plain ccache 4.14 serves x2.o with x1.o's CUID, and
  # the two objects cannot be linked together. (This is what the test below must not see.)
  local plain_hipcc
  plain_hipcc=$(rocm_prefix sid)/bin/hipcc || fail "no unshimmed fixture prefix"
  mkdir plain && (cd plain && cp ../t.hip ../main.hip . &&
    for o in x1.o x2.o; do CCACHE_DIR=$TEST_DIR/plain-cc ccache "$plain_hipcc" "${flags[@]}" -c t.hip -o $o || exit 1; done &&
    "$plain_hipcc" "${flags[@]}" -c main.hip -o main.o) || fail "plain ccache compiles failed"
  expect_eq 1 "$(hits_in "$TEST_DIR/plain-cc")" "plain ccache: x2.o was a hit"
  expect_eq "$(cuid_of plain/x1.o)" "$(cuid_of plain/x2.o)" "plain ccache: x2.o carries x1.o's CUID"
  "$plain_hipcc" --offload-arch=gfx90a plain/main.o plain/x1.o plain/x2.o -o plain/prog > plain.link 2>&1 \
    && fail "plain ccache's objects linked: the test cannot tell a wrong CUID"
  expect_contains "$(cat plain.link)" "__hip_cuid_$(cuid_of plain/x1.o)" "plain ccache's link error"

  # Through the shim: x2.o is a miss with its own CUID; each equals a forced fresh compile.
  for o in x1.o x2.o; do "$hipcc" "${flags[@]}" -c t.hip -o $o || fail "hipcc -o $o failed"; done
  "$hipcc" "${flags[@]}" -c main.hip -o main.o || fail "hipcc main.hip failed"
  expect_eq "3 0" "$(ccache_stat "$CC" cache_miss) $(hits_in "$CC")" "misses and hits: x2.o is no hit of x1.o"
  [ -n "$(cuid_of x1.o)" ] && [ "$(cuid_of x1.o)" != "$(cuid_of x2.o)" ] \
    || fail "x1.o and x2.o share the CUID '$(cuid_of x1.o)'"
  for o in x1.o x2.o; do
    mv $o $o.first
    CCACHE_RECACHE=1 "$hipcc" "${flags[@]}" -c t.hip -o $o || fail "forced fresh compile of $o failed"
    expect_eq "$(cuid_of $o.first)" "$(cuid_of $o)" "CUID of $o against a forced fresh compile"
    expect_same_file $o.first $o
    "$hipcc" "${flags[@]}" -c t.hip -o $o || fail "repeat compile of $o failed"
    expect_same_file $o.first $o
  done
  expect_eq 2 "$(hits_in "$CC")" "the repeats hit"
  "$hipcc" --offload-arch=gfx90a main.o x1.o x2.o -o prog > link.out 2>&1 \
    || fail "x1.o and x2.o do not link together:"$'\n'"$(cat link.out)"
  # -fgpu-rdc: one shared object of both (static device variables renamed after the CUID).
  for o in r1.o r2.o; do "$hipcc" "${flags[@]}" -fgpu-rdc -c t.hip -o $o || fail "hipcc -fgpu-rdc -o $o failed"; done
  "$hipcc" --offload-arch=gfx90a -fgpu-rdc --hip-link -shared r1.o r2.o -o librdc.so > rdc.out 2>&1 \
    || fail "-fgpu-rdc objects do not link into one shared object:"$'\n'"$(cat rdc.out)"
  # A user's own -cuid wins (the shim adds none): two compiles with it share it, as asked.
  "$hipcc" "${flags[@]}" -cuid=mine -c t.hip -o m1.o && "$hipcc" "${flags[@]}" -cuid=mine -c t.hip -o m2.o \
    || fail "compiles with -cuid=mine failed"
  expect_eq "$(cuid_of m1.o)" "$(cuid_of m2.o)" "the user's -cuid"
  # An absolute -o under the working directory is the relative one: the same CUID from elsewhere.
  "$hipcc" "${flags[@]}" -c "$PWD/t.hip" -o "$PWD/x1.o" || fail "absolute paths"
  expect_eq "$(cuid_of x1.o.first)" "$(cuid_of x1.o)" "CUID with absolute paths under the working directory"
}

# ---- clang-21's names: driver mode and config files by argv[0] ----------------------------------
CLANG_NAMES=(lib/llvm/bin/clang lib/llvm/bin/clang++ lib/llvm/bin/clang-cpp lib/llvm/bin/clang-$SID_LLVM
  lib/llvm/bin/amdclang lib/llvm/bin/amdclang++ bin/amdclang bin/amdclang++)

cfg_sources() {
  local body='
#ifdef SHIMCTL_TEST_ROCM_CFG
  puts("rocm.cfg");
#else
  puts("no rocm.cfg");
#endif
#ifdef SHIMCTL_TEST_CXX_CFG
  puts("clang++.cfg");
#else
  puts("no clang++.cfg");
#endif
  return 0;
}'
  printf '#include <cstdio>\nusing std::puts;\nint main() {%s\n' "$body" > cfg.cpp
  printf '#include <stdio.h>\nint main(void) {%s\n' "$body" > cfg.c
  write_kernel k.hip
}

# job_lists OUT: each name's `-###` job list for a C or C++ compile; for the C++ names and clang-21
# also for a HIP compile.
job_lists() {
  local out=$1 n f
  mkdir -p "$out"
  for n in "${CLANG_NAMES[@]}"; do
    f=$out/$(echo "$n" | tr / _)
    case $n in *++) "$OPT/$n" -### -c cfg.cpp -o cfg.o ;; *) "$OPT/$n" -### -c cfg.c -o cfg.o ;; esac 2>&1 | norm > "$f.jobs"
    case $n in *++ | */clang-$SID_LLVM) "$OPT/$n" -### -x hip --offload-arch=gfx90a -c k.hip -o k.o 2>&1 | norm > "$f.hip-jobs" ;; esac
  done
}

# cfg_answers OUT: what the config files make of cfg.c/cfg.cpp: compiled by each driver (clang++ and
# clang-21 -c, through the cache after install), linked, run; amdclang++ compiles and links in one step.
cfg_answers() {
  local out=$1 b=$OPT/lib/llvm/bin
  : > "$out"
  "$b/clang++" -O1 -c cfg.cpp -o cxx.o && "$b/clang++" cxx.o -o cxx && echo "clang++: $(./cxx | xargs)" >> "$out"
  "$b/clang-$SID_LLVM" -O1 -c cfg.c -o c.o && "$b/clang" c.o -o c && echo "clang-$SID_LLVM: $(./c | xargs)" >> "$out"
  "$OPT/bin/amdclang++" -O1 cfg.cpp -o amd && echo "amdclang++: $(./amd | xargs)" >> "$out"
  echo "clang-cpp: $("$b/clang-cpp" -P cfg.c | grep -E '^ *puts' | sed 's/^ *//' | paste -sd ' ')" >> "$out"
}

test_clang_names() {
  TEST "clang-$SID_LLVM names keep driver mode and config files (-### equal), rocm.cfg is read through clang++.cfg"
  opt_pristine
  own_cache
  # The same directory both times: the job lists name it (-fdebug-compilation-dir).
  work_dir work
  cfg_sources
  job_lists "$TEST_DIR/jobs-before"
  cfg_answers "$TEST_DIR/cfg-before"
  rm -f ./*.o cxx c amd
  opt_install
  job_lists "$TEST_DIR/jobs-after"
  local f
  for f in "$TEST_DIR"/jobs-before/*; do
    diff -u "$f" "$TEST_DIR/jobs-after/$(basename "$f")" > "$TEST_DIR/diff.txt" \
      || fail "$(basename "$f") differs after install:"$'\n'"$(head -30 "$TEST_DIR/diff.txt")"
  done
  # Each name reads the config file of its driver mode (amdclang* through the amdllvm launcher);
  # clang-21 strips its version: it reads clang.cfg, not the clang-21.cfg AMD ships.
  local j=$TEST_DIR/jobs-after/ n cfg
  for n in "${CLANG_NAMES[@]}"; do
    case $(basename "$n") in clang++ | amdclang++) cfg=clang++.cfg ;; clang-cpp) cfg=clang-cpp.cfg ;;
      *) cfg=clang.cfg ;; esac
    grep -qx "Configuration file: $ROCM7/lib/llvm/bin/$cfg" "$j/$(echo "$n" | tr / _).jobs" \
      || fail "$n does not read $cfg:"$'\n'"$(head -8 "$j/$(echo "$n" | tr / _).jobs")"
  done
  expect_contains "$(cat "$j/lib_llvm_bin_clang++.jobs")" '"-x" "c++"' "clang++ is the C++ driver"
  expect_contains "$(cat "$j/lib_llvm_bin_clang-cpp.jobs")" '"-E"' "clang-cpp preprocesses"
  expect_contains "$(cat "$j/bin_amdclang++.hip-jobs")" '"-target-cpu" "gfx90a"' "amdclang++ HIP device job"

  cfg_answers "$TEST_DIR/cfg-after"
  expect_eq "clang++: rocm.cfg clang++.cfg
clang-$SID_LLVM: rocm.cfg no clang++.cfg
amdclang++: rocm.cfg clang++.cfg
clang-cpp: puts(\"rocm.cfg\"); puts(\"no clang++.cfg\");" "$(cat "$TEST_DIR/cfg-after")" "the config files' answers through the shim"
  expect_same_file "$TEST_DIR/cfg-before" "$TEST_DIR/cfg-after"
  # The two -c compiles went through the cache (a link is not cached); a repeat from a fresh dir hits
  # and gives the same answer.
  expect_eq "2 2 0" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits of the clang++ and clang-$SID_LLVM compiles"
  work_dir again
  cfg_sources
  cfg_answers "$TEST_DIR/cfg-again"
  expect_same_file "$TEST_DIR/cfg-before" "$TEST_DIR/cfg-again"
  expect_eq "2 2 2" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after the repeat"
  # amdclang++ -> amdllvm -> clang++ compiling HIP: one cache entry, then a hit.
  "$OPT/bin/amdclang++" "${HIP_ARGS[@]}" || fail "amdclang++ -x hip failed"
  expect_eq "3 3 2" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after an amdclang++ HIP compile"
  work_dir again-hip
  write_kernel k.hip
  "$OPT/bin/amdclang++" "${HIP_ARGS[@]}" || fail "amdclang++ -x hip repeat failed"
  expect_same_file "$TEST_DIR/again/k.o" k.o
  expect_eq "3 3 3" "$(ccache_stat "$CC" cache_miss) $(results_in "$CC") $(hits_in "$CC")" \
    "misses, cache entries and hits after the amdclang++ HIP repeat"
}
