#!/usr/bin/env bash
# scripts/bench --section pieces, one stack (issue 25): what the per-GPU-target pieces save when a
# HIP source is compiled again for another target set, and what they cost on a whole hit and on a
# cold miss. Run by scripts/lib/bench/pieces.py, as root: on the host for debian12, inside the sid
# root (scripts/sid-run) for sid.
#
# Usage: bench-pieces.bash STACK WORK SHIMCTL ROUNDS KERNELS HIT-RUNS
#   STACK     debian12 (make-rocm-prefix --llvm 15: perl hipcc 5.2, clang-15, ccache 4.7.5; targets
#             A,B = gfx908,gfx90a, C = gfx1030), sid (--stack sid: hipcc 7.0.2, clang-21, the old
#             offload driver, ccache 4.14.2; A,B = gfx90a,gfx942, C = gfx1100) or sid23 (--stack
#             sid --llvm 23: clang-23, the new offload driver; the same targets)
#   WORK      a new directory for everything (results: WORK/times.tsv, WORK/pieces.tsv,
#             WORK/cmp.tsv, WORK/info, hyperfine's JSON in WORK/hit-KERNEL/json)
#   SHIMCTL   the shimctl build for this stack
#   ROUNDS    paired rounds per kernel; KERNELS: "small heavy" or a subset; HIT-RUNS: hyperfine
#             runs of each side per round of the whole-hit comparison
# Environment: BENCH_HYPERFINE (default hyperfine: the sid root has none, pieces.py stages the
# host's).
#
# One prefix, installed with ccache (verified); the uncached side is the same prefix's clang++
# with SHIMCTL_DISABLE=1 (the original compiler, the shim's -cuid= included: the same object as
# the cache makes). Every compile is `CLANG++ -x hip -O2 --offload-arch=X... -c k.hip -o k.o` in a
# directory of its own (the same relative names everywhere: the pieces, like the object's CUID,
# are keyed by them). Before any timing, one split compile of a throwaway source: the first split
# of a toolchain also runs its one-step check (its verdict kept in XDG_CACHE_HOME=WORK/xdg).
# Each round writes a new source (a round constant in the code) per kernel, then, each pair in
# alternating order (the shim side first in odd rounds):
#   cold      {A,B} through the shim, pieces on (cache1, empty) / SHIMCTL_PIECES=0 (cache0, empty)
#   add       {A,B,C} through the shim against cache1 (pieces A, B kept) / uncached {A,B,C}
#   overlap   {B,C} through the shim against a copy of cache1 as the cold step left it / uncached
#   grow      {A} through the shim into cache3 with SHIMCTL_PIECES=1 (a one-target compile is split
#             only on request; untimed: the fill), then {A,B} through the shim
#             against cache3 / uncached {A,B}
# and after each of add, overlap and grow its floor: the new target's device code alone, uncached
# (--cuda-device-only: C, C, B), what any per-target cache must still compile.
# Each shim step's piece counts (hit, miss, split: the delta of CACHE/shimctl-pieces) go to
# pieces.tsv; every shim object is cmp'ed with the uncached object of the same target set
# (cold's with grow's uncached {A,B}). After the rounds, the whole hit: the last round's {A,B,C}
# again (a hit of the whole object in cache1), pieces on against SHIMCTL_PIECES=0, paired
# hyperfine rounds (ccache's stats_log of every run: all must be hits). Nothing is gated on time.
set -euo pipefail
[ $# -eq 6 ] || { sed -n '7,17p' "$0" >&2; exit 2; }
STACK=$1 W=$2 SHIMCTL=$3 ROUNDS=$4 KERNELS=$5 HIT_RUNS=$6
SRC_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HF=${BENCH_HYPERFINE:-hyperfine}
mkdir -p "$W" && cd "$W"
W=$(pwd)
for v in $(env | sed -n 's/^\(\(SHIMCTL\|CCACHE\|SCCACHE\)_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
export XDG_CACHE_HOME=$W/xdg # the shim's memos and the pieces' check verdict: ours
say() { echo "bench-pieces: $STACK: $*" >&2; }
die() { echo "bench-pieces: $STACK: error: $*" >&2; exit 1; }
trap 'echo "bench-pieces: $STACK: failed at line $LINENO: $BASH_COMMAND" >&2' ERR

case $STACK in
  debian12) CLANG=llvm/bin/clang++ PREFIX_ARGS=(--llvm 15) A=gfx908 B=gfx90a C=gfx1030 ;;
  sid) CLANG=lib/llvm/bin/clang++ PREFIX_ARGS=(--stack sid) A=gfx90a B=gfx942 C=gfx1100 ;;
  sid23) CLANG=lib/llvm/bin/clang++ PREFIX_ARGS=(--stack sid --llvm 23) A=gfx90a B=gfx942 C=gfx1100 ;;
  *) die "unknown stack $STACK" ;;
