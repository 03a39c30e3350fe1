# install --base-dir: a dependency tree outside the checkout, at another path on each machine, is
# an extra root of the location-free paths (the build tree's view .shimctl-roots/b0), so a second
# machine's build hits the first one's entries. Debian 12: the clang-15 fixture prefix (hipcc 5.2
# and clang), ccache 4.7.5; one hand-written build.ninja per checkout (ninja's deps log: the
# depfiles as ccache hands them back), a C unit through clang and a HIP unit through hipcc, each
# including a header of the dependency tree that returns its own __FILE__.

suite_requires() {
  command -v ccache >/dev/null && command -v ninja >/dev/null && command -v python3 >/dev/null &&
    [ -x "$SHIMCTL" ] && [ -x /usr/lib/llvm-15/bin/clang ] && [ -f /usr/bin/hipcc.pl ]
}

# bd_deps DIR: the dependency tree at DIR (the same bytes wherever it sits).
bd_deps() {
  mkdir -p "$1/include" &&
    printf '#pragma once\nstatic inline const char* dep_file(void) { return __FILE__; }\n#define DEP_SCALE 3\n' \
      >"$1/include/dep.h"
}

# bd_checkout DIR DEPS: a checkout at DIR (the top of a repository) whose build tree DIR/build
# compiles its two units with -IDEPS/include, the absolute path, as a CMake project would.
bd_checkout() {
  local dir=$1 deps=$2
  mkdir -p "$dir/.git" "$dir/src" "$dir/build" || return 1
  printf '#include <dep.h>\nconst char* c_unit(void) { return dep_file(); }\nint c_scale(void) { return DEP_SCALE; }\n' \
    >"$dir/src/c_unit.c"
  printf '#include <hip/hip_runtime.h>\n#include <dep.h>\n__global__ void k(float* x) { x[threadIdx.x] *= DEP_SCALE; }\nconst char* hip_unit() { return dep_file(); }\n' \
    >"$dir/src/hip_unit.hip"
  cat >"$dir/build/build.ninja" <<NINJA
rule cc
  command = $P/llvm/bin/clang -I$deps/include -O2 -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
rule hip
  command = $P/bin/hipcc -I$deps/include -O2 --offload-arch=gfx90a -MD -MF \$out.d -c \$in -o \$out
  depfile = \$out.d
  deps = gcc
build c_unit.o: cc $dir/src/c_unit.c
build hip_unit.o: hip $dir/src/hip_unit.hip
NINJA
}

bd_build() { # DIR: its build tree built
  ninja -C "$1/build" >"$1.log" 2>&1 || { fail "build of $1 failed: $(tail -20 "$1.log")"; return 1; }
}

bd_config_line() { grep '^setenv SHIMCTL_BASE_DIRS=' "$P/llvm/bin/.shimctl.conf"; }

