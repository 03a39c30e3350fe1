# A hit wherever the code sits (issue 42): the same commit built in checkout A (in-tree build
# dir), then from empty build dirs in B (a CI runner's path: other depth, other names) and C (a
# pip build: the source and build trees side by side in a temp dir, out of tree), through one
# cache. The project: scripts/gen-hip-project --shapes (12 kernel units with headers in a sibling
# include dir and a header generated into the build tree, one unit returning __FILE__, one
# compiled with -g, one with its flags in a response file).
# The stack is a parameter (anywhere.bash: Debian 12, hipcc 5.2/clang-15, ccache 4.7.5;
# sid_anywhere.bash: hipcc 7.0.2/clang-21, ccache 4.14.2 and sccache 0.17; sid23_anywhere.bash:
# clang-23, the new offload driver). A suite sets AN_TOOLS (the cache tools to run: ccache, or
# "ccache sccache") before it sources this file.

AN_UNITS=12
AN_TOTAL=$((AN_UNITS + 3)) # the three shapes

# an_prefix_copy DIR: P = DIR, a copy of the stack's fixture prefix.
an_prefix_copy() {
  P=$1
  copy_stack_prefix "$P"
}

# an_prefix TOOL: P = a private copy of the stack's fixture, installed with TOOL (its cache in
# $TEST_DIR/cache-TOOL), XDG_CACHE_HOME and a short TMPDIR (sccache's socket) of the test's own.
an_prefix() {
  an_prefix_copy "$TEST_DIR/rocm" || return 1
  # A short TMPDIR: sccache's socket is made there, and a socket's path has a length limit.
  export XDG_CACHE_HOME=$TEST_DIR/xdg
  mkdir -p "$XDG_CACHE_HOME" && TMPDIR=$(mktemp -d "$SUITE_TMP/t.XXXX") || { fail "mktemp"; return 1; }
  export TMPDIR
  unset CCACHE_DIR SCCACHE_DIR
  "$SHIMCTL" install "$P" --cache "$1" --cache-dir "$TEST_DIR/cache-$1" --no-verify \
    >"$TEST_DIR/install.out" 2>&1 || { fail "install --cache $1 failed:"$'\n'"$(cat "$TEST_DIR/install.out")"; return 1; }
  [ "$1" = sccache ] && trap 'sc_stop_servers' EXIT
  return 0
}

# an_checkout DIR [UNITS]: the project's sources at DIR (UNITS kernel units, default AN_UNITS:
# AN_TOTAL compiles), the top of a repository (.git); the generated sources are the suite's,
# written once per size: every checkout holds the same bytes.
an_checkout() {
  local units=${2:-$AN_UNITS}
  local project=$SUITE_TMP/project-$units
  if [ ! -d "$project" ]; then
    "$SCRIPTS/gen-hip-project" "$project.new" "$units" --shapes >/dev/null &&
      mv "$project.new" "$project" || { fail "gen-hip-project failed"; return 1; }
  fi
  mkdir -p "$1" && cp -a "$project/." "$1/" && mkdir -p "$1/.git" ||
    fail "cannot lay out a checkout at $1"
}

# an_build NAME SRC BUILD: configured (CMake + Ninja, or AN_GENERATOR; hipcc as the C++ compiler,
# the GPU targets AN_ARCHS, default gfx90a) and built under `shimctl measure`: NAME.json
# (compiles, hits, misses).
an_build() {
  local name=$1 src=$2 build=$3
  mkdir -p "$(dirname "$build")"
  cmake -S "$src" -B "$build" -G "${AN_GENERATOR:-Ninja}" -DCMAKE_CXX_COMPILER="$P/bin/hipcc" \
    -DCMAKE_BUILD_TYPE=Release -DBENCH_ARCH="${AN_ARCHS:-gfx90a}" >"$TEST_DIR/$name.configure.log" 2>&1 ||
    { fail "configure $name failed:"$'\n'"$(tail -30 "$TEST_DIR/$name.configure.log")"; return 1; }
  "$SHIMCTL" measure --json -- cmake --build "$build" >"$TEST_DIR/$name.json" 2>"$TEST_DIR/$name.log" ||
    { fail "build $name failed:"$'\n'"$(tail -30 "$TEST_DIR/$name.log")"; return 1; }
}

an_counts() { # NAME -> "compiles hits misses"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["compiles"], d["hits"], d["misses"])' \
    "$TEST_DIR/$1.json"
}

