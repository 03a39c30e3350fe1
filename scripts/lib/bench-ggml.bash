#!/usr/bin/env bash
# scripts/bench --section ggml: a real code base as the benchmark (ggml's HIP backend).
#
# What it measures, on a fixed set of object targets (GGML_SET below: ggml-cuda .cu TUs compiled
# as HIP, template-instance TUs, plain C/C++ ggml TUs) of ggml's CMake HIP build, configured as
# ggml's docs say (HIPCXX=<prefix>/lib/llvm/bin/clang++, -DGGML_HIP=ON -DGPU_TARGETS=gfx90a,
# C/C++ through the prefix's clang, -G Ninja; GGML_CCACHE=OFF: no launcher of ggml's own), against
# ROCm-7-shaped prefixes (scripts/make-rocm-prefix --stack sid) inside the Debian sid root:
#   1. cold: shimctl installed on the prefix (ccache, an empty cache) against a second prefix with
#      no shim at all; paired rounds in alternating order, each from a fresh build directory;
#   2. fresh directory: a second build directory at another path against the warm cache: hits
#      (direct and preprocessed, from ccache's own statistics), every miss explained (the direct-mode
#      inputs of the two directories' compiles, from ccache's debug files, diffed), and every object
#      byte-compared with the first directory's;
#   2b. control: the same from a third directory with ccache's base_dir off (what a cache behind
#      CMake's launcher gets): the misses that embed the build path, explained the same way;
#   3. touch: ggml.h and common.cuh touched, rebuilt: every rebuilt TU must hit;
#   4. change: a declaration appended to common.cuh, rebuilt: the misses must be the TUs of the set
#      that include it, as `ninja -t deps` says;
#   5. add a GPU target (--pieces, --pieces-only; issue 25's per-GPU-target pieces): with an empty
#      cache, the set built for gfx90a through the shim (dir A), then from a fresh build directory
#      at another path for gfx90a;gfx942 through the shim (dir B: the gfx90a pieces must hit, only
#      gfx942 compiles), against an uncached two-target build (dir C, the same shimmed prefix with
#      SHIMCTL_DISABLE=1: the real compiler with the shim's -cuid=, so the same objects); every
#      object of B cmp'ed with C's. Paired rounds of B and C in alternating order, each B against a
#      copy of the cache as A left it. The first split's one-step check is warmed (one split compile
#      of a throwaway source, XDG_CACHE_HOME in the work dir) before any timing.
# Prints a table and writes GGML.md into the work dir, or into --out DIR.
#
# Usage (as root, on the host): scripts/bench --section ggml [--quick] [--out DIR] [--keep]
#    or: scripts/lib/bench-ggml.bash [--quick] [--pieces|--pieces-only] [--out DIR] [--keep]
#   --quick   two TUs, one round: a smoke run of every step (a few minutes)
#   --pieces  step 5 too, after steps 1-4; --pieces-only: step 5 alone
#   --keep    keep the work dir (inside the root: ROOT/var/tmp/shimctl-bench-ggml.*)
# Environment: SHIMCTL_SID_ROOT (default /var/cache/shimctl/sid-root, scripts/make-sid-root),
#   GGML_BUILD_DIR (shimctl built inside the root; default <repo>/build-ggml, configured and built
#   by this script when missing, brought up to date otherwise), BENCH_GGML_ROUNDS (cold rounds of
#   each variant, default 2; --quick 1), BENCH_GGML_JOBS (ninja -j, default 2),
#   BENCH_GGML_PIECES_ROUNDS (step 5's paired rounds, default 2; --quick 1),
#   BENCH_GGML_PIECES_COLD=1 (step 5 also builds the set for gfx90a uncached before A: A's cold cost
#   against it; steps 1-4 measure that too, as cold shim against no cache).
# The ggml source: Debian's `apt-get source ggml` (a deb-src line for sid is added to the root);
# where the registry does not serve it, the llama.cpp tree (ggml in ggml/) that the npm package
# node-llama-cpp ships as llama/gitRelease.bundle (pinned below). GGML.md names the one used.
# Timings are `date +%s%N` around `ninja -jN TARGETS` (configure not included).
set -eEuo pipefail  # -E: the ERR trap names the failing line inside functions too
trap 'echo "bench-ggml: failed at line $LINENO: $BASH_COMMAND" >&2' ERR
self=$(realpath "${BASH_SOURCE[0]}")
repo=$(cd "$(dirname "$self")/../.." && pwd)
NPM_PACKAGE=node-llama-cpp@3.21.1   # its llama/gitRelease.bundle: llama.cpp with ggml 0.23.0

# The build set, as paths relative to ggml's source root: 39 TUs (11 C/C++, 16 ggml-cuda .cu, 12
# template instances), about 1100 s of compiles one at a time on this 2-core machine under
# another's load (nice 19), a cold -j2 build of about 5 minutes when idle. GGML_QUICK_SET: --quick.
GGML_SET=(
  # plain C/C++ (ggml-base, ggml-cpu)
  src/ggml.c src/ggml-quants.c src/ggml-alloc.c src/ggml-backend.cpp src/gguf.cpp src/ggml-opt.cpp
  src/ggml-cpu/ggml-cpu.c src/ggml-cpu/ops.cpp src/ggml-cpu/vec.cpp src/ggml-cpu/quants.c
  src/ggml-cpu/repack.cpp
  # ggml-cuda TUs compiled as HIP
  src/ggml-cuda/ggml-cuda.cu src/ggml-cuda/argmax.cu src/ggml-cuda/norm.cu src/ggml-cuda/softmax.cu
  src/ggml-cuda/rope.cu src/ggml-cuda/getrows.cu src/ggml-cuda/convert.cu src/ggml-cuda/cpy.cu
  src/ggml-cuda/binbcast.cu src/ggml-cuda/unary.cu src/ggml-cuda/mmvq.cu src/ggml-cuda/quantize.cu
  src/ggml-cuda/scale.cu src/ggml-cuda/concat.cu src/ggml-cuda/mmq.cu src/ggml-cuda/fattn.cu
  # template instances
  src/ggml-cuda/template-instances/mmq-instance-q4_0.cu
  src/ggml-cuda/template-instances/mmq-instance-q8_0.cu
  src/ggml-cuda/template-instances/mmq-instance-q4_k.cu
  src/ggml-cuda/template-instances/mmq-instance-q6_k.cu
  src/ggml-cuda/template-instances/mmf-instance-ncols_1.cu
  src/ggml-cuda/template-instances/mmf-instance-ncols_8.cu
  src/ggml-cuda/template-instances/mmf-instance-ncols_16.cu
  src/ggml-cuda/template-instances/fattn-vec-instance-f16-f16.cu
  src/ggml-cuda/template-instances/fattn-vec-instance-q8_0-q8_0.cu
  src/ggml-cuda/template-instances/fattn-tile-instance-dkq64-dv64.cu
  src/ggml-cuda/template-instances/fattn-tile-instance-dkq128-dv128.cu
  src/ggml-cuda/template-instances/fattn-mma-f16-instance-ncols1_8-ncols2_1.cu
)
GGML_QUICK_SET=(src/ggml-alloc.c src/ggml-cuda/argmax.cu)
TOUCH_HEADERS=(include/ggml.h src/ggml-cuda/common.cuh)  # step 3
CHANGE_HEADER=src/ggml-cuda/common.cuh                    # step 4
ANCHOR="plain ccache with CMake launchers (ggml's GGML_CCACHE) on this build: 96.7 % hits in a fresh build dir (13 misses embedding the build path), 4.4x faster than cold"
TARGET_LINE="target: fresh-directory hits >= 99 % direct"

