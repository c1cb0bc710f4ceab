// CUDA batch norm: cuDNN for training, eval and training backward; our kernels
// for the eval-mode backward. CPU twin: nn/cpu/batch_norm.cc.
#include <cudnn.h>

#include <algorithm>

#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

// Batch-norm backward in eval mode (statistics are constants).
__global__ void BnEvalBwdKernel(int n, int c, int hw, float eps, const float* gamma,
                                const float* run_var, const float* dy, float* dx) {
  GRID_STRIDE(i, static_cast<size_t>(n) * c * hw) {
    int ch = static_cast<int>((i / hw) % c);
    dx[i] = gamma[ch] * rsqrtf(run_var[ch] + eps) * dy[i];
  }
}

// Per channel: sum(dy) and sum(dy * (x - mean) * invstd), the latter with
// invstd from the running variance (eval) or the saved one (train).
__global__ void BnGradSumsKernel(int n, int c, int hw, float eps, bool eval, const float* x,
                                 const float* mean, const float* scale, const float* dy,
                                 float* dgamma, float* dbeta) {
  __shared__ double s1[kReduceThreads], s2[kReduceThreads];
  const int ch = blockIdx.x;
  const double m = mean[ch];
  const double invstd = eval ? 1.0 / sqrt(static_cast<double>(scale[ch]) + eps) : scale[ch];
  double a = 0, b = 0;
  const size_t total = static_cast<size_t>(n) * hw;
  for (size_t t = threadIdx.x; t < total; t += kReduceThreads) {
    size_t off = ((t / hw) * c + ch) * hw + t % hw;
    a += dy[off];
    b += dy[off] * ((x[off] - m) * invstd);
  }
  s1[threadIdx.x] = a;
  s2[threadIdx.x] = b;
  __syncthreads();
  for (int w = kReduceThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s1[threadIdx.x] += s1[threadIdx.x + w];
      s2[threadIdx.x] += s2[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    dbeta[ch] = static_cast<float>(s1[0]);
    dgamma[ch] = static_cast<float>(s2[0]);
  }
}

struct BnDescriptors {
  cudnnTensorDescriptor_t x = nullptr, bn = nullptr;
  BnDescriptors(int n, int c, int hw) {
    SWEEP_CUDNN(cudnnCreateTensorDescriptor(&x));
    SWEEP_CUDNN(cudnnCreateTensorDescriptor(&bn));
    SWEEP_CUDNN(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, hw, 1));
    SWEEP_CUDNN(cudnnDeriveBNTensorDescriptor(bn, x, CUDNN_BATCHNORM_SPATIAL));
  }
  ~BnDescriptors() {
    cudnnDestroyTensorDescriptor(x);
    cudnnDestroyTensorDescriptor(bn);
  }
};

}  // namespace

void CudaBackend::BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                                 const float* gamma, const float* beta, float* y, float* save_mean,
                                 float* save_invstd, float* run_mean, float* run_var) {
  BnDescriptors d(n, c, hw);
  const float one = 1.f, zero = 0.f;
  SWEEP_CUDNN(cudnnBatchNormalizationForwardTraining(
      dnn_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x, x, d.x, y, d.bn, gamma, beta, momentum,
      run_mean, run_var, std::max<double>(eps, CUDNN_BN_MIN_EPSILON), save_mean, save_invstd));
}
void CudaBackend::BatchNormEval(int n, int c, int hw, float eps, const float* x, const float* gamma,
                                const float* beta, const float* run_mean, const float* run_var,
                                float* y) {
  BnDescriptors d(n, c, hw);
  const float one = 1.f, zero = 0.f;
  SWEEP_CUDNN(cudnnBatchNormalizationForwardInference(
      dnn_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x, x, d.x, y, d.bn, gamma, beta, run_mean,
      run_var, std::max<double>(eps, CUDNN_BN_MIN_EPSILON)));
}
void CudaBackend::BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                                    const float* gamma, const float* mean, const float* scale,
                                    const float* dy, float* dx, float* dgamma, float* dbeta) {
  if (eval) {
    BnGradSumsKernel<<<c, kReduceThreads, 0, stream_>>>(n, c, hw, eps, true, x, mean, scale, dy,
                                                        dgamma, dbeta);
    SWEEP_CUDA(cudaGetLastError());
    if (dx) {
      size_t total = static_cast<size_t>(n) * c * hw;
      BnEvalBwdKernel<<<Blocks(total), kThreads, 0, stream_>>>(n, c, hw, eps, gamma, scale, dy, dx);
      SWEEP_CUDA(cudaGetLastError());
    }
    return;
  }
  BnDescriptors d(n, c, hw);
  const float one = 1.f, zero = 0.f;
  float* out = dx ? dx : Scratch(static_cast<size_t>(n) * c * hw);
  SWEEP_CUDNN(cudnnBatchNormalizationBackward(
      dnn_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &zero, d.x, x, d.x, dy, d.x, out, d.bn,
      gamma, dgamma, dbeta, std::max<double>(eps, CUDNN_BN_MIN_EPSILON), mean, scale));
}

}  // namespace sweep::nn::cuda
