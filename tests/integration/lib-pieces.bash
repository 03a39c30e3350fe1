# Helpers of the per-target pieces suites (issue 25): pieces.bash (Debian 12: hipcc 5.2 with
# clang-15, clang-16 -x hip) and sid_pieces.bash (hipcc 7.0.2 and clang-$SID_LLVM -x hip: 21, the
# old offload driver; 23 in sid23_pieces.bash, the new one).
# A suite sources it after lib.bash (tests/integration/run sources that first).
# The prefix of a stack is built and installed once per suite (pz_prefix); every test compiles
# with its own CCACHE_DIR ($TEST_DIR/ccache: the environment wins over the installed default) and
# the suite's XDG_CACHE_HOME per stack (the first split of a toolchain is checked against its
# one-step compile once: pz_first_split_checked shows that check; the other tests need not pay it).
# Every compile runs from a directory of its own with the same relative names (k.hip, corpus.h,
# -o k.o): the shim's CUID is the same, so the objects compare byte for byte; an uncached
# reference is the same command with SHIMCTL_DISABLE=1 (the shim still gives it its -cuid=) run
# in the same directory (pz_ref): -g objects name their directory.

# pz_prefix STACK (15 | 16 | sid: clang-$SID_LLVM): P = the suite's installed prefix of that stack
# (built by scripts/make-rocm-prefix, installed with the cache dir $SUITE_TMP/install-ccache-STACK);
# PZ_STACK = STACK; CCACHE_DIR = $TEST_DIR/ccache; XDG_CACHE_HOME = $SUITE_TMP/xdg-STACK.
pz_prefix() {
  PZ_STACK=$1
  P=$SUITE_TMP/pieces-prefix-$1
  if [ ! -e "$P.ready" ]; then
    rm -rf "$P"
    if [ "$1" = sid ]; then
      "$SCRIPTS/make-rocm-prefix" "$P" --stack sid --llvm "$SID_LLVM" >/dev/null
    else
      "$SCRIPTS/make-rocm-prefix" "$P" --llvm "$1" >/dev/null
    fi || { fail "scripts/make-rocm-prefix for stack $1 failed"; return 1; }
    env -u CCACHE_DIR "$SHIMCTL" install "$P" --cache-dir "$SUITE_TMP/install-ccache-$1" --no-verify \
      >"$SUITE_TMP/install-$1.out" 2>&1 ||
      { fail "install of $P failed:"$'\n'"$(cat "$SUITE_TMP/install-$1.out")"; return 1; }
    : >"$P.ready"
  fi
  export CCACHE_DIR=$TEST_DIR/ccache
  export XDG_CACHE_HOME=$SUITE_TMP/xdg-$1
  mkdir -p "$XDG_CACHE_HOME"
  # The stored pieces (each target's device code and the host half kept apart): what these suites
  # test; the default without -fgpu-rdc derives objects from earlier ones (pz_case_derive).
  export SHIMCTL_PIECES_STORE=1
}

# pz_use hipcc | clang: PZ_CC = the compile command of this test (through the installed shims):
# hipcc, or clang++ -x hip (Debian's clang-15/16 find no ROCm without --rocm-path; sid's
# clang++.cfg gives it).
pz_use() {
  case $1 in
    hipcc) PZ_CC=("$P/bin/hipcc") ;;
    clang)
      PZ_CC=("$P/llvm/bin/clang++" -x hip)
      [ "$PZ_STACK" = sid ] || PZ_CC+=("--rocm-path=$P")
      ;;
    *) fail "pz_use: $1?" ;;
  esac
}

# corpus DIR [SCALE]: DIR holds k.hip (templates, math, __device__/__constant__ globals, a static
# __device__ variable the host reads, an anonymous-namespace kernel) and corpus.h (CORPUS_SCALE).
corpus() {
  mkdir -p "$1" || fail "cannot make $1"
  cat >"$1/k.hip" <<'EOF'
#include <hip/hip_runtime.h>
#include "corpus.h"
template <typename T> __global__ void axpy(T a, const T* x, T* y) { y[threadIdx.x] += a * x[threadIdx.x]; }
template __global__ void axpy<float>(float, const float*, float*);
template __global__ void axpy<double>(double, const double*, double*);
__global__ void math(float* x) {
  float v = x[threadIdx.x];
  x[threadIdx.x] = sqrtf(v) + sinf(v) * expf(v) + powf(v, 1.5f);
}
__device__ int dev_counter;
__constant__ float dev_table[4] = {1, 2, 3, CORPUS_SCALE};
static __device__ int static_hits;
namespace {
__global__ void anon_kernel(int* out) { atomicAdd(&static_hits, 1); out[0] = static_hits + dev_counter + (int)dev_table[3]; }
}
int launch(int* out) {
  hipLaunchKernelGGL(anon_kernel, dim3(1), dim3(1), 0, 0, out);
  int h = 0;
  (void)hipMemcpyFromSymbol(&h, HIP_SYMBOL(static_hits), sizeof h);
  return h;
}
EOF
  printf '#define CORPUS_SCALE %s\n' "${2:-4}" >"$1/corpus.h"
}

# tiny DIR: DIR holds t.hip, one small kernel (the fallback cases), and t2.hip.
tiny() {
  mkdir -p "$1" || fail "cannot make $1"
  printf '#include <hip/hip_runtime.h>\n__global__ void tiny_k(float* x) { x[threadIdx.x] = sqrtf(x[threadIdx.x]) + 1.0f; }\n' >"$1/t.hip"
  printf '#include <hip/hip_runtime.h>\n__global__ void tiny_k2(float* x) { x[threadIdx.x] *= 3.0f; }\n' >"$1/t2.hip"
}

