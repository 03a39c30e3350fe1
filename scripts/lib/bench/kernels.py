"""HIP sources the per-stack modules compile: the heavy kernel of --section pieces and --section
links (one templated kernel: unrolled loops, math, a shared-memory reduction), written once."""

HEAVY_TEMPLATE = """template <int N, typename T>
__global__ void NAME(T* x, const T* y, int n) {
  __shared__ T tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T acc = ACC;
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
"""


def heavy(name, acc):
    """The heavy kernel template named NAME, its accumulator starting at the expression ACC."""
    return HEAVY_TEMPLATE.replace("NAME", name).replace("ACC", acc)