log() { echo "bench-ggml: $*" >&2; }
die() { echo "bench-ggml: error: $*" >&2; exit 1; }

# ================================ host side =====================================================

# fetch_source_debian WORK INNER: `apt-get source ggml` inside the root into WORK/src; false when
# the registry does not serve it.
fetch_source_debian() {
  local work=$1 inner=$2 list=$sid_root/etc/apt/sources.list.d/shimctl-ggml-src.list
  [ -f "$list" ] || echo 'deb-src http://deb.debian.org/debian sid main' >"$list"
  mkdir -p "$work/src"
  "$repo/scripts/sid-run" "$sid_root" bash -c "
    set -e
    apt-cache showsrc ggml 2>/dev/null | grep -q '^Package: ggml' ||
      apt-get -q -o Acquire::Check-Valid-Until=false update >/dev/null
    command -v dpkg-source >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -q dpkg-dev >/dev/null
    cd $inner/src && apt-get source -q ggml" >"$work/fetch-debian.log" 2>&1 || return 1
  local top
  top=$(find "$work/src" -mindepth 1 -maxdepth 1 -type d -name 'ggml-*' | head -1)
  [ -n "$top" ] || return 1
  { echo "SRC_TOP=${top#"$sid_root"}"; echo "GGML_DIR=${top#"$sid_root"}"
    echo "SRC_DESC='Debian ggml $(sed -n 's/^Version: //p' "$work"/src/*.dsc | head -1) (apt-get source ggml)'"
  } >"$work/source.env"
}

# fetch_source_npm WORK: the llama.cpp tree that NPM_PACKAGE ships as a git bundle, cloned into
# WORK/src/llama.cpp (ggml in its ggml/).
fetch_source_npm() {
  local work=$1 t
  command -v npm >/dev/null || apt-get install -y -q npm >/dev/null
  command -v git >/dev/null || apt-get install -y -q git >/dev/null
  t=$work/npm; mkdir -p "$t" "$work/src"
  (cd "$t" && npm pack -q "$NPM_PACKAGE" >/dev/null 2>"$t/npm.log") || { cat "$t/npm.log" >&2; return 1; }
  tar -xzf "$t"/*.tgz -C "$t" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json
  git clone -q "$t/package/llama/gitRelease.bundle" "$work/src/llama.cpp" 2>/dev/null
  local commit tag
  commit=$(git -C "$work/src/llama.cpp" rev-parse HEAD)
  tag=$(sed -n 's/.*"tag": *"\([^"]*\)".*/\1/p' "$t/package/llama/llama.cpp.info.json")
  rm -rf "$t"
  { echo "SRC_TOP=${work#"$sid_root"}/src/llama.cpp"; echo "GGML_DIR=${work#"$sid_root"}/src/llama.cpp/ggml"
    echo "SRC_DESC='llama.cpp $tag (commit ${commit:0:12}, ggml $(sed -n 's/^set(GGML_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\))/\2/p' \
      "$work/src/llama.cpp/ggml/CMakeLists.txt" | paste -sd.)) from npm $NPM_PACKAGE llama/gitRelease.bundle: Debian registry does not serve the ggml source here'"
  } >"$work/source.env"
}

host_main() {
  local quick=no out='' keep=no pieces=no
  while [ $# -gt 0 ]; do
    case $1 in
      --quick) quick=yes; shift ;;
      --pieces) pieces=yes; shift ;;
      --pieces-only) pieces=only; shift ;;
      --out) out=$2; shift 2 ;;
      --keep) keep=yes; shift ;;
      *) echo "usage: $0 [--quick] [--pieces|--pieces-only] [--out DIR] [--keep]" >&2; exit 2 ;;
    esac
  done
  [ "$(id -u)" -eq 0 ] || die "must run as root (scripts/sid-run)"
  sid_root=$("$repo/scripts/make-sid-root" "${SHIMCTL_SID_ROOT:-/var/cache/shimctl/sid-root}")
  local work inner
  work=$(mktemp -d "$sid_root/var/tmp/shimctl-bench-ggml.XXXXXX")
  inner=${work#"$sid_root"}
  # shellcheck disable=SC2064  # expand now: the trap runs after host_main's locals are gone
  trap "if [ $keep = yes ]; then echo 'bench-ggml: work dir kept: $work' >&2; else rm -rf '$work'; fi" EXIT
  log "work dir $work (in the root: $inner)"
  if fetch_source_debian "$work" "$inner"; then
    log "source: Debian's ggml (apt-get source)"
  else
    log "source: apt-get source ggml failed ($(grep -m1 '^E:' "$work/fetch-debian.log" || echo 'see fetch-debian.log')); using $NPM_PACKAGE's llama.cpp bundle"
    rm -rf "$work/src"
    fetch_source_npm "$work"
  fi
  "$repo/scripts/sid-run" "$sid_root" env SHIMCTL_BENCH_GGML_INSIDE=1 \
    GGML_BUILD_DIR="${GGML_BUILD_DIR:-$repo/build-ggml}" BENCH_GGML_ROUNDS="${BENCH_GGML_ROUNDS:-}" \
    BENCH_GGML_JOBS="${BENCH_GGML_JOBS:-2}" BENCH_GGML_PIECES_ROUNDS="${BENCH_GGML_PIECES_ROUNDS:-}" \
    BENCH_GGML_PIECES_COLD="${BENCH_GGML_PIECES_COLD:-0}" BENCH_GGML_COMMIT="$(git -C "$repo" log -1 --format='%h %cs %s' 2>/dev/null | cut -c1-90 || echo unknown)" \
    bash "$self" --inside "$inner" "$quick" "$pieces"
  [ -n "$out" ] || out=$(mktemp -d /tmp/shimctl-bench-ggml.XXXXXX)
  mkdir -p "$out"
  cp "$work/GGML.md" "$work/results.tsv" "$out/"
  log "wrote $out/GGML.md (all figures: $out/results.tsv)"
}

