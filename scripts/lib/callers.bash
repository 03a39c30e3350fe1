# Shared by the caller drivers, scripts/callers/*: each reproduces how one runtime caller of the
# compiler (aiter's JIT, torch.utils.cpp_extension, DeepSpeed's op builder, PyTorch Inductor's
# ROCm backend) runs it, and measures a cold pass and a repeat from a fresh build directory.
# Source it from a driver; it sets no shell options. A driver defines (CALLERS_PASS is the pass)
#   caller_setup          its paths and defaults, from the CALLERS_* variables (called once per
#                         process: the steps run in processes of their own)
#   caller_prepare        a fresh build directory for the pass, with the caller's sources and its
#                         build file (build.ninja shaped like the caller's own)
#   caller_probes         (optional) the caller's compiler probes, each recorded with
#                         callers_probe; run before the compiles, as the caller does
#   caller_compile        the compile step (run under `shimctl measure`)
#   caller_link           (optional: none where compile and link are one step) the link step
#   caller_outputs        the files a pass produces (objects, shared objects), one a line
# and calls callers_main "$@". The options every driver takes (callers_usage):
#   PREFIX              the ROCm prefix the caller finds (ROCM_HOME), shimmed or not
#   --work DIR          where the caller's directories go (default: a new /tmp/shimctl-callers.*)
#   --cache-dir DIR     the local ccache directory of the passes (CCACHE_DIR; default WORK/ccache)
#   --passes LIST       comma-separated, run in order (default cold,warm):
#                         cold       empties the cache directory first, fresh build directory
#                         warm       a fresh build directory, the same cache
#                         container  a fresh build directory, a new empty cache directory
#                                    (CACHE-DIR.container) and HOME: a fresh container whose only
#                                    source of hits is the remote storage the prefix was installed
#                                    with (shimctl install --remote URL)
#                         reference  for an unshimmed prefix: each HIP compile gets the -cuid= the
#                                    shim would give it, so objects compare byte for byte
#   --kernels N         sources per module (each holds several templated kernels)
#   --modules N         modules (aiter) or extensions/ops (the others)
#   --archs LIST        GPU targets, comma-separated
#   --jobs N            ninja -j (default: what the caller passes)
#   --results FILE      append "PASS.KEY<TAB>VALUE" lines (times in ms, counts)
#   --shimctl PATH      shimctl for `measure` (default: $SHIMCTL, BUILD_DIR/installer/shimctl,
#                       the checkout's build/, then PATH)
#   --packages DIR      where the caller's Python packages live (aiter's csrc, an extension's
#                       sources; default WORK): a venv's site-packages, say, as pip installs them
#   --reuse-probes PASS the probes' verdicts of an earlier pass PASS (same WORK) instead of
#                       running them, as one caller process does for every module after its first
#                       (aiter's hip_flag_checker is an lru_cache); the tests use it to save time
# Prints one summary line per pass. Outputs of each pass are kept in WORK/out/PASS (their paths
# under WORK), its probes' records in WORK/out/PASS/probes.tsv. Exits non-zero when a compile, a
# link or a step fails.

CALLERS_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

callers_usage() {
  echo "usage: $0 PREFIX [--work DIR] [--cache-dir DIR] [--passes cold,warm,container,reference]" \
    "[--kernels N] [--modules N] [--archs LIST] [--jobs N] [--results FILE] [--shimctl PATH]" \
    "[--packages DIR] [--reuse-probes PASS]" >&2
  exit 2
}

source "$(dirname "${BASH_SOURCE[0]}")/cuid.bash" # shim_cuid

callers_die() { echo "$(basename "$0"): $*" >&2; exit 1; }

callers_now_ms() { echo $(($(date +%s%N) / 1000000)); }

# callers_put KEY VALUE: one result line (stdout of the summary is separate).
callers_put() { [ -z "$CALLERS_RESULTS" ] || printf '%s\t%s\n' "$1" "$2" >>"$CALLERS_RESULTS"; }