an_objects() { find "$1" -name '*.o' -path '*CMakeFiles*' | sort; }

# expect_as_uncached BUILD [N]: every object of BUILD is byte-identical to the one the same build
# dir writes with the cache off (SHIMCTL_DISABLE=1: the same rewriting, no cache); N objects
# (default AN_TOTAL).
expect_as_uncached() {
  local build=$1 o n=0
  rm -rf "$build.cached" && mkdir -p "$build.cached"
  for o in $(an_objects "$build"); do cp "$o" "$build.cached/$(basename "$o")"; done
  ninja -C "$build" -t clean >/dev/null
  SHIMCTL_DISABLE=1 ninja -C "$build" >"$build.uncached.log" 2>&1 ||
    { fail "uncached build of $build failed: $(tail -20 "$build.uncached.log")"; return 1; }
  for o in $(an_objects "$build"); do
    cmp -s "$o" "$build.cached/$(basename "$o")" || fail "$(basename "$o") of $build differs from its uncached build"
    n=$((n + 1))
  done
  expect_eq "${2:-$AN_TOTAL}" "$n" "objects compared in $build"
}

# expect_same_objects BUILD OTHER: BUILD's objects equal OTHER's of the same name, but the -g one
# (its debug information names its own directory).
expect_same_objects() {
  local o n=0
  for o in $(an_objects "$1"); do
    [ "$(basename "$o")" = debug_g.hip.o ] && continue
    cmp -s "$o" "$2/CMakeFiles/hipbench.dir/src/$(basename "$o")" || fail "$(basename "$o") differs between $1 and $2"
    n=$((n + 1))
  done
  expect_eq $((AN_TOTAL - 1)) "$n" "objects of $1 compared with $2's"
}

# expect_names_not ROOT BUILD [make]: no object and no recorded dependency of BUILD names ROOT
# (ninja's deps log; with make, CMake's compiler_depend files).
expect_names_not() {
  local root=$1 build=$2 o
  for o in $(an_objects "$build"); do
    ! grep -qaF "$root" "$o" || fail "$o names $root: $(strings -a "$o" | grep -F "$root" | head -3)"
  done
  if [ "${3:-}" = make ]; then
    ! grep -rqF "$root" --include='compiler_depend.*' "$build" ||
      fail "the depfiles of $build name $root: $(grep -rF "$root" --include='compiler_depend.*' "$build" | head -3)"
    return
  fi
  ! ninja -C "$build" -t deps | grep -qF "$root" ||
    fail "the depfiles of $build name $root: $(ninja -C "$build" -t deps | grep -F "$root" | head -3)"
}

an_anywhere() { # TOOL
  local tool=$1
  an_prefix "$tool" || return
  local a=$TEST_DIR/home/alice/src/proj b=$TEST_DIR/srv/ci/runner/_work/proj/proj
  local c=$TEST_DIR/tmp/pip-req-build-k2j4x/proj cb=$TEST_DIR/tmp/pip-req-build-k2j4x/build/temp.linux-x86_64
  an_checkout "$a" && an_checkout "$b" && an_checkout "$c" || return
  an_build A "$a" "$a/build" || return
  expect_eq "$AN_TOTAL 0 $AN_TOTAL" "$(an_counts A)" "A (cold): compiles hits misses"
  # B and C: every compile hits but the -g one, whose debug information names its directory.
  an_build B "$b" "$b/build" || return
  expect_eq "$AN_TOTAL $((AN_TOTAL - 1)) 1" "$(an_counts B)" "B (a CI runner's path): compiles hits misses"
  an_build C "$c" "$cb" || return
  expect_eq "$AN_TOTAL $((AN_TOTAL - 1)) 1" "$(an_counts C)" "C (a pip build, out of tree): compiles hits misses"
  [ -L "$cb/.shimctl-roots/s" ] && [ "$(readlink "$cb/.shimctl-roots/s")" = "$c" ] ||
    fail "C's view of its source tree: $(ls -l "$cb/.shimctl-roots" 2>&1)"
  # What the objects say: __FILE__ through the view; the -g unit names C's build dir.
  local where=$cb/CMakeFiles/hipbench.dir/src/where_file.hip.o
  grep -qaF ".shimctl-roots/s/src/where_file.hip" "$where" ||
    fail "where_file.o holds no view path: $(strings -a "$where" | grep where_file | head -3)"
  grep -qaF "$cb" "$cb/CMakeFiles/hipbench.dir/src/debug_g.hip.o" ||
    fail "the -g object does not name its own build dir $cb"
  expect_names_not "$TEST_DIR/home/alice" "$b/build"
  expect_names_not "$TEST_DIR/home/alice" "$cb"
  # status: the roots of this user's last compile (C's).
  expect_eq "$cb $c" "$("$SHIMCTL" status --json "$P" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["roots"]; print(r["build"], r["source"])')" "status' roots"
  expect_contains "$("$SHIMCTL" status "$P")" "roots:       build $cb, source $c" "status' roots line"
  # C's depfiles name C's own files (through its view): a header changed there rebuilds exactly
  # the units that include it (units 0, 4 and 8 include quarter.h).
  touch "$c/include/quarter.h"
  "$SHIMCTL" measure --json -- cmake --build "$cb" >"$TEST_DIR/C2.json" 2>"$TEST_DIR/C2.log" ||
    { fail "C's rebuild failed: $(tail -20 "$TEST_DIR/C2.log")"; return 1; }
  expect_eq 3 "$(an_counts C2 | cut -d' ' -f1)" "compiles after C's quarter.h changed"
  # C's objects as C's uncached build writes them; B's as C's (the same text), the -g one B's own
  # miss.
  expect_as_uncached "$cb"
  expect_same_objects "$b/build" "$cb"
}