# ================================ inside the sid root ============================================

R=  # results: KEY<TAB>VALUE lines
put() { printf '%s\t%s\n' "$1" "$2" >>"$R"; }
get() { awk -F'\t' -v k="$1" '$1 == k { v = $2 } END { print v }' "$R"; }

# ensure_packages: the toolchain and ggml's HIP build dependencies, installed when missing.
ensure_packages() {
  local p missing=()
  for p in cmake ninja-build ccache hipcc clang-21 lld-21 rocm-device-libs-21 libamdhip64-dev \
    libhipblas-dev librocblas-dev dpkg-dev file; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  log "installing ${missing[*]}"
  apt-get -q -o Acquire::Check-Valid-Until=false update >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
}

# ensure_shimctl: shimctl and its shim built inside the root in GGML_BUILD_DIR, up to date.
ensure_shimctl() {
  local b=$GGML_BUILD_DIR
  [ -f "$b/build.ninja" ] || cmake -S "$repo" -B "$b" -G Ninja -DCMAKE_BUILD_TYPE=Release >"$W/shimctl-configure.log" 2>&1 ||
    { tail -20 "$W/shimctl-configure.log" >&2; die "configuring shimctl in $b failed"; }
  ninja -C "$b" shimctl shim >"$W/shimctl-build.log" 2>&1 ||
    { tail -30 "$W/shimctl-build.log" >&2; die "building shimctl in $b failed"; }
  SHIMCTL=$b/installer/shimctl
}

# make_prefix DEST: a ROCm-7-shaped prefix with, as AMD's packages have them, the HIP runtime's and
# the BLAS libraries' CMake packages in lib/cmake (CMake's HIP language looks for hip-lang there).
make_prefix() {
  local c
  "$repo/scripts/make-rocm-prefix" "$1" --stack sid >/dev/null
  mkdir -p "$1/lib/cmake"
  for c in hip hip-lang hipblas hipblas-common rocblas; do
    ln -s "/usr/lib/x86_64-linux-gnu/cmake/$c" "$1/lib/cmake/$c"
  done
}

# configure PREFIX BUILD [GPU_TARGETS]: ggml's HIP build as its docs say, all compilers from PREFIX,
# for GPU_TARGETS (a CMake list; default gfx90a). CMake's own
# test compiles (through the shim on the shimmed prefix) go to a cache of their own, so that every
# timed build starts from the cache its step says.
configure() {
  local p=$1 b=$2 gpu=${3:-gfx90a}
  CCACHE_DIR=$W/cache-configure HIPCXX=$p/lib/llvm/bin/clang++ HIP_PATH=$p cmake -S "$SRC_TOP" -B "$b" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release -DGGML_HIP=ON "-DGPU_TARGETS=$gpu" -DGGML_CCACHE=OFF \
    -DCMAKE_C_COMPILER="$p/lib/llvm/bin/clang" -DCMAKE_CXX_COMPILER="$p/lib/llvm/bin/clang++" \
    -DGGML_BUILD_TESTS=OFF -DGGML_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF --no-warn-unused-cli >"$b.configure.log" 2>&1 ||
    { tail -30 "$b.configure.log" >&2; die "configure of $b failed (log: $b.configure.log)"; }
}