# The shim's -cuid= value (scripts/lib/cuid.bash) for SOURCE and OUTPUT as the command names them,
# made relative to the working directory CWD when under it (the shim's under_cwd).
callers_cuid() { # SOURCE OUTPUT CWD
  local src=$1 out=$2 cwd=$3
  case $src in "$cwd"/?*) src=${src#"$cwd"/} ;; esac
  case $out in "$cwd"/?*) out=${out#"$cwd"/} ;; esac
  shim_cuid "$src" "$out"
}

# callers_cuid_flag SOURCE OUTPUT CWD: " -cuid=<value>" in the reference pass, else nothing.
callers_cuid_flag() {
  [ "$CALLERS_PASS" = reference ] || return 0
  printf ' -cuid=%s' "$(callers_cuid "$@")"
}

# callers_write_hip_source FILE SEED KERNELS: a HIP translation unit (hip/hip_runtime.h) with
# templated kernels (a scaled bias, a block reduction, a row softmax, a tiled GEMM) instantiated
# for float, double and int in KERNELS launch functions; SEED varies the code (distinct keys).
# One such unit with 4 launch functions costs ~2 s of CPU to compile for one GPU target here.
callers_write_hip_source() {
  local f=$1 s=$2 k=$3 i
  {
    cat <<EOF
#include <hip/hip_runtime.h>

// Generated by shimctl's caller drivers (seed $s): templates instantiated per element type and
// launch shape, several kernels per translation unit, device math from the device libraries.
namespace callers_$s {

template <typename T, int Block, int Unroll>
__global__ void __launch_bounds__(Block) scale_bias(T* __restrict__ out, const T* __restrict__ in,
                                                     const T* __restrict__ bias, T alpha, int n) {
  int base = (blockIdx.x * Block + threadIdx.x) * Unroll;
#pragma unroll
  for (int u = 0; u < Unroll; ++u) {
    int i = base + u;
    if (i < n) out[i] = alpha * in[i] + bias[i % Block] + T($s);
  }
}

template <typename T, int Block>
__global__ void __launch_bounds__(Block) block_sum(T* __restrict__ out, const T* __restrict__ in, int n) {
  __shared__ T smem[Block];
  T acc = T(0);
  for (int i = blockIdx.x * Block + threadIdx.x; i < n; i += gridDim.x * Block) acc += in[i];
  smem[threadIdx.x] = acc;
  __syncthreads();
#pragma unroll
  for (int s = Block / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, smem[0]);
}

template <typename T, int Block>
__global__ void __launch_bounds__(Block) softmax_row(T* __restrict__ out, const T* __restrict__ in, int cols) {
  __shared__ float red[Block];
  const T* row = in + blockIdx.x * cols;
  float m = -1e30f;
  for (int c = threadIdx.x; c < cols; c += Block) m = fmaxf(m, float(row[c]));
  red[threadIdx.x] = m;
  __syncthreads();
  for (int s = Block / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    __syncthreads();
  }
  m = red[0];
  __syncthreads();
  float sum = 0.f;
  for (int c = threadIdx.x; c < cols; c += Block) sum += expf(float(row[c]) - m);
  red[threadIdx.x] = sum;
  __syncthreads();
  for (int s = Block / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    __syncthreads();
  }
  for (int c = threadIdx.x; c < cols; c += Block)
    out[blockIdx.x * cols + c] = T(expf(float(row[c]) - m) / red[0] * sqrtf(1.f + $s.f));
}

template <typename T, int Tile>
__global__ void tiled_gemm(T* __restrict__ c, const T* __restrict__ a, const T* __restrict__ b, int n) {
  __shared__ T as[Tile][Tile + 1];
  __shared__ T bs[Tile][Tile + 1];
  int row = blockIdx.y * Tile + threadIdx.y, col = blockIdx.x * Tile + threadIdx.x;
  T acc = T(0);
  for (int t = 0; t < n; t += Tile) {
    as[threadIdx.y][threadIdx.x] = (row < n && t + threadIdx.x < n) ? a[row * n + t + threadIdx.x] : T(0);
    bs[threadIdx.y][threadIdx.x] = (col < n && t + threadIdx.y < n) ? b[(t + threadIdx.y) * n + col] : T(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < Tile; ++k) acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < n) c[row * n + col] = acc + T($s);
}

EOF
    for ((i = 0; i < k; i++)); do
      local u1=$((i % 4 + 1)) u2=$((i % 3 + 2)) b1=$((64 << (i % 3))) b2=$((64 << (i % 2))) t=$((8 << (i % 2)))
      cat <<EOF
extern "C" hipError_t callers_${s}_launch_$i(void* out, const void* in, const void* bias, int n, hipStream_t st) {
  hipLaunchKernelGGL((scale_bias<float, 256, $u1>), dim3((n + 1023) / 1024), dim3(256), 0, st, (float*)out, (const float*)in, (const float*)bias, 1.5f, n);
  hipLaunchKernelGGL((scale_bias<double, 128, $u2>), dim3((n + 511) / 512), dim3(128), 0, st, (double*)out, (const double*)in, (const double*)bias, 0.5, n);
  hipLaunchKernelGGL((block_sum<float, $b1>), dim3(64), dim3($b1), 0, st, (float*)out, (const float*)in, n);
  hipLaunchKernelGGL((block_sum<int, 256>), dim3(64), dim3(256), 0, st, (int*)out, (const int*)in, n);
  hipLaunchKernelGGL((softmax_row<float, $b2>), dim3(n / 1024 + 1), dim3($b2), 0, st, (float*)out, (const float*)in, 1024);
  hipLaunchKernelGGL((softmax_row<double, 128>), dim3(n / 1024 + 1), dim3(128), 0, st, (double*)out, (const double*)in, 1024);
  hipLaunchKernelGGL((tiled_gemm<float, $t>), dim3(n / $t + 1, n / $t + 1), dim3($t, $t), 0, st, (float*)out, (const float*)in, (const float*)bias, n);
  return hipGetLastError();
}

EOF
    done
    echo "}  // namespace callers_$s"
  } >"$f"
}

# callers_write_host_source FILE SEED [HEADER]: a host C++ translation unit (the extension's
# frontend), including the project header HEADER (written beside it) if given.
callers_write_host_source() {
  if [ -n "${3:-}" ]; then
    printf '#pragma once\n#define CALLERS_HOST_%s_SCALE %s\n' "$2" "$2" >"$(dirname "$1")/$3"
    printf '#include "%s"\n' "$3" >"$1"
  else
    : >"$1"
  fi
  cat >>"$1" <<EOF
#include <algorithm>
#include <map>
#include <numeric>
#include <string>
#include <vector>

// Generated by shimctl's caller drivers (seed $2): an extension's host-side frontend.
namespace callers_host_$2 {
std::map<std::string, std::vector<double>> table() {
  std::map<std::string, std::vector<double>> t;
  for (int i = 0; i < 16; ++i) {
    std::vector<double> v(64 + i);
    std::iota(v.begin(), v.end(), double(i + $2));
    std::sort(v.begin(), v.end(), [](double a, double b) { return a > b; });
    t["op" + std::to_string(i)] = std::move(v);
  }
  return t;
}
}  // namespace callers_host_$2

extern "C" double callers_host_$2_sum() {
  double s = 0;
  for (auto& [name, v] : callers_host_$2::table()) s += std::accumulate(v.begin(), v.end(), 0.0) + name.size();
  return s;
}
EOF
}

# callers_probe NAME COMMAND...: runs one probe of the caller's (stdin from /dev/null), records
# "NAME<TAB>exit code<TAB>sha256 of stdout<TAB>sha256 of stderr" in $CALLERS_PROBES (the
# pass's probes.tsv) and returns its exit code.
callers_probe() {
  local name=$1 rc o e
  shift
  if [ -n "${CALLERS_REUSE_PROBES:-}" ]; then
    # --reuse-probes PASS: that pass's verdict, recorded again, nothing run.
    local line
    line=$(awk -F'\t' -v n="$name" '$1 == n { print; exit }' "$CALLERS_WORK/out/$CALLERS_REUSE_PROBES/probes.tsv")
    [ -n "$line" ] || callers_die "--reuse-probes $CALLERS_REUSE_PROBES: no probe '$name' recorded there"
    printf '%s\n' "$line" >>"$CALLERS_PROBES"
    return "$(echo "$line" | cut -f2)"
  fi
  "$@" </dev/null >"$CALLERS_TMP/probe.out" 2>"$CALLERS_TMP/probe.err"
  rc=$?
  o=$(sha256sum <"$CALLERS_TMP/probe.out" | cut -c1-16)
  e=$(sha256sum <"$CALLERS_TMP/probe.err" | cut -c1-16)
  printf '%s\t%s\t%s\t%s\n' "$name" "$rc" "$o" "$e" >>"$CALLERS_PROBES"
  return "$rc"
}

# callers_step KEY: runs the driver's caller_KEY under `shimctl measure --json` (the driver
# again, as `DRIVER --callers-step KEY`, with the pass's state in the environment) and records
# its wall time and counts as PASS.KEY_ms, PASS.KEY.{compiles,hits,misses,calls},
# PASS.KEY.uncacheable (the cache tool's own not-cacheable calls, kind=count,...) and
# PASS.KEY.not_sent (calls the shim ran without the cache, reason=count,...). Fails when the step
# fails.
callers_step() {
  local key=$1 t0 t1 json=$CALLERS_TMP/$1.json
  t0=$(callers_now_ms)
  if ! "$CALLERS_SHIMCTL" measure --json -- "$BASH" "$CALLERS_SELF" --callers-step "$key" \
      >"$json" 2>"$CALLERS_TMP/$key.log"; then
    echo "$(basename "$0"): $CALLERS_PASS: $key failed (log: $CALLERS_TMP/$key.log):" >&2
    tail -30 "$CALLERS_TMP/$key.log" >&2
    return 1
  fi
  t1=$(callers_now_ms)
  CALLERS_MS[$key]=$((t1 - t0))
  callers_put "$CALLERS_PASS.${key}_ms" "$((t1 - t0))"
  local line
  line=$(/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
u = ",".join("%s=%d" % kv for kv in sorted(d["uncacheable"].items()))
n = ",".join("%s=%d" % kv for kv in sorted(d.get("not_sent", {}).items()))
print(d["compiles"], d["hits"], d["misses"], d["calls"], u or "-", n or "-")' "$json") ||
    callers_die "cannot read shimctl measure's output $json"
  local compiles hits misses calls unc not_sent
  read -r compiles hits misses calls unc not_sent <<<"$line"
  CALLERS_COUNT[$key.compiles]=$compiles
  CALLERS_COUNT[$key.hits]=$hits
  CALLERS_COUNT[$key.misses]=$misses
  CALLERS_COUNT[$key.uncacheable]=$unc
  CALLERS_COUNT[$key.not_sent]=$not_sent
  callers_put "$CALLERS_PASS.$key.compiles" "$compiles"
  callers_put "$CALLERS_PASS.$key.hits" "$hits"
  callers_put "$CALLERS_PASS.$key.misses" "$misses"
  callers_put "$CALLERS_PASS.$key.calls" "$calls"
  callers_put "$CALLERS_PASS.$key.uncacheable" "$unc"
  callers_put "$CALLERS_PASS.$key.not_sent" "$not_sent"
}

callers_ccache_stat() { # DIR COUNTER
  CCACHE_DIR=$1 ccache --print-stats 2>/dev/null | awk -v k="$2" '$1 == k { v = $2 } END { print v + 0 }'
}

# callers_pass PASS: one pass of the driver: the cache for PASS, a fresh build directory, the
# probes, the compiles, the link; outputs copied to WORK/out/PASS.
callers_pass() {
  CALLERS_PASS=$1
  CALLERS_TMP=$CALLERS_WORK/tmp/$CALLERS_PASS
  rm -rf "$CALLERS_TMP" "$CALLERS_WORK/out/$CALLERS_PASS"
  mkdir -p "$CALLERS_TMP" "$CALLERS_WORK/out/$CALLERS_PASS"
  CALLERS_PROBES=$CALLERS_WORK/out/$CALLERS_PASS/probes.tsv
  : >"$CALLERS_PROBES"
  local home=$CALLERS_HOME
  export CALLERS_PASS CALLERS_TMP CALLERS_PROBES
  case $CALLERS_PASS in
    cold) export CCACHE_DIR=$CALLERS_CACHE; rm -rf "$CCACHE_DIR" ;;
    warm) export CCACHE_DIR=$CALLERS_CACHE ;;
    container)
      export CCACHE_DIR=$CALLERS_CACHE.container; rm -rf "$CCACHE_DIR"
      home=$CALLERS_WORK/home-container; rm -rf "$home" ;;
    reference)
      [ ! -e "$CALLERS_PREFIX/bin/hipcc.real" ] ||
        callers_die "reference: $CALLERS_PREFIX is shimmed (bin/hipcc.real exists): run it on an unshimmed prefix"
      export CCACHE_DIR=$CALLERS_WORK/ccache-reference ;;
    *) callers_die "unknown pass '$CALLERS_PASS' (cold, warm, container, reference)" ;;
  esac
  mkdir -p "$CCACHE_DIR" "$home"
  local rhit0 rerr0 t0 t1
  rhit0=$(callers_ccache_stat "$CCACHE_DIR" remote_storage_hit)
  rerr0=$(callers_ccache_stat "$CCACHE_DIR" remote_storage_error)
  CALLERS_MS=([probes]=0 [link]=0)
  CALLERS_COUNT=()
  export HOME=$home
  t0=$(callers_now_ms)
  caller_prepare || callers_die "$CALLERS_PASS: preparing the build failed"
  if [ "$(type -t caller_probes)" = function ]; then
    callers_step probes || return 1
  fi
  callers_step compile || return 1
  if [ "$(type -t caller_link)" = function ]; then
    callers_step link || return 1
  fi
  t1=$(callers_now_ms)
  export HOME=$CALLERS_HOME
  local f n=0
  while IFS= read -r f; do
    [ -s "$f" ] || callers_die "$CALLERS_PASS: expected output $f is missing or empty"
    # Kept as WORK/out/PASS/<its path under WORK>: the passes' outputs side by side.
    mkdir -p "$(dirname "$CALLERS_WORK/out/$CALLERS_PASS/${f#"$CALLERS_WORK"/}")"
    cp "$f" "$CALLERS_WORK/out/$CALLERS_PASS/${f#"$CALLERS_WORK"/}"
    n=$((n + 1))
  done < <(caller_outputs)
  local rhits rerrs
  rhits=$(($(callers_ccache_stat "$CCACHE_DIR" remote_storage_hit) - rhit0))
  rerrs=$(($(callers_ccache_stat "$CCACHE_DIR" remote_storage_error) - rerr0))
  callers_put "$CALLERS_PASS.total_ms" "$((t1 - t0))"
  callers_put "$CALLERS_PASS.outputs" "$n"
  callers_put "$CALLERS_PASS.remote_hits" "$rhits"
  callers_put "$CALLERS_PASS.remote_errors" "$rerrs"
  callers_put "$CALLERS_PASS.probes" "$(wc -l <"$CALLERS_PROBES")"
  callers_put "$CALLERS_PASS.probes_failed" "$(awk -F'\t' '$2 != 0' "$CALLERS_PROBES" | wc -l)"
  printf '%-8s %-10s compile %7d ms  link %6d ms  probes %6d ms  total %7d ms  cacheable %3d  hits %3d  misses %3d  remote hits %3d  other: %s\n' \
    "$CALLERS_NAME" "$CALLERS_PASS" "${CALLERS_MS[compile]}" "${CALLERS_MS[link]}" "${CALLERS_MS[probes]}" \
    "$((t1 - t0))" "${CALLERS_COUNT[compile.compiles]}" "${CALLERS_COUNT[compile.hits]}" \
    "${CALLERS_COUNT[compile.misses]}" "$rhits" "${CALLERS_COUNT[compile.uncacheable]}"
}