test_base_dir_elsewhere_hits() {
  TEST "install --base-dir: B's dependency tree at another path hits A's entries; B's objects name no m1 path"
  local cache=$TEST_DIR/cache m1=$TEST_DIR/m1/deps m2=$TEST_DIR/m2/other/deps
  local a=$TEST_DIR/m1/home/alice/proj b=$TEST_DIR/m2/ci/_work/proj/proj out
  export XDG_CACHE_HOME=$TEST_DIR/xdg
  copy_rocm_prefix "$TEST_DIR/rocm" && P=$TEST_DIR/rocm || return
  bd_deps "$m1" && bd_deps "$m2" || { fail "cannot lay out the dependency trees"; return 1; }
  # Machine 1: its tree's path, spelled with a trailing '/' (kept without it).
  "$SHIMCTL" install "$P" --compilers clang,hipcc --cache-dir "$cache" --base-dir "$m1/" --no-verify \
    >install.out 2>&1 || { fail "install --base-dir: $(cat install.out)"; return 1; }
  expect_eq "setenv SHIMCTL_BASE_DIRS=$m1" "$(bd_config_line)" "llvm/bin's shim config"
  expect_eq "setenv SHIMCTL_BASE_DIRS=$m1" "$(grep '^setenv SHIMCTL_BASE_DIRS=' "$P/bin/.shimctl.conf")" \
    "bin's shim config"
  validate_manifest "$P/.shimctl/manifest.json"
  expect_eq "[\"$m1\"]" "$(python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["cache"]["base_dirs"]))' \
    "$P/.shimctl/manifest.json")" "the manifest's base dirs"
  expect_contains "$("$SHIMCTL" status "$P")" "base dirs:   $m1 (b0)" "status"
  expect_eq "[\"$m1\"]" "$("$SHIMCTL" status --json "$P" | python3 -c 'import json,sys; print(json.dumps(json.load(sys.stdin)["cache"]["base_dirs"]))')" \
    "status --json's cache.base_dirs"
  bd_checkout "$a" "$m1" && bd_build "$a" || return
  expect_eq "0 2" "$(ccache_stat "$cache" direct_cache_hit) $(ccache_stat "$cache" cache_miss)" "A: direct hits, misses"
  expect_eq "$m1" "$(readlink "$a/build/.shimctl-roots/b0")" "A's view of the base dir"

  # Machine 2, played by the same prefix: its tree at another path; machine 1's tree is gone.
  "$SHIMCTL" install "$P" --base-dir "$m2" --dry-run >dry.out 2>&1 || fail "--dry-run: $(cat dry.out)"
  expect_contains "$(cat dry.out)" "base dirs: $m1 -> $m2" "--dry-run"
  expect_eq "setenv SHIMCTL_BASE_DIRS=$m1" "$(bd_config_line)" "the config after --dry-run"
  "$SHIMCTL" install "$P" --base-dir "$m2" --no-verify >reinstall.out 2>&1 ||
    { fail "install --base-dir again: $(cat reinstall.out)"; return 1; }
  expect_contains "$(cat reinstall.out)" "changed base dirs: $m1 -> $m2" "the reinstall"
  expect_eq "setenv SHIMCTL_BASE_DIRS=$m2" "$(bd_config_line)" "the config after the reinstall"
  # Another setting changed without --base-dir: the base dirs are kept.
  "$SHIMCTL" install "$P" --max-size 3G --no-verify >resize.out 2>&1 || fail "install --max-size: $(cat resize.out)"
  expect_eq "setenv SHIMCTL_BASE_DIRS=$m2" "$(bd_config_line)" "the config after --max-size"
  validate_manifest "$P/.shimctl/manifest.json"
  mv "$TEST_DIR/m1" "$TEST_DIR/m1.gone"
  bd_checkout "$b" "$m2" && bd_build "$b" || return
  expect_eq "2 2" "$(ccache_stat "$cache" direct_cache_hit) $(ccache_stat "$cache" cache_miss)" "B: direct hits, misses"
  expect_eq "$m2" "$(readlink "$b/build/.shimctl-roots/b0")" "B's view of the base dir"
  local o
  for o in c_unit.o hip_unit.o; do
    ! grep -qaF "$TEST_DIR/m1" "$b/build/$o" || fail "B's $o names m1: $(strings -a "$b/build/$o" | grep -F "$TEST_DIR/m1" | head -3)"
    grep -qaF ".shimctl-roots/b0/include/dep.h" "$b/build/$o" ||
      fail "B's $o holds no view path for dep.h: $(strings -a "$b/build/$o" | grep dep.h | head -3)"
  done
  out=$(ninja -C "$b/build" -t deps)
  [ "$(grep -c '\.shimctl-roots/b0' <<<"$out")" -ge 1 ] || fail "B's deps name no .shimctl-roots/b0: $out"
  ! grep -qF "$TEST_DIR/m1" <<<"$out" || fail "B's deps name m1: $out"
  # The user's SHIMCTL_BASE_DIRS wins over the config's: a third tree, named only there, hits too.
  local m3=$TEST_DIR/m3/deps c=$TEST_DIR/m3/c/proj
  bd_deps "$m3" && bd_checkout "$c" "$m3" || { fail "cannot lay out C"; return 1; }
  SHIMCTL_BASE_DIRS=$m3 bd_build "$c" || return
  expect_eq "4 2" "$(ccache_stat "$cache" direct_cache_hit) $(ccache_stat "$cache" cache_miss)" "C: direct hits, misses"
  expect_eq "$m3" "$(readlink "$c/build/.shimctl-roots/b0")" "C's view of its base dir"
  expect_success "$SHIMCTL" rollback "$P"
}