# resolve_targets BUILD: TARGETS = the ninja object target of each source of the set (exactly one).
resolve_targets() {
  local all s rel t
  all=$(ninja -C "$1" -t targets all | sed -n 's/^\([^:]*\.o\): .*/\1/p')
  TARGETS=()
  for s in "${SET[@]}"; do
    [ -f "$GGML_DIR/$s" ] || die "$s is not in this ggml source ($GGML_DIR)"
    rel=${s#src/}
    t=$(grep -E "\.dir/(__/)?${rel//./\\.}\.o$" <<<"$all" || true)
    [ "$(grep -c . <<<"$t")" = 1 ] || die "no single ninja target for $s in $1: '$t'"
    TARGETS+=("$t")
  done
}

# timed_build BUILD [ENV...]: ninja -jJOBS TARGETS with ENV; prints the wall time in ms.
timed_build() {
  local b=$1 t0 t1; shift
  t0=$(date +%s%N)
  env "$@" ninja -C "$b" -j "$JOBS" "${TARGETS[@]}" >"$b.build.log" 2>&1 ||
    { tail -30 "$b.build.log" >&2; die "build in $b failed (log: $b.build.log)"; }
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

# ccache_stat CACHE NAME: one counter of `ccache --print-stats`.
ccache_stat() { CCACHE_DIR=$1 ccache --print-stats | awk -v n="$2" '$1 == n { v = $2 } END { print v + 0 }'; }

# put_stats KEY CACHE: the counters of one phase (the cache's statistics were zeroed before it).
put_stats() {
  local n
  for n in direct_cache_hit preprocessed_cache_hit cache_miss; do put "$1.$n" "$(ccache_stat "$2" "$n")"; done
  put "$1.other" "$(CCACHE_DIR=$2 ccache --print-stats | awk '
    $1 !~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss|stats_updated_timestamp|stats_zeroed_timestamp)$/ &&
    $1 !~ /^(files_in_cache|cache_size_kibibyte|max_|local_storage_|remote_storage_|direct_cache_miss|preprocessed_cache_miss)/ \
    && $2 > 0 { s = s sep $1 "=" $2; sep = " " } END { print s }')"
  CCACHE_DIR=$2 ccache -v -s >"$W/stats-$1.txt" 2>&1 || true
}

# cold_round VARIANT ROUND: a fresh build dir (and for the shim a fresh, empty cache), configured
# and built; records the time and, for the shim, ccache's counters.
cold_round() {
  local v=$1 r=$2 b=$W/cold/$1-r$2 ms
  mkdir -p "$W/cold"
  if [ "$v" = shim ]; then
    CACHE=$W/cache-r$r; mkdir -p "$CACHE"
    configure "$PS" "$b"
    resolve_targets "$b"
    CCACHE_DIR=$CACHE ccache -z >/dev/null
    ms=$(timed_build "$b" CCACHE_DIR="$CACHE")
    put_stats "cold.shim.r$r" "$CACHE"
    A=$b
  else
    configure "$PP" "$b"
    resolve_targets "$b"
    ms=$(timed_build "$b")
  fi
  put "cold.$v.r$r.ms" "$ms"
  log "  cold $v round $r: $((ms / 1000)) s"
}

# cold_rounds: ROUNDS paired rounds, the order alternating (shim first in odd rounds).
cold_rounds() {
  local r
  log "cold: $ROUNDS rounds of shim and no-cache builds, ${#SET[@]} TUs, -j$JOBS"
  for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then cold_round shim "$r"; cold_round plain "$r"
    else cold_round plain "$r"; cold_round shim "$r"; fi
    put "cold.ratio.r$r" "$(ratio "$(get "cold.shim.r$r.ms")" "$(get "cold.plain.r$r.ms")")"
  done
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# phase_build KEY BUILD [ENV...]: a timed shim build of the set against CACHE, its statistics
# zeroed first, each compile's outcome in ccache's stats log $W/KEY.statslog.
phase_build() {
  local key=$1 b=$2 ms
  shift 2
  CCACHE_DIR=$CACHE ccache -z >/dev/null
  ms=$(timed_build "$b" CCACHE_DIR="$CACHE" CCACHE_STATSLOG="$W/$key.statslog" "$@")
  put "$key.ms" "$ms"
  put "$key.rebuilt" "$(grep -c '^\[' "$b.build.log" || true)"
  put_stats "$key" "$CACHE"
}

# missed_sources STATSLOG: the input file of each compile the stats log records as a miss.
missed_sources() { awk '/^# / { f = $2 } $1 == "cache_miss" { print f }' "$1" | sort -u; }

# target_of BUILD SOURCE: the set's target that compiles SOURCE (an absolute path).
target_of() {
  local i
  for i in "${!SET[@]}"; do
    [ "$(realpath -m "$GGML_DIR/${SET[i]}")" = "$(realpath -m "$2")" ] && { echo "${TARGETS[i]}"; return; }
  done
}

# debug_inputs BUILD TARGET DEBUGDIR [ENV...]: TARGET's compile run again in BUILD (a hit by now)
# with ENV, ccache's debug files in DEBUGDIR and no statistics; prints its input text file.
debug_inputs() {
  local b=$1 t=$2 d=$3 cmd
  shift 3
  cmd=$(ninja -C "$b" -t commands "$t" | tail -1)
  (cd "$b" && env CCACHE_DIR="$CACHE" CCACHE_DEBUG=1 CCACHE_DEBUGDIR="$d" CCACHE_NOSTATS=1 "$@" bash -c "$cmd") \
    </dev/null >/dev/null 2>&1 || true
  find "$d" -path "*/$t.*ccache-input-text" | sort | tail -1
}

# key_lines FILE: ccache's debug input text ("### NAME" then its value lines) as "NAME: VALUE" lines,
# up to the manifest key (what a direct-mode lookup hashes; a miss goes on with the result's inputs).
key_lines() {
  awk '/^### result$/ { exit } /^=== / { print; next } /^### / { k = substr($0, 5); next } { print k ": " $0 }' "$1"
}

# rerun_hit INPUT_TEXT: the debug rerun that wrote INPUT_TEXT got its result from the cache.
rerun_hit() { grep -q 'Succeeded getting cached result' "${1%.ccache-input-text}.ccache-log" 2>/dev/null; }

# explain_misses KEY BUILD REF [ENV...]: for each miss of phase KEY in BUILD (built with ENV), what
# in its key differs from the same target's compile in REF (ccache's direct-mode input text of
# both, diffed).
explain_misses() {
  local key=$1 b=$2 ref=$3 src t ta tb d n=0
  shift 3
  : >"$W/$key.explained"
  while IFS= read -r src; do
    [ -n "$src" ] || continue
    n=$((n + 1))
    t=$(target_of "$b" "$src")
    if [ -z "$t" ]; then echo "- \`$src\`: not a TU of the set" >>"$W/$key.explained"; continue; fi
    ta=$(debug_inputs "$ref" "$t" "$W/debug/$key/ref")
    tb=$(debug_inputs "$b" "$t" "$W/debug/$key/new" "$@")
    d=
    if [ -n "$ta" ] && [ -n "$tb" ]; then  # diff exits 1 when they differ: not a failure here
      d=$({ diff <(key_lines "$ta") <(key_lines "$tb") || true; } | sed -n 's/^</    -/p; s/^>/    +/p' | head -8)
    fi
    { echo "- \`${t##*/}\` (- $ref, + $b):"
      if [ -z "$ta" ] || [ -z "$tb" ]; then echo "    no debug input text (ccache did not reach its direct mode)"
      elif [ -z "$d" ] && rerun_hit "$ta" && rerun_hit "$tb"; then
        echo "    same direct-mode inputs on a rerun in both (both hits): not a key difference"
      elif [ -z "$d" ]; then echo "    same direct-mode inputs; a rerun did not hit (see $W/debug/$key)"
      else echo "$d"; fi
    } >>"$W/$key.explained"
  done < <(missed_sources "$W/$key.statslog")
  put "$key.explained" "$n"
}

# compare_objects A B: cmp of every target's object in A and B; the differing ones in $W/cmp.txt.
compare_objects() {
  local t same=0 differ=0
  : >"$W/cmp.txt"
  for t in "${TARGETS[@]}"; do
    if cmp -s "$1/$t" "$2/$t"; then same=$((same + 1)); else differ=$((differ + 1)); echo "$t" >>"$W/cmp.txt"; fi
  done
  put fresh.cmp_same "$same"; put fresh.cmp_differ "$differ"
}

# fresh_dir_phase: a second build directory at another path, against the last cold shim round's
# warm cache.
fresh_dir_phase() {
  B=$W/elsewhere/second/build
  mkdir -p "$W/elsewhere/second"
  log "fresh directory $B against the warm cache"
  configure "$PS" "$B"
  resolve_targets "$B"
  phase_build fresh "$B"
  compare_objects "$A" "$B"
  explain_misses fresh "$B" "$A"
  log "  fresh: $(($(get fresh.ms) / 1000)) s, $(get fresh.direct_cache_hit) direct + $(get fresh.preprocessed_cache_hit) preprocessed hits, $(get fresh.cache_miss) misses; objects: $(get fresh.cmp_same) identical, $(get fresh.cmp_differ) differ"
}

# control_phase: the fresh-directory step again from a third directory, with ccache's base_dir off
# (CCACHE_BASEDIR set empty: the shim then sets none), as a cache behind CMake's launcher would
# run: which TUs embed the build path in their key, and how the explanation shows it.
control_phase() {
  local c=$W/control/no-base-dir/build
  mkdir -p "$W/control/no-base-dir"
  log "control: a third directory against the warm cache, base_dir off"
  configure "$PS" "$c"
  resolve_targets "$c"
  phase_build control "$c" CCACHE_BASEDIR=
  explain_misses control "$c" "$A" CCACHE_BASEDIR=
  log "  control: $(get control.direct_cache_hit) direct + $(get control.preprocessed_cache_hit) preprocessed hits, $(get control.cache_miss) misses"
}

# includers BUILD HEADER: the targets of the set that have HEADER among their `ninja -t deps` (the
# paths there as the compiler wrote them, "DIR/../" folded: template-instances/../common.cuh).
includers() {
  ninja -C "$1" -t deps "${TARGETS[@]}" | awk -v h="$(realpath "$GGML_DIR/$2")" '
    /^[^ ]/ { t = $1; sub(/:$/, "", t); next }
    { p = $1; while (sub(/\/[^\/.][^\/]*\/\.\.\//, "/", p)) {} if (p == h) print t }' | sort -u
}

# touch_phase: the headers touched (same bytes, new mtime), then a rebuild of the set in B.
touch_phase() {
  local h
  log "touch ${TOUCH_HEADERS[*]}, rebuild"
  for h in "${TOUCH_HEADERS[@]}"; do touch "$GGML_DIR/$h"; done
  sleep 1  # nothing ccache sees as "too new": the compiles start a second later
  phase_build touch "$B"
  explain_misses touch "$B" "$A"
  log "  touch: rebuilt $(get touch.rebuilt), $(get touch.direct_cache_hit) direct + $(get touch.preprocessed_cache_hit) preprocessed hits, $(get touch.cache_miss) misses"
}

# change_phase: a declaration appended to CHANGE_HEADER, a rebuild of the set in B, the header put
# back. Expected misses: the set's TUs that include it, from `ninja -t deps` (before the change).
change_phase() {
  local h=$GGML_DIR/$CHANGE_HEADER src
  includers "$B" "$CHANGE_HEADER" >"$W/change.includers"
  put change.includers "$(grep -c . "$W/change.includers" || true)"
  log "append a declaration to $CHANGE_HEADER ($(get change.includers) TUs of the set include it), rebuild"
  cp -p "$h" "$W/header.orig"
  printf '\n// shimctl bench: a genuine change\nint shimctl_bench_ggml_change(void);\n' >>"$h"
  sleep 1
  phase_build change "$B"
  cp -p "$W/header.orig" "$h"
  while IFS= read -r src; do [ -z "$src" ] || target_of "$B" "$src"; done < <(missed_sources "$W/change.statslog") |
    sort -u >"$W/change.missed"
  put change.missed_not_includer "$(comm -13 "$W/change.includers" "$W/change.missed" | xargs)"
  put change.includer_not_missed "$(comm -23 "$W/change.includers" "$W/change.missed" | xargs)"
  log "  change: rebuilt $(get change.rebuilt), $(get change.cache_miss) misses (includers: $(get change.includers)), $(get change.direct_cache_hit) direct + $(get change.preprocessed_cache_hit) preprocessed hits"
}

# ---- step 5: add a GPU target (issue 25) ----
PIECES_ONE=gfx90a PIECES_TWO="gfx90a;gfx942"

# piece_counts CACHE: "HIT MISS SPLIT WHOLE CHECKED" of CACHE/shimctl-pieces (zeros when absent).
piece_counts() {
  awk '$1 == "piece_hit" { h = $2 } $1 == "piece_miss" { m = $2 } $1 == "split_compile" { s = $2 }
    $1 == "whole_compile" { w = $2 } $1 == "checked_same" { c = $2 }
    END { printf "%d %d %d %d %d\n", h, m, s, w, c }' "$1/shimctl-pieces" 2>/dev/null || echo "0 0 0 0 0"
}

# pieces_build KEY BUILD: a timed shim build of the set in BUILD against CACHE (ccache's statistics
# zeroed first), the pieces' trace on; records the time, the load before it, ccache's counters, the
# delta of the pieces' counters, the whole-object hits and misses (ccache's less the pieces': each
# piece is a ccache compile of its own) and the trace's per-target piece outcomes.
pieces_build() {
  local key=$1 b=$2 before after ms t
  put "$key.load" "$(cut -d' ' -f1-3 /proc/loadavg)"
  read -r -a before < <(piece_counts "$CACHE")
  CCACHE_DIR=$CACHE ccache -z >/dev/null
  # SHIMCTL_PIECES=1: A's one-target compiles are split too (by default only two or more targets
  # are: docs/per-target.md), so that B finds their pieces.
  ms=$(timed_build "$b" CCACHE_DIR="$CACHE" XDG_CACHE_HOME="$PXDG" SHIMCTL_SHIM_TRACE=1 SHIMCTL_PIECES=1)
  read -r -a after < <(piece_counts "$CACHE")
  put "$key.ms" "$ms"
  put_stats "$key" "$CACHE"
  put "$key.piece_hit" $((after[0] - before[0])); put "$key.piece_miss" $((after[1] - before[1]))
  put "$key.split" $((after[2] - before[2])); put "$key.whole" $((after[3] - before[3]))
  put "$key.obj_hit" $(($(get "$key.direct_cache_hit") + $(get "$key.preprocessed_cache_hit") - $(get "$key.piece_hit")))
  put "$key.obj_miss" $(($(get "$key.cache_miss") - $(get "$key.piece_miss")))
  put "$key.trace" "$(sed -n 's/.*shimctl-shim: pieces: piece \([^ ]*\) \(hit\|miss\).*/\1 \2/p' "$b.build.log" |
    sort | uniq -c | awk '{ printf "%s%s %s %d", sep, $2, $3, $1; sep = ", " }')"
  t=$(grep -c 'shimctl-shim: pieces: whole object' "$b.build.log" || true)
  put "$key.trace_whole" "$t"
  grep 'shimctl-shim: pieces: whole object' "$b.build.log" | sed 's/.*whole object: //' | sort | uniq -c |
    awk '{ $1 = $1 "x"; print }' | paste -sd';' >"$W/pieces/$key.whole-reasons" || true
}

# plain_build KEY BUILD: the uncached build (the shimmed prefix, SHIMCTL_DISABLE=1); CCACHE_DIR
# points at a cache that must stay empty.
plain_build() {
  local key=$1 b=$2 ms
  put "$key.load" "$(cut -d' ' -f1-3 /proc/loadavg)"
  mkdir -p "$b.cache-must-stay-empty"
  ms=$(timed_build "$b" SHIMCTL_DISABLE=1 CCACHE_DIR="$b.cache-must-stay-empty" XDG_CACHE_HOME="$PXDG")
  put "$key.ms" "$ms"
  put "$key.cache_files" "$(find "$b.cache-must-stay-empty" -type f | wc -l)"
}

# compare_all KEY X Y: cmp of every object (find -name '*.o') of X with Y's at the same relative
# path; the differing or missing ones in $W/pieces/KEY.cmp.
compare_all() {
  local key=$1 x=$2 y=$3 o same=0 differ=0 n=0
  : >"$W/pieces/$key.cmp"
  while IFS= read -r o; do
    n=$((n + 1))
    if cmp -s "$x/$o" "$y/$o"; then same=$((same + 1)); else differ=$((differ + 1)); echo "$o" >>"$W/pieces/$key.cmp"; fi
  done < <(cd "$x" && find . -name '*.o' | sed 's|^\./||' | sort)
  put "$key.cmp_same" "$same"; put "$key.cmp_n" "$n"
  put "$key.cmp_y_n" "$(cd "$y" && find . -name '*.o' | wc -l)"
}

# pieces_warmup: one split compile of a throwaway HIP source through the shimmed prefix, so that
# the toolchain's one-step check (its verdict in PXDG) is not in a timed build.
pieces_warmup() {
  local d=$W/pieces/warmup c
  mkdir -p "$d"
  printf '#include <hip/hip_runtime.h>\n__global__ void shimctl_warmup(float* x) { x[threadIdx.x] *= 2.0f; }\n' >"$d/w.hip"
  (cd "$d" && env CCACHE_DIR="$W/pieces/cache-warmup" XDG_CACHE_HOME="$PXDG" SHIMCTL_SHIM_TRACE=1 \
    "$PS/lib/llvm/bin/clang++" -x hip -O2 --offload-arch=gfx90a -c w.hip -o w.o) >"$d/log" 2>&1 ||
    { cat "$d/log" >&2; die "the pieces' warm-up compile failed"; }
  put pieces.warmup "$(grep -m1 -i 'check' "$d/log" | sed 's/^shimctl-shim: pieces: //' || true)"
  put pieces.warmup_counts "$(piece_counts "$W/pieces/cache-warmup")"
  read -r -a c < <(piece_counts "$W/pieces/cache-warmup")
  [ "${c[2]}" -ge 1 ] || log "  warning: the warm-up compile was not split ($(tail -3 "$d/log" | paste -sd' '))"
}

# pieces_phase: step 5.
pieces_phase() {
  local r a=$W/pieces/one/build b c first
  PXDG=$W/pieces/xdg
  mkdir -p "$W/pieces/one" "$PXDG"
  log "add a GPU target: warm-up split compile (the toolchain's one-step check)"
  pieces_warmup
  log "  warm-up: $(get pieces.warmup) (counts hit miss split whole checked: $(get pieces.warmup_counts))"
  if [ "${BENCH_GGML_PIECES_COLD:-0}" = 1 ]; then
    mkdir -p "$W/pieces/one-plain"
    configure "$PS" "$W/pieces/one-plain/build" "$PIECES_ONE"
    resolve_targets "$W/pieces/one-plain/build"
    plain_build pieces.one_plain "$W/pieces/one-plain/build"
    log "  $PIECES_ONE uncached: $(($(get pieces.one_plain.ms) / 1000)) s"
  fi
  CACHE=$W/pieces/cache-one; mkdir -p "$CACHE"
  configure "$PS" "$a" "$PIECES_ONE"
  resolve_targets "$a"
  log "add a GPU target: $PIECES_ONE through the shim, empty cache (dir $a)"
  pieces_build pieces.one "$a"
  log "  $PIECES_ONE: $(($(get pieces.one.ms) / 1000)) s, pieces hit $(get pieces.one.piece_hit) compiled $(get pieces.one.piece_miss), $(get pieces.one.split) objects from pieces, $(get pieces.one.whole) whole"
  for ((r = 1; r <= PROUNDS; r++)); do
    b=$W/pieces/r$r/two-shim/build c=$W/pieces/r$r/two-plain/build
    mkdir -p "${b%/build}" "${c%/build}"
    rm -rf "$W/pieces/r$r/cache"; cp -a "$W/pieces/cache-one" "$W/pieces/r$r/cache"
    CACHE=$W/pieces/r$r/cache
    configure "$PS" "$b" "$PIECES_TWO"; configure "$PS" "$c" "$PIECES_TWO"
    resolve_targets "$b"
    if ((r % 2)); then first=shim; else first=plain; fi
    put "pieces.r$r.first" "$first"
    log "add a GPU target, round $r ($first first): $PIECES_TWO from fresh dirs through the shim ($b) and uncached ($c)"
    if [ "$first" = shim ]; then pieces_build "pieces.r$r.shim" "$b"; plain_build "pieces.r$r.plain" "$c"
    else plain_build "pieces.r$r.plain" "$c"; pieces_build "pieces.r$r.shim" "$b"; fi
    put "pieces.r$r.ratio" "$(ratio "$(get "pieces.r$r.shim.ms")" "$(get "pieces.r$r.plain.ms")")"
    compare_all "pieces.r$r" "$b" "$c"
    log "  round $r: shim $(($(get "pieces.r$r.shim.ms") / 1000)) s, uncached $(($(get "pieces.r$r.plain.ms") / 1000)) s (ratio $(get "pieces.r$r.ratio")); pieces hit $(get "pieces.r$r.shim.piece_hit") compiled $(get "pieces.r$r.shim.piece_miss"); whole-object hits $(get "pieces.r$r.shim.obj_hit"); objects $(get "pieces.r$r.cmp_same")/$(get "pieces.r$r.cmp_n") identical"
  done
}

# report_pieces: step 5's section of GGML.md.
report_pieces() {
  local r s p
  s=$(for ((r = 1; r <= PROUNDS; r++)); do get "pieces.r$r.shim.ms"; done | median)
  p=$(for ((r = 1; r <= PROUNDS; r++)); do get "pieces.r$r.plain.ms"; done | median)
  put pieces.shim.median "$s"; put pieces.plain.median "$p"
  echo
  echo "## Step 5: add a GPU target (issue 25's per-GPU-target pieces)"
  echo
  echo "The set built for GPU_TARGETS=$PIECES_ONE through the shim with an empty cache (dir A), then from a"
  echo "fresh build directory at another path for GPU_TARGETS=\"$PIECES_TWO\" through the shim (dir B, against"
  echo "a copy of the cache as A left it), against an uncached two-target build (dir C: the same shimmed"
  echo "prefix, SHIMCTL_DISABLE=1, so the same -cuid= and the same objects). Paired rounds, the order"
  echo "alternating. Whole-object hits and misses are ccache's less the pieces' (each piece is a ccache"
  echo "compile of its own)."
  echo
  echo "Warm-up before timing (one split compile of a throwaway source): $(or_none pieces.warmup);"
  echo "its cache's pieces counters (hit miss split whole checked): $(get pieces.warmup_counts)."
  echo
  echo "| step | wall s | load (1 5 15) | whole-object hits | whole-object misses | pieces hit | pieces compiled | objects from pieces | note |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|---|"
  [ -z "$(get pieces.one_plain.ms)" ] ||
    echo "| $PIECES_ONE, uncached (SHIMCTL_DISABLE=1) | $(sec pieces.one_plain.ms) | $(get pieces.one_plain.load) | | | | | | |"
  echo "| A: $PIECES_ONE through the shim, empty cache | $(sec pieces.one.ms) | $(get pieces.one.load) | $(get pieces.one.obj_hit) | $(get pieces.one.obj_miss) | $(get pieces.one.piece_hit) | $(get pieces.one.piece_miss) | $(get pieces.one.split) | trace: $(or_none pieces.one.trace)$([ -z "$(get pieces.one_plain.ms)" ] || echo "; / uncached $(ratio "$(get pieces.one.ms)" "$(get pieces.one_plain.ms)")") |"
  for ((r = 1; r <= PROUNDS; r++)); do
    echo "| B: $PIECES_TWO, fresh dir, through the shim, round $r ($(get "pieces.r$r.first") first) | $(sec "pieces.r$r.shim.ms") | $(get "pieces.r$r.shim.load") | $(get "pieces.r$r.shim.obj_hit") | $(get "pieces.r$r.shim.obj_miss") | $(get "pieces.r$r.shim.piece_hit") | $(get "pieces.r$r.shim.piece_miss") | $(get "pieces.r$r.shim.split") | B / C $(get "pieces.r$r.ratio"); trace: $(or_none "pieces.r$r.shim.trace"); whole compiles $(get "pieces.r$r.shim.whole") |"
    echo "| C: $PIECES_TWO, uncached (SHIMCTL_DISABLE=1), round $r | $(sec "pieces.r$r.plain.ms") | $(get "pieces.r$r.plain.load") | | | | | | files in its CCACHE_DIR: $(get "pieces.r$r.plain.cache_files") |"
  done
  echo "| medians: B / C | $(sec pieces.shim.median) / $(sec pieces.plain.median) | | | | | | | ratio $(ratio "$s" "$p") |"
  echo
  for ((r = 1; r <= PROUNDS; r++)); do
    echo "Round $r, objects of B against C (cmp, every *.o of B): $(get "pieces.r$r.cmp_same")/$(get "pieces.r$r.cmp_n") identical ($(get "pieces.r$r.cmp_y_n") objects in C)$( [ -s "$W/pieces/pieces.r$r.cmp" ] && printf '; differ: %s' "$(paste -sd' ' "$W/pieces/pieces.r$r.cmp")")."
  done
  local k
  for k in pieces.one $(for ((r = 1; r <= PROUNDS; r++)); do echo "pieces.r$r.shim"; done); do
    [ "$(get "$k.trace_whole")" -gt 0 ] && echo "Whole objects in $k (trace): $(cat "$W/pieces/$k.whole-reasons")."
  done
  echo "Other ccache counters: A $(or_none pieces.one.other); B round 1 $(or_none pieces.r1.shim.other)."
  return 0
}

# versions: what ran.
versions() {
  put v.ccache "$(ccache --version | head -1)"
  put v.clang "$(/usr/lib/llvm-21/bin/clang --version | head -1)"
  put v.hipcc "$(dpkg-query -W -f='hipcc ${Version}' hipcc)"
  put v.cmake "$(cmake --version | head -1)"
  put v.ninja "ninja $(ninja --version)"
  put v.shimctl "$("$SHIMCTL" --version 2>&1 | paste -sd ';' | sed 's/;/; /g')"
  put v.commit "${BENCH_GGML_COMMIT:-unknown}"
  put machine "$(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(uname -r)"
}

calls() { echo $(($(get "$1.direct_cache_hit") + $(get "$1.preprocessed_cache_hit") + $(get "$1.cache_miss"))); }
hit_pct() { pct $(($(get "$1.direct_cache_hit") + $(get "$1.preprocessed_cache_hit"))) "$(calls "$1")"; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.1f %%", 100 * a / b; else print "n/a" }'; }

# report: the table (stdout) and GGML.md.
report() {
  local md=$W/GGML.md r n=${#SET[@]} s p opts=''
  [ "$QUICK" = yes ] && opts+=' --quick'
  [ "$PIECES" = yes ] && opts+=' --pieces'
  [ "$PIECES" = only ] && opts+=' --pieces-only'
  {
    echo "# ggml's HIP backend through shimctl (scripts/bench --section ggml$opts)"
    echo
    echo "$(get started); $(get machine); load $(get load_start) -> $(cut -d' ' -f1-3 /proc/loadavg)."
    echo "Source: $SRC_DESC. Prefixes: scripts/make-rocm-prefix --stack sid (hipcc 7.0.2 hipBin, clang-21)."
    echo "$(get v.ccache); $(get v.clang); $(get v.hipcc); $(get v.cmake); $(get v.ninja)."
    echo "shimctl: $(get v.commit) ($(get v.shimctl))."
    echo
    echo "Build set: $n TUs, ninja -j$JOBS, Release, -DGGML_HIP=ON -DGPU_TARGETS=gfx90a (step 5: its own), GGML_CCACHE=OFF:"
    echo
    printf '    %s\n' "${SET[@]}"
    [ "$PIECES" = only ] || report_steps
    [ "$PIECES" = no ] || report_pieces
  } >"$md"
  cat "$md"
}

# report_steps: steps 1-4's table and notes.
report_steps() {
  local r s p
  s=$(for ((r = 1; r <= ROUNDS; r++)); do get "cold.shim.r$r.ms"; done | median)
  p=$(for ((r = 1; r <= ROUNDS; r++)); do get "cold.plain.r$r.ms"; done | median)
  put cold.shim.median "$s"; put cold.plain.median "$p"
  {
    echo
    echo "| step | wall s | hits direct | hits preprocessed | misses | note |"
    echo "|---|---:|---:|---:|---:|---|"
    for ((r = 1; r <= ROUNDS; r++)); do
      echo "| cold, no cache (prefix without shim), round $r | $(sec "cold.plain.r$r.ms") | | | | |"
      echo "| cold, shim + empty cache, round $r | $(sec "cold.shim.r$r.ms") | $(get cold.shim.r$r.direct_cache_hit) | $(get cold.shim.r$r.preprocessed_cache_hit) | $(get cold.shim.r$r.cache_miss) | shim / no cache $(get cold.ratio.r$r) |"
    done
    echo "| cold medians: shim / no cache | $(sec cold.shim.median) / $(sec cold.plain.median) | | | | ratio $(ratio "$s" "$p") |"
    echo "| fresh build dir (other path), warm cache | $(sec fresh.ms) | $(get fresh.direct_cache_hit) | $(get fresh.preprocessed_cache_hit) | $(get fresh.cache_miss) | hits $(hit_pct fresh), $(pct "$(get fresh.direct_cache_hit)" "$(calls fresh)") direct; $(ratio "$s" "$(get fresh.ms)")x faster than cold shim, $(ratio "$p" "$(get fresh.ms)")x than no cache |"
    echo "| control: a third dir, warm cache, base_dir off (CCACHE_BASEDIR=) | $(sec control.ms) | $(get control.direct_cache_hit) | $(get control.preprocessed_cache_hit) | $(get control.cache_miss) | hits $(hit_pct control): what a cache without base_dir gets |"
    echo "| touch ${TOUCH_HEADERS[*]} | $(sec touch.ms) | $(get touch.direct_cache_hit) | $(get touch.preprocessed_cache_hit) | $(get touch.cache_miss) | ninja rebuilt $(get touch.rebuilt) |"
    echo "| change $CHANGE_HEADER | $(sec change.ms) | $(get change.direct_cache_hit) | $(get change.preprocessed_cache_hit) | $(get change.cache_miss) | ninja rebuilt $(get change.rebuilt); TUs including it (ninja -t deps): $(get change.includers) |"
    echo
    echo "Change: missed TUs that do not include it: $(or_none change.missed_not_includer); including TUs that did not miss: $(or_none change.includer_not_missed)."
    echo "Objects of the fresh directory against the first's (cmp): $(get fresh.cmp_same) identical, $(get fresh.cmp_differ) differ$( [ -s "$W/cmp.txt" ] && printf ': %s' "$(paste -sd' ' "$W/cmp.txt")")."
    echo "Other ccache counters per step: cold $(or_none "cold.shim.r$ROUNDS.other"); fresh $(or_none fresh.other); touch $(or_none touch.other); change $(or_none change.other)."
    echo
    echo "Anchor: $ANCHOR. $TARGET_LINE: $(pct "$(get fresh.direct_cache_hit)" "$(calls fresh)") direct hits here."
    local k
    for k in fresh touch control; do
      echo
      echo "Misses explained ($k, $(get "$k.explained")):"
      if [ -s "$W/$k.explained" ]; then cat "$W/$k.explained"; else echo "none."; fi
    done
    echo
    echo "ccache -v -s after the fresh-directory build (its statistics zeroed before it):"
    echo
    sed 's/^/    /' "$W/stats-fresh.txt"
  }
}

or_none() { local v; v=$(get "$1"); echo "${v:-none}"; }
sec() { awk -v v="$(get "$1")" 'BEGIN { if (v == "") print "n/a"; else printf "%.1f", v / 1000 }'; }

inside_main() {
  W=$1 QUICK=$2 PIECES=${3:-no}
  R=$W/results.tsv; : >"$R"
  # shellcheck source=/dev/null
  source "$W/source.env"
  cd "$W"
  for v in $(env | sed -n 's/^\(\(SHIMCTL\|CCACHE\|SCCACHE\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
  JOBS=${BENCH_GGML_JOBS:-2}
  if [ "$QUICK" = yes ]; then SET=("${GGML_QUICK_SET[@]}"); ROUNDS=${BENCH_GGML_ROUNDS:-1}
  else SET=("${GGML_SET[@]}"); ROUNDS=${BENCH_GGML_ROUNDS:-2}; fi
  if [ "$QUICK" = yes ]; then PROUNDS=${BENCH_GGML_PIECES_ROUNDS:-1}; else PROUNDS=${BENCH_GGML_PIECES_ROUNDS:-2}; fi
  put started "$(date -u '+%Y-%m-%d %H:%M UTC')"; put load_start "$(cut -d' ' -f1-3 /proc/loadavg)"
  ensure_packages
  ensure_shimctl
  versions
  log "$(get v.ccache); $(get v.clang); shimctl $(get v.commit)"
  PS=$W/rocm-shim; PP=$W/rocm-plain
  make_prefix "$PS"; make_prefix "$PP"
  "$SHIMCTL" install "$PS" --cache-tool "$(command -v ccache)" --cache-dir "$W/cache-install" >"$W/install.log" 2>&1 ||
    { cat "$W/install.log" >&2; die "shimctl install $PS failed"; }
  log "$(grep -m1 'now go through' "$W/install.log" || tail -1 "$W/install.log")"
  if [ "$PIECES" != only ]; then
    cold_rounds
    fresh_dir_phase
    control_phase
    touch_phase
    change_phase
  fi
  [ "$PIECES" = no ] || pieces_phase
  report
}

[ "${BASH_SOURCE[0]}" = "$0" ] || return 0  # sourced: the functions only
if [ "${1:-}" = --inside ]; then
  [ "${SHIMCTL_BENCH_GGML_INSIDE:-}" = 1 ] || die "--inside runs inside the sid root (scripts/sid-run)"
  GGML_BUILD_DIR=${GGML_BUILD_DIR:-$repo/build-ggml}
  inside_main "$2" "$3" "${4:-no}"
else
  host_main "$@"
fi