# callers_main NAME ARGS...: options, then the passes. `DRIVER --callers-step KEY` (run by
# callers_step under shimctl measure) runs the driver's caller_KEY with the state exported.
callers_main() {
  CALLERS_NAME=$1
  shift
  if [ "${1:-}" = --callers-step ]; then
    caller_setup
    "caller_$2"
    return
  fi
  [ $# -ge 1 ] || callers_usage
  case $1 in -*) callers_usage ;; esac
  CALLERS_PREFIX=$(cd "$1" 2>/dev/null && pwd) || callers_die "no such prefix: $1"
  shift
  CALLERS_WORK='' CALLERS_CACHE='' CALLERS_RESULTS='' CALLERS_JOBS='' CALLERS_SHIMCTL=${SHIMCTL:-}
  CALLERS_KERNELS='' CALLERS_MODULES='' CALLERS_ARCHS='' CALLERS_REUSE_PROBES='' CALLERS_PACKAGES=''
  local passes=cold,warm
  while [ $# -gt 0 ]; do
    [ $# -ge 2 ] || callers_usage
    case $1 in
      --work) CALLERS_WORK=$2 ;;
      --cache-dir) CALLERS_CACHE=$2 ;;
      --passes) passes=$2 ;;
      --kernels) CALLERS_KERNELS=$2 ;;
      --modules) CALLERS_MODULES=$2 ;;
      --archs) CALLERS_ARCHS=$2 ;;
      --jobs) CALLERS_JOBS=$2 ;;
      --results) CALLERS_RESULTS=$2 ;;
      --shimctl) CALLERS_SHIMCTL=$2 ;;
      --reuse-probes) CALLERS_REUSE_PROBES=$2 ;;
      --packages) CALLERS_PACKAGES=$2 ;;
      *) callers_usage ;;
    esac
    shift 2
  done
  case $CALLERS_KERNELS$CALLERS_MODULES$CALLERS_JOBS in *[!0-9]*) callers_usage ;; esac
  [ -n "$CALLERS_WORK" ] || CALLERS_WORK=$(mktemp -d /tmp/shimctl-callers.XXXXXX)
  mkdir -p "$CALLERS_WORK" && CALLERS_WORK=$(cd "$CALLERS_WORK" && pwd)
  [ -n "$CALLERS_CACHE" ] || CALLERS_CACHE=$CALLERS_WORK/ccache
  case $CALLERS_CACHE in /*) ;; *) CALLERS_CACHE=$PWD/$CALLERS_CACHE ;; esac
  case $CALLERS_RESULTS in /* | '') ;; *) CALLERS_RESULTS=$PWD/$CALLERS_RESULTS ;; esac
  if [ -z "$CALLERS_SHIMCTL" ]; then
    local c
    for c in "${BUILD_DIR:+$BUILD_DIR/installer/shimctl}" "$CALLERS_SCRIPTS/../build/installer/shimctl" \
      "$(command -v shimctl || true)"; do
      [ -n "$c" ] && [ -x "$c" ] && { CALLERS_SHIMCTL=$c; break; }
    done
  fi
  [ -x "$CALLERS_SHIMCTL" ] || callers_die "shimctl not found: pass --shimctl PATH or set BUILD_DIR"
  command -v ninja >/dev/null || callers_die "ninja not found (apt-get install ninja-build)"
  CALLERS_HOME=$CALLERS_WORK/home
  CALLERS_PACKAGES=${CALLERS_PACKAGES:-$CALLERS_WORK}
  mkdir -p "$CALLERS_PACKAGES" && CALLERS_PACKAGES=$(cd "$CALLERS_PACKAGES" && pwd)
  CALLERS_SELF=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
  export ROCM_HOME=$CALLERS_PREFIX CALLERS_PREFIX CALLERS_WORK CALLERS_HOME CALLERS_PACKAGES CALLERS_KERNELS CALLERS_MODULES \
    CALLERS_ARCHS CALLERS_JOBS CALLERS_REUSE_PROBES
  declare -gA CALLERS_MS CALLERS_COUNT
  caller_setup
  local p
  for p in ${passes//,/ }; do
    callers_pass "$p" || exit 1
  done
}

# ---- torch.utils.cpp_extension's JIT shape (cpp_extension, deepspeed) -------------------------
# callers_torch_site: a stand-in for the torch package's directory (its include and lib dirs, as
# cpp_extension names them; no torch is installed here, so its libraries are not linked): in the
# --packages directory beside the caller's own packages, else WORK/site-packages.
callers_torch_site() {
  local t=$CALLERS_WORK/site-packages/torch
  [ "$CALLERS_PACKAGES" = "$CALLERS_WORK" ] || t=$CALLERS_PACKAGES/torch
  mkdir -p "$t/include/torch/csrc/api/include" "$t/include/TH" "$t/include/THC" "$t/lib"
  echo "$t"
}

# callers_torch_hipify SOURCE: torch's hipify in load(): SOURCE.cu -> SOURCE.hip beside it (the
# path the ninja file then names), rewritten only when its content changes. Prints the path.
callers_torch_hipify() {
  local s=$1 h=${1%.*}.hip
  case $s in *.cu) cmp -s "$s" "$h" 2>/dev/null || cp "$s" "$h"; echo "$h" ;; *) echo "$s" ;; esac
}

# callers_torch_ninja NAME BUILD_DIR EXTRA_CFLAGS EXTRA_CUDA_CFLAGS EXTRA_LDFLAGS INCLUDES SOURCE...:
# BUILD_DIR/build.ninja as _write_ninja_file_to_build_library and _write_ninja_file write it for a
# HIP extension (IS_HIP_EXTENSION, with_cuda): absolute sources; the host rule `$cxx -MMD -MF
# $out.d $cflags -c $in -o $out $post_cflags` with a gcc depfile; HIP sources (.cu/.hip) through
# `$nvcc  $cuda_cflags -c $in -o $out $cuda_post_cflags` (no depfile on ROCm), objects
# <name>.cuda.o; `$cxx $in $ldflags -o $out`. The arch flags come from PYTORCH_ROCM_ARCH.
# cxx is $CXX (torch's default `c++` is not in the prefix: unless CXX is set, the prefix's
# llvm/bin/clang++, as a ROCm build environment sets it). Sets TORCH_OBJECTS and TORCH_TARGET.
callers_torch_ninja() {
  local name=$1 bdir=$2 extra_cflags=$3 extra_cuda_cflags=$4 extra_ldflags=$5 includes=$6
  shift 6
  local torch py_inc cxx=${CXX:-$ROCM_HOME/llvm/bin/clang++} i common cflags cuda_flags arch arch_flags=""
  torch=$(callers_torch_site)
  py_inc=$(/usr/bin/python3 -c 'import sysconfig; print(sysconfig.get_path("include", scheme="posix_prefix"))')
  common="-DTORCH_EXTENSION_NAME=$name -DTORCH_API_INCLUDE_EXTENSION_H"
  common+=' -DPYBIND11_COMPILER_TYPE=\"_gcc\" -DPYBIND11_STDLIB=\"_libstdcpp\" -DPYBIND11_BUILD_ABI=\"_cxxabi1011\"'
  for i in $includes; do common+=" -I$i"; done
  for i in "$torch/include" "$torch/include/torch/csrc/api/include" "$torch/include/TH" \
    "$torch/include/THC" "$ROCM_HOME/include" "$py_inc"; do common+=" -isystem $i"; done
  common+=" -D_GLIBCXX_USE_CXX11_ABI=1"
  cflags="$common -fPIC -std=c++17 $extra_cflags"
  cuda_flags="-DWITH_HIP $cflags -fPIC -D__HIP_PLATFORM_AMD__=1 -DUSE_ROCM=1 -DHIPBLAS_V2"
  cuda_flags+=" -DCUDA_HAS_FP16=1 -D__HIP_NO_HALF_OPERATORS__=1 -D__HIP_NO_HALF_CONVERSIONS__=1 $extra_cuda_cflags"
  case " $cuda_flags " in
    *offload-arch* | *amdgpu-target*) arch_flags=" -fno-gpu-rdc" ;;
    *) for arch in ${PYTORCH_ROCM_ARCH//;/ }; do arch_flags+=" --offload-arch=$arch"; done
       arch_flags+=" -fno-gpu-rdc" ;;
  esac
  cuda_flags+=$arch_flags
  mkdir -p "$bdir"
  TORCH_OBJECTS=() TORCH_TARGET=$name.so
  local build=() s obj
  for s in "$@"; do
    case $s in
      *.cu | *.hip | *.cuh)
        obj=$(basename "${s%.*}").cuda.o
        build+=("build $obj: cuda_compile $s")
        [ "$CALLERS_PASS" != reference ] ||
          build+=("  cuda_post_cflags =$(callers_cuid_flag "$s" "$obj" "$bdir")") ;;
      *) obj=$(basename "${s%.*}").o
         build+=("build $obj: compile $s") ;;
    esac
    TORCH_OBJECTS+=("$obj")
  done
  {
    printf 'ninja_required_version = 1.3\ncxx = %s\nnvcc = %s\n\n' "$cxx" "$ROCM_HOME/bin/hipcc"
    printf 'cflags = %s\npost_cflags = %s\ncuda_cflags = %s\ncuda_post_cflags = \n' "$cflags" \
      "-fPIC -D__HIP_PLATFORM_AMD__=1 -DUSE_ROCM=1 -DHIPBLAS_V2" "$cuda_flags"
    printf 'cuda_dlink_post_cflags = \nsycl_dlink_post_cflags = \nldflags = -shared %s -L%s -lamdhip64\n\n' \
      "$extra_ldflags" "$ROCM_HOME/lib"
    printf 'rule compile\n  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out $post_cflags\n  depfile = $out.d\n  deps = gcc\n\n'
    printf 'rule cuda_compile\n  command = $nvcc  $cuda_cflags -c $in -o $out $cuda_post_cflags\n\n'
    printf 'rule link\n  command = $cxx $in $ldflags -o $out\n\n'
    printf '%s\n' "${build[@]}"
    printf '\nbuild %s: link %s\n\ndefault %s\n' "$TORCH_TARGET" "${TORCH_OBJECTS[*]}" "$TORCH_TARGET"
  } >"$bdir/build.ninja"
}

# callers_torch_build_dir NAME: torch's default JIT build directory for NAME
# (~/.cache/torch_extensions/py<ver>_cpu/NAME: torch.version.cuda is None on ROCm).
callers_torch_build_dir() {
  echo "$CALLERS_HOME/.cache/torch_extensions/py$(/usr/bin/python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')_cpu/$1"
}

# callers_torch_probes CXX: what load() runs before the build: the compiler ABI check
# (`CXX -dumpfullversion -dumpversion`) and ninja's.
callers_torch_probes() {
  callers_probe "cxx -dumpfullversion" "$1" -dumpfullversion -dumpversion
  callers_probe "ninja --version" ninja --version
}