test_anywhere_ccache() {
  TEST "ccache: B and C hit every compile but the -g one; objects as uncached there; none names A"
  an_anywhere ccache
  local direct
  direct=$(CCACHE_DIR=$TEST_DIR/cache-ccache ccache --print-stats | awk '$1 == "direct_cache_hit" { print $2 }')
  # B's and C's, and C's three rebuilt after the touch (the same content).
  expect_eq $((2 * (AN_TOTAL - 1) + 3)) "$direct" "direct-mode hits of B and C"
}

test_anywhere_sccache() {
  [[ " $AN_TOOLS " == *" sccache "* ]] || return 0
  TEST "sccache: B and C hit every compile but the -g one; objects as uncached there; none names A"
  an_anywhere sccache
}

# The shapes that keep the absolute form: each compiles right, as before, with one event.
test_anywhere_absolute_forms() {
  TEST "a source outside every root, a -D naming the root, SHIMCTL_ANYWHERE=0: absolute form, correct objects"
  an_prefix ccache || return
  local a=$TEST_DIR/home/alice/src/proj out small=$((4 + 3))
  # A's build tree as CMake leaves it, by hand: its cache naming the source tree, the generated header.
  an_checkout "$a" 4 && mkdir -p "$a/build/include" || return
  printf '# CMakeCache.txt\nCMAKE_HOME_DIRECTORY:INTERNAL=%s\n' "$a" >"$a/build/CMakeCache.txt"
  printf '#pragma once\n#define BENCH_BLOCK 256\n' >"$a/build/include/bench_config.h"
  mkdir -p "$TEST_DIR/elsewhere" && cp "$a/src/unit_001.hip" "$TEST_DIR/elsewhere/outside.hip"
  # From the build tree, a source in no root (no repository, no CMake source tree).
  (cd "$a/build" && SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -I"$a/include" \
    -Iinclude -c "$TEST_DIR/elsewhere/outside.hip" -o outside.o) >"$TEST_DIR/outside.log" 2>&1 ||
    fail "outside compile failed: $(cat "$TEST_DIR/outside.log")"
  expect_contains "$(cat "$TEST_DIR/outside.log")" "absolute paths: source outside every root" "trace"
  expect_contains "$(cat "$P/.shimctl/events.log")" "anywhere-absolute" "events.log"
  (cd "$a/build" && SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -I"$a/include" \
    -Iinclude "-DDATA_DIR=\"$a/data\"" -c "$a/src/unit_002.hip" -o d.o) >"$TEST_DIR/d.log" 2>&1 ||
    fail "-D compile failed: $(cat "$TEST_DIR/d.log")"
  expect_contains "$(cat "$TEST_DIR/d.log")" "an argument names a root" "trace of the -D compile"
  # A build tree others may write (no sticky bit): no view is trusted there.
  chmod o+w "$a/build"
  (cd "$a/build" && SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -I"$a/include" \
    -Iinclude -c "$a/src/unit_003.hip" -o shared.o) >"$TEST_DIR/shared.log" 2>&1 ||
    fail "compile in a build tree others may write failed: $(cat "$TEST_DIR/shared.log")"
  chmod o-w "$a/build"
  expect_contains "$(cat "$TEST_DIR/shared.log")" "absolute paths: no view in the build tree" "trace in a shared build tree"
  # Turned off: the source by its absolute path, as the caller named it.
  (cd "$a/build" && SHIMCTL_ANYWHERE=0 SHIMCTL_DISABLE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a \
    -I"$a/include" -Iinclude -c "$a/src/where_file.hip" -o off.o) ||
    fail "SHIMCTL_ANYWHERE=0 compile failed"
  grep -qaF "$a/src/where_file.hip" "$a/build/off.o" || fail "SHIMCTL_ANYWHERE=0: __FILE__ is not absolute"
  # A path with spaces and a symlinked checkout: relative forms, objects as uncached.
  local s="$TEST_DIR/with space/proj"
  an_checkout "$s" 4 || return
  an_build S "$s" "$s/build" || return
  expect_eq "$small 0 $small" "$(an_counts S)" "a checkout with a space: compiles hits misses"
  ln -s "$s" "$TEST_DIR/link-to-s"
  an_build L "$TEST_DIR/link-to-s" "$TEST_DIR/link-to-s/build-l" || return
  out=$(an_counts L)
  [ "${out%% *}" = "$small" ] || fail "symlinked checkout: $out"
  expect_as_uncached "$TEST_DIR/link-to-s/build-l" "$small"
}