esac
P=$W/rocm

# kernel NAME NONCE: the source of kernel NAME with NONCE in its code (a new source each round).
kernel() {
  echo '#include <hip/hip_runtime.h>'
  echo "// scripts/bench --section pieces: kernel $1; the constant makes the source new."
  echo "#define BENCH_NONCE $2"
  case $1 in
    small) cat <<'HIP'
__global__ void small_kernel(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = sqrtf(x[i]) * expf(-x[i]) + sinf(x[i]) * 3.0f + (float)BENCH_NONCE;
}
HIP
      ;;
    heavy) cat <<'HIP'
// 15 instantiations of a templated kernel (unrolled loops, math, a shared-memory reduction).
template <int N, typename T>
__global__ void heavy_kernel(T* x, const T* y, int n) {
  __shared__ T tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T acc = (T)BENCH_NONCE;
#pragma unroll
  for (int k = 0; k < N; ++k) {
    T v = i + k < n ? y[i + k] : (T)0;
    acc += sqrt(v * v + (T)k) * sin(v) + cos(acc) * (T)(k + 1);
  }
  tile[threadIdx.x] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) tile[threadIdx.x] += tile[threadIdx.x + s];
    __syncthreads();
  }
  if (i < n) x[i] = tile[0] / (T)N + acc;
}
#define INST(N) \
  template __global__ void heavy_kernel<N, float>(float*, const float*, int);
INST(1) INST(2) INST(3) INST(4) INST(5) INST(6) INST(7) INST(8)
INST(9) INST(10) INST(11) INST(12) INST(13) INST(14) INST(15)
HIP
      ;;
    *) die "unknown kernel $1" ;;
  esac
}

