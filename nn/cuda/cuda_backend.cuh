// The CUDA backend's class, internal to nn/cuda: its handles, caches and
// buffers, and the ops of nn/backend.h. The members are defined by family
// with the same names as the CPU backend's ops: memory and set-up in
// cuda_backend.cu, the rest in matmul.cu, conv.cu, pool.cu, activation.cu,
// elementwise.cu, batch_norm.cu, loss.cu and optimizer.cu (CPU twins in
// nn/cpu/). Used by one thread at a time, like every backend.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "nn/backend.h"

namespace sweep::nn::cuda {

// cuDNN descriptors and workspace size for one convolution window (conv.cu).
struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  size_t workspace_bytes = 0;
};

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(int device);
  ~CudaBackend() override;

  // cuda_backend.cu
  Device device() const override { return Device::kCuda; }
  void BindThread() override;
  std::string Describe() const override;
  float* Alloc(size_t n) override;
  void Free(float* p) override;
  void ToHost(const float* src, float* host, size_t n) override;
  void FromHost(const float* host, float* dst, size_t n) override;
  void Zero(float* p, size_t n) override;
  void Copy(const float* src, float* dst, size_t n) override;

  // matmul.cu
  void Gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c) override;
  void AddBias(float* y, const float* bias, int rows, int cols) override;
  void BiasGrad(const float* dy, float* dbias, int rows, int cols) override;

  // conv.cu
  size_t ConvWorkspace(const Window& g) override;
  void Conv2dForward(const Window& g, const float* x, const float* w, const float* b, float* y,
                     float* workspace) override;
  void Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                      float* dw, float* db, float* workspace) override;

  // pool.cu
  void MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax) override;
  void MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax, float* dx) override;
  void AvgPoolForward(const Window& g, const float* x, float* y) override;
  void AvgPoolBackward(const Window& g, const float* dy, float* dx) override;

  // activation.cu
  void ActivationForward(Activation a, float slope, const float* x, float* y, size_t n) override;
  void ActivationBackward(Activation a, float slope, const float* x, const float* dy, float* dx,
                          size_t n) override;

  // elementwise.cu
  void DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask,
                      size_t n) override;
  void Mul(const float* a, const float* b, float* y, size_t n) override;

  // batch_norm.cu
  void BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                      const float* gamma, const float* beta, float* y, float* save_mean,
                      float* save_invstd, float* run_mean, float* run_var) override;
  void BatchNormEval(int n, int c, int hw, float eps, const float* x, const float* gamma,
                     const float* beta, const float* run_mean, const float* run_var,
                     float* y) override;
  void BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                         const float* gamma, const float* mean, const float* scale, const float* dy,
                         float* dx, float* dgamma, float* dbeta) override;

  // loss.cu: `labels` are in host memory; loss and correct come back to the
  // host.
  void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n, int classes,
                           float* dlogits, double* loss_sum, int64_t* correct) override;

  // optimizer.cu
  void SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum,
               bool nesterov, float weight_decay) override;
  void AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
                float beta2, float eps, float weight_decay, bool decoupled, int64_t t) override;

  cudaStream_t stream() const { return stream_; }
  int device_index() const { return device_; }

 private:
  ConvPlan& Plan(const Window& g);  // conv.cu
  float* Scratch(size_t n);         // cuda_backend.cu
  void EnsureRows(int n);           // loss.cu

  int device_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  cudnnHandle_t dnn_ = nullptr;
  std::map<std::tuple<int, int, int, int, int, int, int, int>, ConvPlan> plans_;
  float* scratch_ = nullptr;
  size_t scratch_n_ = 0;
  int32_t* labels_ = nullptr;
  double* row_loss_ = nullptr;
  int* row_correct_ = nullptr;
  int rows_ = 0;
};

}  // namespace sweep::nn::cuda