# The source tree moved: the view follows it (what it pointed at is gone); a view that points at
# another tree that still exists is left alone (absolute form).
test_anywhere_moved_tree() {
  TEST "a moved checkout: the view follows; another tree's view is left alone"
  an_prefix ccache || return
  local a=$TEST_DIR/a/proj small=$((4 + 3))
  an_checkout "$a" 4 || return
  an_build A "$a" "$TEST_DIR/out" || return
  mv "$TEST_DIR/a" "$TEST_DIR/moved"
  rm -rf "$TEST_DIR/out"
  an_build M "$TEST_DIR/moved/proj" "$TEST_DIR/out" || return
  expect_eq "$small $((small - 1)) 1" "$(an_counts M)" "moved: compiles hits misses"
  expect_eq "$TEST_DIR/moved/proj" "$(readlink "$TEST_DIR/out/.shimctl-roots/s")" "the view"
  # A second tree compiled in that build dir while the first still exists: absolute form.
  local o=$TEST_DIR/other/proj
  an_checkout "$o" 4 || return
  (cd "$TEST_DIR/out" && SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a \
    -I"$o/include" -Iinclude -c "$o/src/unit_003.hip" -o other.o) >"$TEST_DIR/other.log" 2>&1 ||
    fail "compile of the other tree failed: $(cat "$TEST_DIR/other.log")"
  expect_contains "$(cat "$TEST_DIR/other.log")" "no view in the build tree" "trace"
  expect_eq "$TEST_DIR/moved/proj" "$(readlink "$TEST_DIR/out/.shimctl-roots/s")" "the view after"
}

# Objects for a new target set derived from another checkout's (issue 44: pieces/derive.hpp), the
# earlier objects looked up in the location-free form: B adds a third target to what A built, and
# every object derives from A's but the -g unit's (its call names its place: no earlier target set
# of it is known there, and none is looked up).
test_anywhere_pieces() {
  TEST "derived objects: B adds a target to A's two; every object derives from A's but the -g unit's"
  an_prefix ccache || return
  local a=$TEST_DIR/home/alice/src/proj b=$TEST_DIR/srv/ci/runner/_work/proj/proj before small=$((4 + 3))
  an_checkout "$a" 4 && an_checkout "$b" 4 || return
  counter() { awk -v k="$1" '$1 == k { n = $2 } END { print n + 0 }' "$TEST_DIR/cache-ccache/shimctl-pieces" 2>/dev/null || echo 0; }
  local two=gfx90a,gfx942
  [ "${STACK:-}" = sid ] || two=gfx90a,gfx906 # clang-15 knows no gfx942
  AN_ARCHS=$two an_build A "$a" "$a/build" || return
  before="$(counter derived) $(counter lookup_miss)"
  AN_ARCHS=$two,gfx908 an_build B "$b" "$b/build" || return
  local b0=(${before})
  expect_eq "$((b0[0] + small - 1)) ${b0[1]}" "$(counter derived) $(counter lookup_miss)" \
    "objects derived in B, and lookups that missed"
  expect_names_not "$TEST_DIR/home/alice" "$b/build"
  expect_as_uncached "$b/build" "$small"
}