# compile DIR KERNEL NONCE TARGETS [NAME=VALUE...]: k.hip (new) and one compile in DIR by the
# prefix's clang++ with ENV (DEVICE_ONLY=1: --cuda-device-only); prints its wall time in seconds.
compile() {
  local d=$1 k=$2 nonce=$3 targets=$4 t0 t1 a args=()
  shift 4
  mkdir -p "$d"
  kernel "$k" "$nonce" >"$d/k.hip"
  for a in ${targets//,/ }; do args+=("--offload-arch=$a"); done
  t0=$(date +%s%N)
  (cd "$d" && env "$@" "$P/$CLANG" -x hip -O2 "${args[@]}" ${DEVICE_ONLY:+--cuda-device-only} -c k.hip -o k.o) \
    >"$d/log" 2>&1 ||
    die "compile in $d failed: $(tail -5 "$d/log")"
  t1=$(date +%s%N)
  awk -v t="$((t1 - t0))" 'BEGIN { printf "%.3f", t / 1e9 }'
}

# counts CACHE: "HIT MISS SPLIT" of CACHE/shimctl-pieces.
counts() {
  awk '$1 == "piece_hit" { h = $2 } $1 == "piece_miss" { m = $2 } $1 == "split_compile" { s = $2 }
    END { printf "%d %d %d\n", h, m, s }' "$1/shimctl-pieces" 2>/dev/null || echo "0 0 0"
}

# shim_step KERNEL STEP ROUND DIR CACHE NONCE TARGETS [NAME=VALUE...]: a compile through the shim
# against CACHE; its time to times.tsv, the delta of its piece counts to pieces.tsv.
shim_step() {
  local k=$1 step=$2 r=$3 d=$4 cache=$5 nonce=$6 targets=$7 before after s
  shift 7
  mkdir -p "$cache"
  read -r -a before < <(counts "$cache")
  s=$(compile "$d" "$k" "$nonce" "$targets" CCACHE_DIR="$cache" SHIMCTL_SHIM_TRACE=1 "$@")
  read -r -a after < <(counts "$cache")
  printf '%s\t%s\t%s\t%s\t%s\n' "$k" "$step" "$r" shim "$s" >>"$W/times.tsv"
  printf '%s\t%s\t%s\t%d\t%d\t%d\n' "$k" "$step" "$r" $((after[0] - before[0])) $((after[1] - before[1])) \
    $((after[2] - before[2])) >>"$W/pieces.tsv"
}

# plain_step KERNEL STEP ROUND DIR NONCE TARGETS: the uncached compile (SHIMCTL_DISABLE=1).
plain_step() {
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" uncached "$(compile "$4" "$1" "$5" "$6" SHIMCTL_DISABLE=1)" >>"$W/times.tsv"
}

# floor_step KERNEL STEP ROUND DIR NONCE TARGET: the least any per-target scheme pays for STEP,
# uncached: the device code of the one new target alone (--cuda-device-only, SHIMCTL_DISABLE=1).
floor_step() {
  printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" floor \
    "$(DEVICE_ONLY=1 compile "$4" "$1" "$5" "$6" SHIMCTL_DISABLE=1)" >>"$W/times.tsv"
}

# pair ROUND FIRST-CMD... -- SECOND-CMD...: both, the first one first in odd rounds.
pair() {
  local r=$1 one=() two=()
  shift
  while [ "$1" != -- ]; do one+=("$1"); shift; done
  shift
  two=("$@")
  if ((r % 2)); then "${one[@]}"; "${two[@]}"; else "${two[@]}"; "${one[@]}"; fi
}

# same KERNEL STEP ROUND X Y: whether X/k.o and Y/k.o are byte-identical, to cmp.tsv.
same() {
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$(cmp -s "$4/k.o" "$5/k.o" && echo same || echo differ)" >>"$W/cmp.tsv"
}

one_round() {
  local k=$1 r=$2 d=$W/$1/r$2 n
  n=$((SEED + r))
  say "$k round $r"
  # cold: {A,B}, pieces on (cache1) / off (cache0), both empty caches
  pair "$r" shim_step "$k" cold "$r" "$d/cold" "$d/cache1" "$n" "$A,$B" -- \
    shim_step "$k" cold-nopieces "$r" "$d/cold0" "$d/cache0" "$n" "$A,$B" SHIMCTL_PIECES=0
  same "$k" cold-nopieces "$r" "$d/cold" "$d/cold0"
  cp -a "$d/cache1" "$d/cache2"
  # add: {A,B,C} against cache1
  pair "$r" shim_step "$k" add "$r" "$d/add" "$d/cache1" "$n" "$A,$B,$C" -- \
    plain_step "$k" add "$r" "$d/add-u" "$n" "$A,$B,$C"
  same "$k" add "$r" "$d/add" "$d/add-u"
  floor_step "$k" add "$r" "$d/add-f" "$n" "$C"
  # overlap: {B,C} against cache2 (cache1 as the cold step left it)
  pair "$r" shim_step "$k" overlap "$r" "$d/overlap" "$d/cache2" "$n" "$B,$C" -- \
    plain_step "$k" overlap "$r" "$d/overlap-u" "$n" "$B,$C"
  same "$k" overlap "$r" "$d/overlap" "$d/overlap-u"
  floor_step "$k" overlap "$r" "$d/overlap-f" "$n" "$C"
  # grow: {A} into cache3, then {A,B}
  shim_step "$k" grow-fill "$r" "$d/grow-fill" "$d/cache3" "$n" "$A" SHIMCTL_PIECES=1 # one target: split on request
  pair "$r" shim_step "$k" grow "$r" "$d/grow" "$d/cache3" "$n" "$A,$B" -- \
    plain_step "$k" grow "$r" "$d/grow-u" "$n" "$A,$B"
  same "$k" grow "$r" "$d/grow" "$d/grow-u"
  floor_step "$k" grow "$r" "$d/grow-f" "$n" "$B"
  same "$k" cold "$r" "$d/cold" "$d/grow-u"
}

# statslog_counts FILE: "COMPILES HITS MISSES" from ccache's stats_log.
statslog_counts() {
  awk '/^#/ { n++ } $1 ~ /^(direct_cache_hit|preprocessed_cache_hit)$/ { h++ } $1 == "cache_miss" { m++ }
    END { printf "%d %d %d\n", n, h, m }' "$1" 2>/dev/null || echo "0 0 0"
}

# whole_hit KERNEL: the last round's {A,B,C} again in its directory (a whole-object hit in
# cache1), pieces on / SHIMCTL_PIECES=0, ROUNDS hyperfine invocations, the order alternating.
whole_hit() {
  local k=$1 d=$W/$1/r$ROUNDS r on off
  local args=(-x hip -O2 "--offload-arch=$A" "--offload-arch=$B" "--offload-arch=$C" -c k.hip -o k.o)
  mkdir -p "$W/hit-$k/json"
  on=$(printf '%q ' env CCACHE_DIR="$d/cache1" CCACHE_STATSLOG="$W/hit-$k/on.statslog" "$P/$CLANG" "${args[@]}")
  off=$(printf '%q ' env CCACHE_DIR="$d/cache1" CCACHE_STATSLOG="$W/hit-$k/off.statslog" SHIMCTL_PIECES=0 "$P/$CLANG" "${args[@]}")
  say "$k whole hit: $ROUNDS rounds x $HIT_RUNS runs"
  for ((r = 1; r <= ROUNDS; r++)); do
    if ((r % 2)); then set -- -n pieces "$on" -n nopieces "$off"; else set -- -n nopieces "$off" -n pieces "$on"; fi
    (cd "$d/add" && "$HF" -N --style basic --runs "$HIT_RUNS" --warmup 1 --export-json "$W/hit-$k/json/r$r.json" "$@") \
      >>"$W/hit-$k/hyperfine.log" 2>&1 || die "hyperfine failed: $W/hit-$k/hyperfine.log"
  done
  printf '%s\tpieces\t%s\n%s\tnopieces\t%s\n' "$k" "$(statslog_counts "$W/hit-$k/on.statslog")" \
    "$k" "$(statslog_counts "$W/hit-$k/off.statslog")" >>"$W/hitcounts.tsv"
}

main() {
  : >"$W/times.tsv"; : >"$W/pieces.tsv"; : >"$W/cmp.tsv"; : >"$W/hitcounts.tsv"
  "$SRC_DIR/scripts/make-rocm-prefix" "$P" "${PREFIX_ARGS[@]}" >"$W/make-prefix.log" 2>&1 ||
    die "make-rocm-prefix failed: $(tail -5 "$W/make-prefix.log")"
  "$SHIMCTL" install "$P" --cache ccache --cache-dir "$W/cache-install" >"$W/install.log" 2>&1 ||
    die "shimctl install failed: $(tail -5 "$W/install.log")"
  SEED=$(( $(date +%s) % 100000 * 100 ))
  # the first split of this toolchain: its one-step check, kept in XDG_CACHE_HOME
  shim_step small warmup 0 "$W/warmup" "$W/cache-warmup" "$SEED" "$A,$B" >/dev/null
  {
    echo "toolchain	$(head -1 < <("$P/$CLANG.real" --version 2>/dev/null || "$P/$CLANG" --version))"
    echo "ccache	$(ccache --version | head -1)"
    echo "shimctl	$("$SHIMCTL" --version | head -1)"
    echo "hyperfine	$("$HF" --version)"
    echo "targets	$A $B $C"
    echo "compile	$CLANG -x hip -O2 --offload-arch=... -c k.hip -o k.o"
    echo "check	$(grep -h 'checked against' "$W/warmup/log" | sed 's/^shimctl-shim: pieces: //' | head -1)"
    echo "warmup	$(counts "$W/cache-warmup")"
  } >"$W/info"
  local k r
  for k in $KERNELS; do
    for ((r = 1; r <= ROUNDS; r++)); do one_round "$k" "$r"; done
    whole_hit "$k"
  done
  "$SHIMCTL" rollback "$P" >>"$W/install.log" 2>&1 || true
  say "done"
}
main
