# Toolchain fixtures for tests and the demo. Source it; it sets no shell options.
#   make_rocm_prefix DEST [LLVM=15 [LAYOUT=rocm]]   scripts/make-rocm-prefix (prints DEST)
#   make_cuda_prefix DEST                           scripts/make-cuda-prefix (prints DEST)
#   have_cuda                 /usr/local/cuda/bin/nvcc exists and compiles for sm_90 (cached)
#   have_rocm [LLVM=15]       Debian's hipcc, clang/lld LLVM, device libs and HIP headers exist
#   write_hip_kernel FILE [N]    HIP source with hip/hip_runtime.h, calling sqrtf and sinf
#   write_cuda_kernel FILE [N]   CUDA source calling sqrtf and sinf
#   write_cxx_program FILE [N]   C++ program (<iostream>) printing $SHIMCTL_CXX_PROGRAM_LINE
#   write_c_program FILE [N]     C program (<stdio.h>) printing $SHIMCTL_C_PROGRAM_LINE
# N (an integer, default 0) varies the generated code, for distinct cache keys.
# Functions return non-zero on failure and work under `set -eu`.

SHIMCTL_TOOLCHAINS_SCRIPTS=${SHIMCTL_TOOLCHAINS_SCRIPTS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
SHIMCTL_CUDA_HOME=${SHIMCTL_CUDA_HOME:-/usr/local/cuda}
SHIMCTL_CXX_PROGRAM_LINE="shimctl c++ program ok"
SHIMCTL_C_PROGRAM_LINE="shimctl c program ok"

_shimctl_variant() { # N -> prints N, or fails unless N is a non-negative integer
  case ${1:-0} in
    *[!0-9]*) echo "toolchains.bash: variant must be a non-negative integer, got '$1'" >&2; return 2 ;;
  esac
  echo "${1:-0}"
}

make_rocm_prefix() { # DEST [LLVM [LAYOUT]]
  [ $# -ge 1 ] || { echo "usage: make_rocm_prefix DEST [15|16 [rocm|therock]]" >&2; return 2; }
  "$SHIMCTL_TOOLCHAINS_SCRIPTS/make-rocm-prefix" "$1" --llvm "${2:-15}" --layout "${3:-rocm}"
}

make_cuda_prefix() { # DEST
  [ $# -eq 1 ] || { echo "usage: make_cuda_prefix DEST" >&2; return 2; }
  "$SHIMCTL_TOOLCHAINS_SCRIPTS/make-cuda-prefix" "$1" --from "$SHIMCTL_CUDA_HOME"
}

# The compile probe costs ~1 s, so its answer is kept for the rest of this shell
# (and its subshells, when asked first in the parent).
have_cuda() {
  if [ -z "${_SHIMCTL_HAVE_CUDA:-}" ]; then
    _SHIMCTL_HAVE_CUDA=no
    if [ -x "$SHIMCTL_CUDA_HOME/bin/nvcc" ]; then
      local d
      d=$(mktemp -d "${TMPDIR:-/tmp}/shimctl-have-cuda.XXXXXX") || return 1
      write_cuda_kernel "$d/k.cu"
      if "$SHIMCTL_CUDA_HOME/bin/nvcc" -arch=sm_90 -c "$d/k.cu" -o "$d/k.o" >"$d/log" 2>&1 \
          && [ -s "$d/k.o" ]; then
        _SHIMCTL_HAVE_CUDA=yes
      fi
      rm -rf "$d"
    fi
  fi
  [ "$_SHIMCTL_HAVE_CUDA" = yes ]
}

have_rocm() { # [LLVM]
  local v=${1:-15}
  [ -x /usr/bin/hipcc ] && [ -f /usr/bin/hipcc.pl ] \
    && [ -x "/usr/lib/llvm-$v/bin/clang" ] && [ -x "/usr/lib/llvm-$v/bin/lld" ] \
    && [ -f /usr/lib/x86_64-linux-gnu/amdgcn/bitcode/ocml.bc ] \
    && [ -f /usr/include/hip/hip_runtime.h ]
}

write_hip_kernel() { # FILE [N]
  local n
  n=$(_shimctl_variant "${2:-0}") || return
  cat >"$1" <<EOF
#include <hip/hip_runtime.h>

// sqrtf and sinf come from the device libraries (ocml, oclc_*): changing those changes the code.
__global__ void shimctl_wave(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(in[i]) * sinf(in[i]) + ${n}.0f;
}

extern "C" hipError_t shimctl_launch(float* out, const float* in, int n) {
  hipLaunchKernelGGL(shimctl_wave, dim3((n + 255) / 256), dim3(256), 0, 0, out, in, n);
  return hipGetLastError();
}
EOF
}

write_cuda_kernel() { # FILE [N]
  local n
  n=$(_shimctl_variant "${2:-0}") || return
  cat >"$1" <<EOF
// sqrtf and sinf come from libdevice: changing it changes the code.
__global__ void shimctl_wave(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sqrtf(in[i]) * sinf(in[i]) + ${n}.0f;
}

extern "C" cudaError_t shimctl_launch(float* out, const float* in, int n) {
  shimctl_wave<<<(n + 255) / 256, 256>>>(out, in, n);
  return cudaGetLastError();
}
EOF
}

write_cxx_program() { # FILE [N]
  local n
  n=$(_shimctl_variant "${2:-0}") || return
  cat >"$1" <<EOF
#include <iostream>
#include <string>

static int shimctl_variant() { return ${n}; }

int main() {
  std::string line = "${SHIMCTL_CXX_PROGRAM_LINE}";
  std::cout << line << std::endl;
  return shimctl_variant() < 0;
}
EOF
}

write_c_program() { # FILE [N]
  local n
  n=$(_shimctl_variant "${2:-0}") || return
  cat >"$1" <<EOF
#include <stdio.h>

static int shimctl_variant(void) { return ${n}; }

int main(void) {
  printf("%s\n", "${SHIMCTL_C_PROGRAM_LINE}");
  return shimctl_variant() < 0;
}
EOF
}