# A torch extension built by two users (torch.utils.cpp_extension's shape: the sources and torch's
# headers in each user's venv, the build dir ~/.cache/torch_extensions/py311_cpu/NAME with its
# build.ninja), through one root-installed prefix and a group's shared cache: the second user hits,
# and each object is the user's own and the same bytes.
test_anywhere_jit_two_users() {
  TEST "a JIT extension in two users' venvs and ~/.cache: the second user hits the first's entries"
  [ "$(id -u)" -eq 0 ] && command -v runuser >/dev/null || { echo "    (not root: skipped)"; return 0; }
  local tag root u site bdir
  tag=$(printf '%04x%04x' $$ $RANDOM)
  root=$(mktemp -d /var/tmp/shimctl-an.XXXXXX) && chmod 755 "$root" || { fail "mktemp"; return 1; }
  trap "remove_test_users; rm -rf '$root'" EXIT
  make_test_group "ang$tag"
  make_test_user "an1$tag" "ang$tag"
  make_test_user "an2$tag" "ang$tag"
  an_prefix_copy "$root/rocm" || return
  "$SHIMCTL" install "$P" --no-verify --shared-cache "$root/shared" --group "ang$tag" \
    >"$TEST_DIR/install.out" 2>&1 || { fail "install --shared-cache: $(cat "$TEST_DIR/install.out")"; return 1; }
  for u in "an1$tag" "an2$tag"; do
    site=$root/home-$u/venv/lib/python3.11/site-packages
    bdir=$root/home-$u/.cache/torch_extensions/py311_cpu/anyext
    mkdir -p "$site/anyext/csrc" "$site/torch/include" "$bdir"
    cp "$SUITE_TMP/jit-k.hip" "$site/anyext/csrc/k.hip" 2>/dev/null || {
      printf '#include <hip/hip_runtime.h>\n#include <torch_fake.h>\n__global__ void jit_k(float* x) { x[threadIdx.x] = TORCH_FAKE * x[threadIdx.x]; }\n' \
        >"$site/anyext/csrc/k.hip"
      cp "$site/anyext/csrc/k.hip" "$SUITE_TMP/jit-k.hip"
    }
    echo '#define TORCH_FAKE 2.0f' >"$site/torch/include/torch_fake.h"
    cat >"$bdir/build.ninja" <<NINJA
rule hip
  command = $P/bin/hipcc -I$site/torch/include -I$site/anyext/csrc -fPIC -O3 -DTORCH_EXTENSION_NAME=anyext --offload-arch=gfx90a -c \$in -o \$out
build k.cuda.o: hip $site/anyext/csrc/k.hip
NINJA
    chown -R "$u" "$root/home-$u"
    runuser -u "$u" -- env -i PATH=/usr/bin:/bin HOME="$root/home-$u" LANG=C ninja -C "$bdir" \
      >"$TEST_DIR/$u.log" 2>&1 || { fail "$u's JIT build failed: $(cat "$TEST_DIR/$u.log")"; return 1; }
    expect_eq "$u" "$(stat -c %U "$bdir/k.cuda.o")" "the owner of $u's object"
  done
  # Each user's local cache in ~/.cache/ccache; the group's shared one behind it (remote storage).
  local second=$root/home-an2$tag/.cache/ccache
  expect_eq "1 1 0" "$(ccache_stat "$second" remote_storage_hit) $(ccache_stat "$second" direct_cache_hit) $(ccache_stat "$second" cache_miss)" \
    "the second user: hits from the shared cache, direct hits, misses"
  expect_same_file "$root/home-an1$tag/.cache/torch_extensions/py311_cpu/anyext/k.cuda.o" \
    "$root/home-an2$tag/.cache/torch_extensions/py311_cpu/anyext/k.cuda.o"
  ! grep -qaF "home-an1$tag" "$root/home-an2$tag/.cache/torch_extensions/py311_cpu/anyext/k.cuda.o" ||
    fail "the second user's object names the first user's home"
}