# targets LIST: --offload-arch= arguments of a comma list, in hipcc's and CMake's style.
targets() {
  local t out=()
  for t in ${1//,/ }; do out+=("--offload-arch=$t"); done
  echo "${out[@]}"
}

# pz_compile DIR ARGS...: in DIR, PZ_CC ARGS through the shims with the trace on; the trace and
# the compiler's messages in DIR/trace (replaced). Fails the test when the compile fails.
pz_compile() {
  local dir=$1; shift
  (cd "$dir" && SHIMCTL_SHIM_TRACE=1 "${PZ_CC[@]}" "$@" >trace 2>&1) ||
    fail "compile in $dir failed: ${PZ_CC[*]} $*"$'\n'"$(cat "$dir/trace")"
}

# pz_ref DIR OUTS ARGS...: the same command uncached (SHIMCTL_DISABLE=1) in DIR: each file of the
# comma list OUTS (the compile's outputs: k.o, k.d) is moved aside first and the reference's is
# renamed ref.<name> after, so that the compile itself runs with the names the shim's ran with.
pz_ref() {
  local dir=$1 outs=$2 o; shift 2
  for o in ${outs//,/ }; do [ ! -e "$dir/$o" ] || mv "$dir/$o" "$dir/$o.shim"; done
  (cd "$dir" && SHIMCTL_DISABLE=1 "${PZ_CC[@]}" "$@" >ref.out 2>&1) ||
    fail "uncached reference compile in $dir failed: ${PZ_CC[*]} $*"$'\n'"$(cat "$dir/ref.out")"
  for o in ${outs//,/ }; do
    mv "$dir/$o" "$dir/ref.$o" || fail "the reference made no $o"
    [ ! -e "$dir/$o.shim" ] || mv "$dir/$o.shim" "$dir/$o"
  done
}

# pieces_in DIR: the pieces of DIR/trace, sorted: "gfx1030:miss gfx908:hit ..." ("" for none).
pieces_in() {
  sed -n 's/^shimctl-shim: pieces: piece \([^ ]*\) \(hit\|miss\).*/\1:\2/p' "$1/trace" | sort | xargs
}

# whole_in DIR: the reason of DIR/trace's "whole object" line ("" when there is none).
whole_in() {
  sed -n 's/^shimctl-shim: pieces: whole object: //p' "$1/trace" | head -1
}

# host_in DIR: "hit" or "miss" of DIR/trace's host half ("" when it was compiled with the object:
# -fgpu-rdc, a depfile without -MF, no llvm-objcopy beside the compiler).
host_in() {
  sed -n 's/^shimctl-shim: pieces: host half \(hit\|miss\).*/\1/p' "$1/trace"
}


# split_in DIR: N of "object from N pieces" in DIR/trace ("" when there is none).
split_in() {
  sed -n 's/^shimctl-shim: pieces: object from \([0-9]*\) pieces$/\1/p' "$1/trace"
}

# pz_counts [CACHE DIR]: "hit=N miss=N split=N" of the pieces' counters (absent: 0).
pz_counts() {
  local f=${1:-$CCACHE_DIR}/shimctl-pieces
  awk '{ c[$1] = $2 } END { printf "hit=%d miss=%d split=%d\n", c["piece_hit"], c["piece_miss"], c["split_compile"] }' \
    "$([ -f "$f" ] && echo "$f" || echo /dev/null)"
}

# ccache_hm [CACHE DIR]: "hits=N misses=N" of ccache's own statistics (pieces included).
ccache_hm() {
  local d=${1:-$CCACHE_DIR}
  echo "hits=$(($(ccache_stat "$d" direct_cache_hit) + $(ccache_stat "$d" preprocessed_cache_hit))) misses=$(ccache_stat "$d" cache_miss)"
}

# expect_split DIR N PIECES: DIR/trace shows an object made of N pieces, these (pieces_in's form).
expect_split() {
  expect_eq "" "$(whole_in "$1")" "whole-object reason in $1/trace (expected a split)"
  expect_eq "$2" "$(split_in "$1")" "pieces of the object in $1"
  expect_eq "$3" "$(pieces_in "$1")" "pieces hit and compiled in $1"
}

# expect_whole DIR REASON: DIR/trace shows the whole-object path with REASON, and no piece.
expect_whole() {
  expect_eq "$2" "$(whole_in "$1")" "whole-object reason in $1/trace"
  expect_eq "" "$(pieces_in "$1")$(split_in "$1")" "pieces in $1/trace (expected none)"
}

# pz_fallback DIR REASON OUTS ARGS...: DIR gets tiny's sources; ARGS compile through the shims
# the whole way (REASON in the trace; counters untouched); every output of the comma list OUTS
# equals the uncached compile's. REASON "several inputs" or "-E is given": the shim itself sees
# that the call is not one source's compile and never asks for pieces, so the trace may name no
# reason at all.
pz_fallback() {
  local dir=$1 reason=$2 outs=$3 o before traced; shift 3
  tiny "$dir"
  before=$(pz_counts)
  pz_compile "$dir" "$@"
  traced=$reason
  case $reason in
    "several inputs" | "-E is given") [ -n "$(whole_in "$dir")" ] || traced="" ;;
  esac
  expect_whole "$dir" "$traced"
  expect_eq "$before" "$(pz_counts)" "pieces counters after a whole-object compile ($reason)"
  pz_ref "$dir" "$outs" "$@"
  for o in ${outs//,/ }; do expect_same_file "$dir/ref.$o" "$dir/$o"; done
}

# pz_fallbacks TWO: the fallbacks both stacks share, through clang (-save-temps, with its device
# temporaries kept; -fgpu-sanitize; -Xoffload-linker; a CUID not the shim's; -emit-llvm, -S, -E:
# not an object) for the two targets TWO (comma list), then through hipcc (several inputs); the
# pieces counters stay untouched.
pz_fallbacks() {
  local two=$1 first=${1%%,*}
  pz_use clang
  pz_fallback "$TEST_DIR/save-temps" "-save-temps is given" t.o -save-temps $(targets "$two") -c t.hip -o t.o
  ls "$TEST_DIR/save-temps"/t-hip-amdgcn-amd-amdhsa-"$first"* >/dev/null 2>&1 ||
    fail "-save-temps kept no device temporaries in its directory: $(ls "$TEST_DIR/save-temps" | xargs)"
  pz_fallback "$TEST_DIR/sanitize" "-fgpu-sanitize is given" t.o -fgpu-sanitize $(targets "$two") -c t.hip -o t.o
  pz_fallback "$TEST_DIR/xoffload" "-Xoffload-linker is given" t.o -Xoffload-linker --no-undefined $(targets "$two") -c t.hip -o t.o
  pz_fallback "$TEST_DIR/cuid" "the CUID is not the shim's" t.o -cuid=0123456789abcdef $(targets "$two") -c t.hip -o t.o
  pz_fallback "$TEST_DIR/emit-llvm" "-emit-llvm is given" t.bc -emit-llvm $(targets "$two") -c t.hip -o t.bc
  pz_fallback "$TEST_DIR/asm" "-S is given" t.s -S $(targets "$two") -c t.hip -o t.s
  pz_fallback "$TEST_DIR/preprocess" "-E is given" t.i -E $(targets "$two") t.hip -o t.i
  pz_use hipcc
  pz_fallback "$TEST_DIR/inputs" "several inputs" t.o,t2.o $(targets "$first") -c t.hip t2.hip
  expect_eq "hit=0 miss=0 split=0" "$(pz_counts)" "pieces counters after the whole-object compiles"
}

# pz_corpus_add_target CASE TWO THREE [FLAGS...]: the corpus in $TEST_DIR/CASE-2 compiled for
# the targets TWO (comma list), then in $TEST_DIR/CASE-3 (another directory, the same relative
# names) for THREE (TWO and one more): the old pieces hit, only the new one compiles, and the
# object equals an uncached compile for THREE. Leaves the directories for more checks.
pz_corpus_add_target() {
  local c=$1 two=$2 three=$3 t new="" expect=""; shift 3
  corpus "$TEST_DIR/$c-2"
  corpus "$TEST_DIR/$c-3"
  pz_compile "$TEST_DIR/$c-2" "$@" $(targets "$two") -c k.hip -o k.o
  expect_split "$TEST_DIR/$c-2" "$(echo ${two//,/ } | wc -w)" "$(for t in ${two//,/ }; do echo "$t:miss"; done | sort | xargs)"
  pz_compile "$TEST_DIR/$c-3" "$@" $(targets "$three") -c k.hip -o k.o
  for t in ${three//,/ }; do
    case ",$two," in *",$t,"*) expect="$expect $t:hit" ;; *) expect="$expect $t:miss"; new=$t ;; esac
  done
  expect_split "$TEST_DIR/$c-3" "$(echo ${three//,/ } | wc -w)" "$(echo $expect | tr ' ' '\n' | sort | xargs)"
  [ -n "$new" ] || fail "pz_corpus_add_target: $three adds no target to $two"
  pz_ref "$TEST_DIR/$c-3" k.o "$@" $(targets "$three") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/$c-3/ref.k.o" "$TEST_DIR/$c-3/k.o"
}

# sorted WORD...: the words sorted, on one line (pieces_in's order).
sorted() { printf '%s\n' "$@" | sort | xargs; }

# pz_verdicts: the first-split verdicts recorded in this stack's cache home (not the plans' memos
# beside them), on one line.
pz_verdicts() { cat "$XDG_CACHE_HOME"/shimctl/pieces-checked/* 2>/dev/null | grep -xE 'same|differ' | xargs; }

# expect_checked DIR: DIR/trace shows the first split's check against the one-step compile.
expect_checked() {
  grep -qx 'shimctl-shim: pieces: first split of this toolchain checked against its one-step compile: identical' \
    "$1/trace" || fail "the first split was not checked (or not identical):"$'\n'"$(cat "$1/trace")"
}

# ---- the cases, shared by the stacks: targets A and B are the old ones, C the added one ---------

# pz_case_add_remove_change A B C: the corpus for A,B then A,B,C from another directory (the first
# split of the toolchain checked, counters, ccache's statistics), the same again (a whole-object
# hit), B,C from another directory (every piece hits), a changed header (every piece misses) and
# SHIMCTL_PIECES=0 (no piece). The first test of its stack (the verdicts start empty).
pz_case_add_remove_change() {
  local a=$1 b=$2 c=$3 t2=$1,$2 t3=$1,$2,$3
  expect_eq "" "$(pz_verdicts)" "verdicts before the first split of the toolchain"
  pz_corpus_add_target plain "$t2" "$t3" -O2
  expect_checked "$TEST_DIR/plain-2"
  grep -q 'checked against' "$TEST_DIR/plain-3/trace" && fail "the second split was checked again"
  expect_eq "hit=2 miss=3 split=2" "$(pz_counts)" "pieces counters after 2 then 3 targets"
  grep -qx 'checked_same 1' "$CCACHE_DIR/shimctl-pieces" || fail "no checked_same 1 in the counters"
  # The host half is cached apart, keyed without the targets: the 3-target object reuses it.
  expect_eq "miss hit" "$(host_in "$TEST_DIR/plain-2") $(host_in "$TEST_DIR/plain-3")" \
    "host halves of 2 then 3 targets"
  expect_eq "same" "$(pz_verdicts | tr ' ' '\n' | sort | xargs)" "the verdicts recorded"
  grep -qx 'host_hit 1' "$CCACHE_DIR/shimctl-pieces" || fail "no host_hit 1 in the counters"
  # ccache counts the pieces and host halves too: 2 whole-object misses + 3 piece misses + 1 host
  # half miss, 2 piece hits (+ 1 host half hit).
  expect_eq "hits=3 misses=6" "$(ccache_hm)" "ccache's statistics"
  # Every compile ran in ccache's depend mode, the pieces too (-MD -MF, which the shim under ccache
  # hands to the device cc1: clang-21 and 23 write no depfile for a device-only compile): none
  # was preprocessed before its miss.
  expect_eq "0" "$(ccache_stat "$CCACHE_DIR" preprocessed_cache_miss)" "misses that ran ccache's preprocessor"
  local ref3=$TEST_DIR/plain-3/ref.k.o
  cmp -s "$TEST_DIR/plain-2/k.o" "$ref3" && fail "the 2- and 3-target objects are equal: the test proves nothing"

  # The same 3-target compile again from another directory: one ccache hit, no piece.
  corpus "$TEST_DIR/again"
  pz_compile "$TEST_DIR/again" -O2 $(targets "$t3") -c k.hip -o k.o
  expect_eq "" "$(pieces_in "$TEST_DIR/again")$(whole_in "$TEST_DIR/again")" "pieces traced on a whole-object hit"
  expect_eq "hits=4 misses=6" "$(ccache_hm)" "ccache's statistics after the whole-object hit"
  expect_eq "hit=2 miss=3 split=2" "$(pz_counts)" "pieces counters after the whole-object hit"
  expect_same_file "$ref3" "$TEST_DIR/again/k.o"

  # A target removed (3 -> 2, another directory): every piece hits.
  corpus "$TEST_DIR/removed"
  pz_compile "$TEST_DIR/removed" -O2 $(targets "$b,$c") -c k.hip -o k.o
  expect_split "$TEST_DIR/removed" 2 "$(sorted "$b:hit" "$c:hit")"
  expect_eq "hit" "$(host_in "$TEST_DIR/removed")" "the host half of B,C"
  pz_ref "$TEST_DIR/removed" k.o -O2 $(targets "$b,$c") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/removed/ref.k.o" "$TEST_DIR/removed/k.o"
  expect_eq "hit=4 miss=3 split=3" "$(pz_counts)" "pieces counters after 3 -> 2"

  # The header every piece includes changed: every piece misses; the object is the new one.
  corpus "$TEST_DIR/header" 5
  pz_compile "$TEST_DIR/header" -O2 $(targets "$t3") -c k.hip -o k.o
  expect_split "$TEST_DIR/header" 3 "$(sorted "$a:miss" "$b:miss" "$c:miss")"
  expect_eq "miss" "$(host_in "$TEST_DIR/header")" "the host half after the header changed"
  pz_ref "$TEST_DIR/header" k.o -O2 $(targets "$t3") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/header/ref.k.o" "$TEST_DIR/header/k.o"
  cmp -s "$ref3" "$TEST_DIR/header/k.o" && fail "the object did not change with its header"
  expect_eq "hit=4 miss=6 split=4" "$(pz_counts)" "pieces counters after the header change"

  # SHIMCTL_PIECES=0 (another cache): the compile runs whole, no piece, no counter.
  corpus "$TEST_DIR/off"
  CCACHE_DIR=$TEST_DIR/ccache-off SHIMCTL_PIECES=0 pz_compile "$TEST_DIR/off" -O2 $(targets "$t3") -c k.hip -o k.o
  expect_eq "" "$(pieces_in "$TEST_DIR/off")$(split_in "$TEST_DIR/off")" "pieces with SHIMCTL_PIECES=0"
  [ ! -e "$TEST_DIR/ccache-off/shimctl-pieces" ] || fail "SHIMCTL_PIECES=0 wrote pieces counters"
  expect_eq "hits=0 misses=1" "$(ccache_hm "$TEST_DIR/ccache-off")" "ccache's statistics with SHIMCTL_PIECES=0"
  expect_same_file "$ref3" "$TEST_DIR/off/k.o"
}

# pz_case_early_pieces A B C: the pieces start before the driver's plan is back, as it last asked
# for them (a memo per toolchain and offload options, beside the verdicts): not on the first
# split, then on the next. A stale memo costs the pieces it started; they are compiled again as
# the plan asks, the object is as uncached, and the memo is mended.
pz_case_early_pieces() {
  local a=$1 b=$2 c=$3 f memos
  export XDG_CACHE_HOME=$TEST_DIR/xdg # this test's verdicts and memos only
  mkdir -p "$XDG_CACHE_HOME"
  corpus "$TEST_DIR/first"
  pz_compile "$TEST_DIR/first" -O2 $(targets "$a,$b") -c k.hip -o k.o
  expect_split "$TEST_DIR/first" 2 "$(sorted "$a:miss" "$b:miss")"
  grep -q 'started before the plan' "$TEST_DIR/first/trace" && fail "pieces started before the first plan"
  memos=$(cat "$XDG_CACHE_HOME"/shimctl/pieces-checked/* | grep -vxE 'same|differ' | xargs)
  case $memos in objects | images) ;; *) fail "the plan's memo after the first split: '$memos'" ;; esac
  corpus "$TEST_DIR/early"
  pz_compile "$TEST_DIR/early" -O2 $(targets "$a,$b,$c") -c k.hip -o k.o
  grep -qx "shimctl-shim: pieces: pieces started before the plan, as it last asked ($memos)" \
    "$TEST_DIR/early/trace" || fail "no early start traced:"$'\n'"$(cat "$TEST_DIR/early/trace")"
  expect_split "$TEST_DIR/early" 3 "$(sorted "$a:hit" "$b:hit" "$c:miss")"
  pz_ref "$TEST_DIR/early" k.o -O2 $(targets "$a,$b,$c") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/early/ref.k.o" "$TEST_DIR/early/k.o"
  # The memo made stale: it names the other kind of pieces.
  for f in "$XDG_CACHE_HOME"/shimctl/pieces-checked/*; do
    case $(cat "$f") in objects) echo images >"$f" ;; images) echo objects >"$f" ;; esac
  done
  corpus "$TEST_DIR/stale"
  pz_compile "$TEST_DIR/stale" -O2 $(targets "$b,$c") -c k.hip -o k.o
  grep -qx 'shimctl-shim: pieces: pieces started before the plan are not what it asks for: compiled again' \
    "$TEST_DIR/stale/trace" || fail "the stale memo's pieces were not compiled again:"$'\n'"$(cat "$TEST_DIR/stale/trace")"
  expect_eq "" "$(whole_in "$TEST_DIR/stale")" "whole-object reason after a stale memo"
  expect_eq 2 "$(split_in "$TEST_DIR/stale")" "pieces of the object after a stale memo"
  pz_ref "$TEST_DIR/stale" k.o -O2 $(targets "$b,$c") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/stale/ref.k.o" "$TEST_DIR/stale/k.o"
  expect_eq "$memos" "$(cat "$XDG_CACHE_HOME"/shimctl/pieces-checked/* | grep -vxE 'same|differ' | xargs)" \
    "the plan's memo after the stale one"
}

# pz_case_rdc A B C: -fgpu-rdc (bitcode pieces; the host reads a static device variable, whose
# name follows the CUID): A,B then A,B,C from another directory.
pz_case_rdc() {
  pz_corpus_add_target rdc "$1,$2" "$1,$2,$3" -O2 -fgpu-rdc
  expect_eq "hit=2 miss=3 split=2" "$(pz_counts)" "pieces counters"
  expect_eq "" "$(host_in "$TEST_DIR/rdc-3")" "a host half with -fgpu-rdc (the host compile runs with the object)"
  local d
  for d in rdc-2 rdc-3; do
    [ -z "$(find "$TEST_DIR/$d" -name '*.shimctl-pieces*')" ] || fail "the bundle's temporary file is left in $d"
  done
}

# pz_case_ids A+ B+ C A-: target IDs with features (A+, B+ the old ones, C added), then A- (the
# same processor as A+, another feature) with B+: another piece, B+'s hits.
pz_case_ids() {
  pz_corpus_add_target ids "$1,$2" "$1,$2,$3" -O2
  expect_eq "hit=2 miss=3 split=2" "$(pz_counts)" "pieces counters"
  corpus "$TEST_DIR/ids-x"
  pz_compile "$TEST_DIR/ids-x" -O2 $(targets "$4,$2") -c k.hip -o k.o
  expect_split "$TEST_DIR/ids-x" 2 "$(sorted "$2:hit" "$4:miss")"
  pz_ref "$TEST_DIR/ids-x" k.o -O2 $(targets "$4,$2") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/ids-x/ref.k.o" "$TEST_DIR/ids-x/k.o"
}

# pz_case_debug_depfile A B C: -g -MD -MF k.d: A,B in g-a; A,B,C in g-b (another directory: -g
# device code names its directory, so every piece misses); A,B,C in g-a (the old pieces hit).
# Objects and depfiles as uncached.
pz_case_debug_depfile() {
  local flags=(-O2 -g -MD -MF k.d) t3=$1,$2,$3
  corpus "$TEST_DIR/g-a"
  corpus "$TEST_DIR/g-b"
  pz_compile "$TEST_DIR/g-a" "${flags[@]}" $(targets "$1,$2") -c k.hip -o k.o
  expect_split "$TEST_DIR/g-a" 2 "$(sorted "$1:miss" "$2:miss")"
  pz_compile "$TEST_DIR/g-b" "${flags[@]}" $(targets "$t3") -c k.hip -o k.o
  expect_split "$TEST_DIR/g-b" 3 "$(sorted "$1:miss" "$2:miss" "$3:miss")"
  pz_ref "$TEST_DIR/g-b" k.o,k.d "${flags[@]}" $(targets "$t3") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/g-b/ref.k.o" "$TEST_DIR/g-b/k.o"
  expect_same_file "$TEST_DIR/g-b/ref.k.d" "$TEST_DIR/g-b/k.d"
  grep -q "$TEST_DIR/g-b" "$TEST_DIR/g-b/k.o" || fail "the -g object does not name its directory"
  grep -q "$TEST_DIR/g-a" "$TEST_DIR/g-b/k.o" && fail "g-b's object names g-a"
  pz_compile "$TEST_DIR/g-a" "${flags[@]}" $(targets "$t3") -c k.hip -o k.o
  expect_split "$TEST_DIR/g-a" 3 "$(sorted "$1:hit" "$2:hit" "$3:miss")"
  expect_eq "miss hit" "$(host_in "$TEST_DIR/g-b") $(host_in "$TEST_DIR/g-a")" \
    "host halves: another dir, then the same dir (-g)"
  pz_ref "$TEST_DIR/g-a" k.o,k.d "${flags[@]}" $(targets "$t3") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/g-a/ref.k.o" "$TEST_DIR/g-a/k.o"
  expect_same_file "$TEST_DIR/g-a/ref.k.d" "$TEST_DIR/g-a/k.d"
  expect_contains "$(cat "$TEST_DIR/g-a/k.d")" "corpus.h" "the depfile"
  expect_eq "hit=2 miss=6 split=3" "$(pz_counts)" "pieces counters"
}

# pz_case_error A B: a compile error fails with the compiler's message and exit code (the pieces
# fail, the one-step compile reports it), as uncached; no object, no counter.
pz_case_error() {
  corpus "$TEST_DIR/bad"
  echo '__global__ void broken(float* x) { x[0] = undeclared_name; }' >>"$TEST_DIR/bad/k.hip"
  local rc=0 ref_rc=0 args=(-O2 $(targets "$1,$2") -c k.hip -o k.o)
  (cd "$TEST_DIR/bad" && "${PZ_CC[@]}" "${args[@]}" >shim.err 2>&1) || rc=$?
  (cd "$TEST_DIR/bad" && SHIMCTL_DISABLE=1 "${PZ_CC[@]}" "${args[@]}" >ref.err 2>&1) || ref_rc=$?
  [ "$ref_rc" -ne 0 ] || fail "the broken source compiled: the test proves nothing"
  expect_eq "$ref_rc" "$rc" "exit code through the shims (uncached: $ref_rc)"
  expect_contains "$(cat "$TEST_DIR/bad/shim.err")" "use of undeclared identifier 'undeclared_name'" "the compiler's message"
  # hipcc 7 names the clang++ command that failed ("failed to execute: ..."): under ccache that is
  # ccache's command (its depend mode's -MD -MF, its order), not a pieces matter: left out.
  expect_eq "$(grep -v '^failed to execute:' "$TEST_DIR/bad/ref.err")" \
    "$(grep -v '^failed to execute:' "$TEST_DIR/bad/shim.err")" "messages through the shims against uncached"
  [ ! -e "$TEST_DIR/bad/k.o" ] || fail "an object was written for a failed compile"
  expect_eq "hit=0 miss=0 split=0" "$(pz_counts)" "pieces counters after a failed compile"
  # The trace says why the object was made whole.
  (cd "$TEST_DIR/bad" && SHIMCTL_SHIM_TRACE=1 "${PZ_CC[@]}" "${args[@]}" >trace 2>&1)
  expect_contains "$(whole_in "$TEST_DIR/bad")" "failed" "the whole-object reason after a failing piece"
}

# host_only DIR: DIR holds h.hip, a HIP source without a kernel (host code calling the runtime,
# an unused __device__ helper), as real projects have them beside their kernels.
host_only() {
  mkdir -p "$1" || fail "cannot make $1"
  cat >"$1/h.hip" <<'EOF'
#include <hip/hip_runtime.h>
#include <vector>
__device__ inline float host_only_helper(float x) { return x * 2.0f; }
int host_only_alloc(std::vector<float>& v) {
  float* d = nullptr;
  if (hipMalloc(&d, v.size() * sizeof(float)) != hipSuccess) return -1;
  (void)hipMemcpy(d, v.data(), v.size() * sizeof(float), hipMemcpyHostToDevice);
  return hipFree(d) == hipSuccess ? 0 : -2;
}
EOF
}

# alone_in DIR: "alone" when DIR/trace says the object is the host half alone, else "".
alone_in() {
  grep -qx 'shimctl-shim: pieces: object: the host half alone (the TU registers no kernel)' "$1/trace" &&
    echo alone
}

# pz_case_kernel_less A B C: a TU without kernels compiled first (A,B), then a kernel TU (A,B);
# from another directory both for A,B,C: the kernel-less TU's object is its host half alone (the
# host half hits) and does not switch the host half off for the kernel TU, whose half hits and
# takes the bundle of 3 pieces (2 hit). Every object equals the uncached compile's.
pz_case_kernel_less() {
  local a=$1 b=$2 c=$3 d f flags=(-O3 -DNDEBUG -std=c++17)
  for d in kl-2 kl-3; do host_only "$TEST_DIR/$d" && corpus "$TEST_DIR/$d"; done
  pz_compile "$TEST_DIR/kl-2" "${flags[@]}" $(targets "$a,$b") -MD -MT h.o -MF h.d -c h.hip -o h.o
  expect_eq "alone miss" "$(alone_in "$TEST_DIR/kl-2") $(host_in "$TEST_DIR/kl-2")" "kernel-less TU, first: object and host half"
  cp "$TEST_DIR/kl-2/trace" "$TEST_DIR/kl-2/trace.h"
  expect_checked "$TEST_DIR/kl-2" # the first host half alone of the toolchain
  pz_compile "$TEST_DIR/kl-2" "${flags[@]}" $(targets "$a,$b") -MD -MT k.o -MF k.d -c k.hip -o k.o
  expect_split "$TEST_DIR/kl-2" 2 "$(sorted "$a:miss" "$b:miss")"
  expect_eq "miss" "$(host_in "$TEST_DIR/kl-2")" "kernel TU after the kernel-less one: its host half"
  pz_compile "$TEST_DIR/kl-3" "${flags[@]}" $(targets "$a,$b,$c") -MD -MT h.o -MF h.d -c h.hip -o h.o
  expect_eq "alone hit" "$(alone_in "$TEST_DIR/kl-3") $(host_in "$TEST_DIR/kl-3")" "kernel-less TU, 3 targets: object and host half"
  expect_eq "$(sorted "$a:hit" "$b:hit" "$c:miss")" "$(pieces_in "$TEST_DIR/kl-3")" "kernel-less TU's pieces, 3 targets"
  cp "$TEST_DIR/kl-3/trace" "$TEST_DIR/kl-3/trace.h"
  pz_compile "$TEST_DIR/kl-3" "${flags[@]}" $(targets "$a,$b,$c") -MD -MT k.o -MF k.d -c k.hip -o k.o
  expect_split "$TEST_DIR/kl-3" 3 "$(sorted "$a:hit" "$b:hit" "$c:miss")"
  expect_eq "hit" "$(host_in "$TEST_DIR/kl-3")" "kernel TU, 3 targets: its host half"
  grep -h 'host half not used' "$TEST_DIR"/kl-*/trace* && fail "a host half was refused"
  pz_ref "$TEST_DIR/kl-3" h.o,h.d "${flags[@]}" $(targets "$a,$b,$c") -MD -MT h.o -MF h.d -c h.hip -o h.o
  pz_ref "$TEST_DIR/kl-3" k.o,k.d "${flags[@]}" $(targets "$a,$b,$c") -MD -MT k.o -MF k.d -c k.hip -o k.o
  for f in h.o h.d k.o k.d; do expect_same_file "$TEST_DIR/kl-3/ref.$f" "$TEST_DIR/kl-3/$f"; done
  pz_ref "$TEST_DIR/kl-2" h.o "${flags[@]}" $(targets "$a,$b") -MD -MT h.o -MF h.d -c h.hip -o h.o
  expect_same_file "$TEST_DIR/kl-2/ref.h.o" "$TEST_DIR/kl-2/h.o"
}

# derived_in DIR: "FROM:COMPILED" of DIR/trace's derived object ("A,B:C"; COMPILED "nothing"),
# "FROM:alone(COMPILED)" for a kernel-less TU's (its new targets compiled for their errors), or "".
derived_in() {
  sed -n -e 's/^shimctl-shim: pieces: object derived from the \([^ ]*\) object: compiled \(.*\)$/\1:\2/p' \
    -e 's/^shimctl-shim: pieces: object: the \([^ ]*\) object as it is (the TU registers no kernel; compiled \(.*\) for its errors)$/\1:alone(\2)/p' "$1/trace"
}

# cache_entries [CACHE DIR]: how many files ccache keeps (results and manifests; 4.7 names them
# ...R and ...M, 4.14 otherwise), its statistics, tmp/ and shimctl's counters left out.
cache_entries() {
  find "${1:-$CCACHE_DIR}" -path "${1:-$CCACHE_DIR}/tmp" -prune -o -type f ! -name stats \
    ! -name CACHEDIR.TAG ! -name 'shimctl-*' ! -name '*.lock' ! -name '*.conf' -print | wc -l
}

# pz_case_derive A B C: the default without -fgpu-rdc (no SHIMCTL_PIECES_STORE): whole objects
# only, each kept once. The corpus and a kernel-less TU for A,B (nothing to derive from: whole),
# then from another directory for A,B,C: derived from the A,B objects (C compiled; the kernel-less
# TU's object is the A,B one as it is), the first derived object checked; A,C from a third
# directory derives from A,B,C and compiles nothing; a changed header finds no earlier object.
# ccache keeps as many files for the 4 objects as for the first 2 twice over, no piece; every object and
# depfile equals the uncached compile's.
pz_case_derive() {
  local a=$1 b=$2 c=$3 d f flags=(-O3 -DNDEBUG -std=c++17)
  unset SHIMCTL_PIECES_STORE
  for d in dv-2 dv-3 dv-ac dv-hdr; do host_only "$TEST_DIR/$d" && corpus "$TEST_DIR/$d"; done
  local k=(-MD -MT k.o -MF k.d -c k.hip -o k.o) h=(-MD -MF h.d -c h.hip -o h.o)
  pz_compile "$TEST_DIR/dv-2" "${flags[@]}" $(targets "$a,$b") "${h[@]}"
  expect_eq "no earlier target set of this TU to derive its object from" "$(whole_in "$TEST_DIR/dv-2")" "kernel-less TU, A,B"
  pz_compile "$TEST_DIR/dv-2" "${flags[@]}" $(targets "$a,$b") "${k[@]}"
  expect_eq "no earlier target set of this TU to derive its object from" "$(whole_in "$TEST_DIR/dv-2")" "kernel TU, A,B"
  local two_objects; two_objects=$(cache_entries)
  [ "$two_objects" -gt 0 ] || fail "ccache kept no file for two whole objects"
  pz_compile "$TEST_DIR/dv-3" "${flags[@]}" $(targets "$a,$b,$c") "${h[@]}"
  expect_eq "$a,$b:alone($c)" "$(derived_in "$TEST_DIR/dv-3")" "kernel-less TU, A,B,C"
  pz_compile "$TEST_DIR/dv-3" "${flags[@]}" $(targets "$a,$b,$c") "${k[@]}"
  expect_eq "$a,$b:$c" "$(derived_in "$TEST_DIR/dv-3")" "kernel TU, A,B,C"
  expect_checked "$TEST_DIR/dv-3"
  # The A,B entries they came from are superseded: their last use goes back to 1970
  # (cache_budget.hpp's supersede), the first files an eviction takes.
  expect_eq 4 "$(find "$CCACHE_DIR" -type f ! -newermt 1971-01-01 | wc -l)" "superseded files (A,B's 2 manifests and 2 results)"
  expect_eq "" "$(pieces_in "$TEST_DIR/dv-3")$(host_in "$TEST_DIR/dv-3")" "pieces through the cache"
  expect_eq $((2 * two_objects)) "$(cache_entries)" "ccache's files after four whole objects (no piece)"
  pz_compile "$TEST_DIR/dv-ac" "${flags[@]}" $(targets "$a,$c") "${k[@]}"
  expect_eq "$a,$b,$c:nothing" "$(derived_in "$TEST_DIR/dv-ac")" "kernel TU, A,C"
  grep -q 'checked against' "$TEST_DIR/dv-ac/trace" && fail "the second derived object was checked again"
  grep -qx 'derived 3' "$CCACHE_DIR/shimctl-pieces" || fail "no derived 3 in the counters: $(xargs <"$CCACHE_DIR/shimctl-pieces")"
  grep -qx 'target_compiled 2' "$CCACHE_DIR/shimctl-pieces" || fail "no target_compiled 2 in the counters"
  pz_ref "$TEST_DIR/dv-3" h.o,h.d "${flags[@]}" $(targets "$a,$b,$c") "${h[@]}"
  pz_ref "$TEST_DIR/dv-3" k.o,k.d "${flags[@]}" $(targets "$a,$b,$c") "${k[@]}"
  for f in h.o h.d k.o k.d; do expect_same_file "$TEST_DIR/dv-3/ref.$f" "$TEST_DIR/dv-3/$f"; done
  pz_ref "$TEST_DIR/dv-ac" k.o,k.d "${flags[@]}" $(targets "$a,$c") "${k[@]}"
  for f in k.o k.d; do expect_same_file "$TEST_DIR/dv-ac/ref.$f" "$TEST_DIR/dv-ac/$f"; done
  # A header the earlier objects did not see: their lookups miss, the object is compiled whole.
  printf '#define CORPUS_SCALE 9\n' >"$TEST_DIR/dv-hdr/corpus.h"
  pz_compile "$TEST_DIR/dv-hdr" "${flags[@]}" $(targets "$a,$b,$c") "${k[@]}"
  expect_eq "no earlier target set's object of this TU in the cache" "$(whole_in "$TEST_DIR/dv-hdr")" "a changed header"
  pz_ref "$TEST_DIR/dv-hdr" k.o "${flags[@]}" $(targets "$a,$b,$c") "${k[@]}"
  expect_same_file "$TEST_DIR/dv-hdr/ref.k.o" "$TEST_DIR/dv-hdr/k.o"
  # The new target's device code fails: the compile fails as uncached, and leaves no object (the
  # lookup wrote the A,B object where k.o goes: a build tool going by times must not take it).
  mkdir -p "$TEST_DIR/dv-err"
  printf '#include <hip/hip_runtime.h>\n#if defined(__%s__)\n#error no %s here\n#endif\n__global__ void e(float* x) { x[0] = 1; }\n' \
    "$c" "$c" >"$TEST_DIR/dv-err/k.hip"
  pz_compile "$TEST_DIR/dv-err" "${flags[@]}" $(targets "$a,$b") "${k[@]}"
  (cd "$TEST_DIR/dv-err" && SHIMCTL_SHIM_TRACE=1 "${PZ_CC[@]}" "${flags[@]}" $(targets "$a,$b,$c") "${k[@]}" >trace 2>&1) &&
    fail "the compile for $c with an #error for it succeeded"
  expect_contains "$(cat "$TEST_DIR/dv-err/trace")" "error: no $c here" "the compiler's error"
  expect_contains "$(cat "$TEST_DIR/dv-err/trace")" "pieces: earlier object for $a,$b hit" "the lookup"
  expect_contains "$(whole_in "$TEST_DIR/dv-err")" "failed" "the whole-object reason"
  [ ! -e "$TEST_DIR/dv-err/k.o" ] || fail "a failed compile left k.o (the A,B object?)"
  # The same in a TU without kernels: its object is the A,B one, but the error still fails it.
  printf '#include <hip/hip_runtime.h>\n#if defined(__%s__)\n#error no %s here\n#endif\nint h() { return 1; }\n' \
    "$c" "$c" >"$TEST_DIR/dv-err/h.hip"
  pz_compile "$TEST_DIR/dv-err" "${flags[@]}" $(targets "$a,$b") "${h[@]}"
  (cd "$TEST_DIR/dv-err" && SHIMCTL_SHIM_TRACE=1 "${PZ_CC[@]}" "${flags[@]}" $(targets "$a,$b,$c") "${h[@]}" >trace 2>&1) &&
    fail "the kernel-less compile for $c with an #error for it succeeded"
  expect_contains "$(cat "$TEST_DIR/dv-err/trace")" "error: no $c here" "the compiler's error (kernel-less)"
  [ ! -e "$TEST_DIR/dv-err/h.o" ] || fail "a failed kernel-less compile left h.o"
}

# pz_case_one_target A B: a one-target compile runs whole by default (a build that never changes
# its targets pays no split; issue 15: the first build is not slower than no cache); with
# SHIMCTL_PIECES=1 it is split, and its piece serves A,B from another directory (only B
# compiles): the "build for A, then for A and B" case. Objects as uncached.
pz_case_one_target() {
  corpus "$TEST_DIR/one"
  pz_compile "$TEST_DIR/one" -O2 $(targets "$1") -c k.hip -o k.o
  expect_eq "" "$(pieces_in "$TEST_DIR/one")$(split_in "$TEST_DIR/one")$(whole_in "$TEST_DIR/one")" \
    "pieces traced for a one-target compile by default"
  expect_eq "hit=0 miss=0 split=0" "$(pz_counts)" "pieces counters after a one-target compile"
  expect_eq "hits=0 misses=1" "$(ccache_hm)" "ccache's statistics after a one-target compile"
  export CCACHE_DIR=$TEST_DIR/ccache-one
  corpus "$TEST_DIR/one-split"
  SHIMCTL_PIECES=1 pz_compile "$TEST_DIR/one-split" -O2 $(targets "$1") -c k.hip -o k.o
  expect_split "$TEST_DIR/one-split" 1 "$1:miss"
  pz_ref "$TEST_DIR/one-split" k.o -O2 $(targets "$1") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/one-split/ref.k.o" "$TEST_DIR/one-split/k.o"
  corpus "$TEST_DIR/one-then-two"
  pz_compile "$TEST_DIR/one-then-two" -O2 $(targets "$1,$2") -c k.hip -o k.o
  expect_split "$TEST_DIR/one-then-two" 2 "$(sorted "$1:hit" "$2:miss")"
  pz_ref "$TEST_DIR/one-then-two" k.o -O2 $(targets "$1,$2") -c k.hip -o k.o
  expect_same_file "$TEST_DIR/one-then-two/ref.k.o" "$TEST_DIR/one-then-two/k.o"
  expect_eq "hit=1 miss=2 split=2" "$(pz_counts)" "pieces counters after one target, then two"
}
