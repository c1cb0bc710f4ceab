// CUDA optimizer steps: SGD (momentum, Nesterov, weight decay) and Adam/AdamW.
// CPU twin: nn/cpu/optimizer.cc.
#include <cmath>

#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

__global__ void SgdKernel(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                          bool nesterov, float wd) {
  GRID_STRIDE(i, n) {
    if (momentum == 0.f) {
      p[i] -= lr * (g[i] + wd * p[i]);
    } else if (nesterov) {
      float grad = g[i] + wd * p[i];
      v[i] = momentum * v[i] + grad;
      p[i] -= lr * (grad + momentum * v[i]);
    } else {
      v[i] = momentum * v[i] + g[i] + wd * p[i];
      p[i] -= lr * v[i];
    }
  }
}

__global__ void AdamKernel(float* p, const float* g, float* m, float* v, size_t n, float lr,
                           float beta1, float beta2, float eps, float wd, bool decoupled, float c1,
                           float c2) {
  GRID_STRIDE(i, n) {
    float grad = g[i];
    if (decoupled)
      p[i] *= 1.f - lr * wd;
    else
      grad += wd * p[i];
    m[i] = beta1 * m[i] + (1.f - beta1) * grad;
    v[i] = beta2 * v[i] + (1.f - beta2) * grad * grad;
    p[i] -= lr * (m[i] / c1) / (sqrtf(v[i] / c2) + eps);
  }
}

}  // namespace

void CudaBackend::SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                          bool nesterov, float weight_decay) {
  SgdKernel<<<Blocks(n), kThreads, 0, stream_>>>(p, g, v, n, lr, momentum, nesterov, weight_decay);
  SWEEP_CUDA(cudaGetLastError());
}
void CudaBackend::AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr,
                           float beta1, float beta2, float eps, float weight_decay, bool decoupled,
                           int64_t t) {
  const float c1 = 1.f - std::pow(beta1, static_cast<float>(t)),
              c2 = 1.f - std::pow(beta2, static_cast<float>(t));
  AdamKernel<<<Blocks(n), kThreads, 0, stream_>>>(p, g, m, v, n, lr, beta1, beta2, eps,
                                                  weight_decay, decoupled, c1, c2);
  SWEEP_CUDA(cudaGetLastError());
}

}  // namespace sweep::nn::cuda