# CMake's Makefile generator (its own depfile handling, compiles run from the build tree): B hits
# A's entries, and a header changed in B rebuilds the one unit that includes it.
test_anywhere_make() {
  TEST "CMake + Make: B hits A's entries; a header changed in B rebuilds the unit that includes it"
  an_prefix ccache || return
  local a=$TEST_DIR/home/alice/src/proj b=$TEST_DIR/srv/ci/runner/_work/proj/proj small=$((4 + 3))
  an_checkout "$a" 4 && an_checkout "$b" 4 || return
  AN_GENERATOR="Unix Makefiles" an_build A "$a" "$a/build" || return
  AN_GENERATOR="Unix Makefiles" an_build B "$b" "$b/build" || return
  expect_eq "$small $((small - 1)) 1" "$(an_counts B)" "B: compiles hits misses"
  sleep 1 && touch "$b/include/quarter.h"
  "$SHIMCTL" measure --json -- cmake --build "$b/build" >"$TEST_DIR/B2.json" 2>"$TEST_DIR/B2.log" ||
    { fail "B's rebuild failed: $(tail -20 "$TEST_DIR/B2.log")"; return 1; }
  expect_eq "1" "$(an_counts B2 | cut -d' ' -f1)" "compiles after B's quarter.h changed"
  expect_names_not "$TEST_DIR/home/alice" "$b/build" make
}

# A JIT's call from any directory, no build tree above it (`hipcc -c /abs/csrc/k.hip -o
# /abs/build/k.o`): the output's directory is its build tree and the compile runs there; the same
# module at another root, called from another directory, hits with the same bytes. A call that
# names a depfile cannot move (its paths would be the new directory's): absolute form.
test_anywhere_jit_from_anywhere() {
  TEST "a JIT's call from any directory: the output's directory is its build tree; another root hits"
  an_prefix ccache || return
  local a root n=0
  for root in "$TEST_DIR/one/pkg" "$TEST_DIR/two/deeper/pkg"; do
    an_checkout "$root" 4 && mkdir -p "$root/jit" "$root/build/include" || return
    printf '#pragma once\n#define BENCH_BLOCK 256\n' >"$root/build/include/bench_config.h"
    n=$((n + 1))
    mkdir -p "$TEST_DIR/cwd-$n/x" # each call from a directory of its own, outside both roots
    (cd "$TEST_DIR/cwd-$n/x" && SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -I"$root/include" \
        -I"$root/build/include" -c "$root/src/unit_001.hip" -o "$root/jit/k.o") \
      >"$TEST_DIR/jit-$n.log" 2>&1 || fail "the JIT compile at $root failed: $(cat "$TEST_DIR/jit-$n.log")"
  done
  expect_contains "$(cat "$TEST_DIR/jit-2.log")" "roots: build $TEST_DIR/two/deeper/pkg/jit, source $TEST_DIR/two/deeper/pkg" "the second call's roots"
  expect_eq "1 1" "$(ccache_stat "$TEST_DIR/cache-ccache" cache_miss) $(ccache_stat "$TEST_DIR/cache-ccache" direct_cache_hit)" \
    "misses, direct hits (one root, then the other)"
  expect_same_file "$TEST_DIR/one/pkg/jit/k.o" "$TEST_DIR/two/deeper/pkg/jit/k.o"
  ! grep -qaF "$TEST_DIR/one" "$TEST_DIR/two/deeper/pkg/jit/k.o" || fail "the second object names the first root"
  # With a depfile: the call as it was (its depfile names absolute paths, as the caller reads them).
  a=$TEST_DIR/two/deeper/pkg
  (cd "$TEST_DIR" && SHIMCTL_SHIM_TRACE=1 "$P/bin/hipcc" -x hip --offload-arch=gfx90a -I"$a/include" \
    -I"$a/build/include" -MD -MF "$a/jit/d.d" -c "$a/src/unit_002.hip" -o "$a/jit/d.o") \
    >"$TEST_DIR/jit-d.log" 2>&1 || fail "the compile with a depfile failed: $(cat "$TEST_DIR/jit-d.log")"
  expect_contains "$(cat "$TEST_DIR/jit-d.log")" "absolute paths: no build tree, and the call cannot move: a depfile" "trace"
  grep -q "^ *$a/include/common.h" "$a/jit/d.d" || grep -qF "$a/include/common.h" "$a/jit/d.d" ||
    fail "the depfile does not name the absolute header: $(head -5 "$a/jit/d.d")"
}
