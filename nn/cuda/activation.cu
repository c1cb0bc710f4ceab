// CUDA activations (ReLU, leaky ReLU, tanh, GELU), forward and backward. CPU
// twin: nn/cpu/activation.cc.
#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

__device__ float Act(int a, float slope, float x) {
  switch (a) {
    case 0:
      return x > 0 ? x : 0.f;
    case 1:
      return x > 0 ? x : slope * x;
    case 2:
      return tanhf(x);
    default: {
      const float c = 0.7978845608028654f;
      return 0.5f * x * (1.f + tanhf(c * (x + 0.044715f * x * x * x)));
    }
  }
}

__device__ float ActGrad(int a, float slope, float x) {
  switch (a) {
    case 0:
      return x > 0 ? 1.f : 0.f;
    case 1:
      return x > 0 ? 1.f : slope;
    case 2: {
      float t = tanhf(x);
      return 1.f - t * t;
    }
    default: {
      const float c = 0.7978845608028654f;
      float u = c * (x + 0.044715f * x * x * x), t = tanhf(u);
      return 0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * c * (1.f + 3.f * 0.044715f * x * x);
    }
  }
}

__global__ void ActFwdKernel(int a, float slope, const float* x, float* y, size_t n) {
  GRID_STRIDE(i, n) { y[i] = Act(a, slope, x[i]); }
}

__global__ void ActBwdKernel(int a, float slope, const float* x, const float* dy, float* dx,
                             size_t n) {
  GRID_STRIDE(i, n) {
    dx[i] = a == 0 ? (x[i] > 0.f ? dy[i] : 0.f) : dy[i] * ActGrad(a, slope, x[i]);
  }
}

}  // namespace

void CudaBackend::ActivationForward(Activation a, float slope, const float* x, float* y, size_t n) {
  ActFwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(static_cast<int>(a), slope, x, y, n);
  SWEEP_CUDA(cudaGetLastError());
}
void CudaBackend::ActivationBackward(Activation a, float slope, const float* x, const float* dy,
                                     float* dx, size_t n) {
  ActBwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(static_cast<int>(a), slope, x, dy, dx, n);
  SWEEP_CUDA(cudaGetLastError());
}

}  // namespace sweep::nn::cuda
