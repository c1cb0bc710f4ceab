// The CUDA backend: cuBLAS for GEMM, cuDNN for convolution and batch norm,
// and our own kernels for the rest (bias, pooling with argmax, activations,
// dropout, softmax cross-entropy, optimizer steps). Same semantics as the CPU
// backend (nn/cpu/cpu_backend.cc), so checkpoints move between them and the
// `gpu` tests compare the two op by op.
//
// Determinism: reductions use a fixed launch shape and tree order, and the
// convolution algorithms are fixed deterministic ones, so a run repeats
// bit for bit on the same GPU. Convolutions may use TF32 tensor cores
// (cuDNN's default math, like PyTorch's default); GEMMs are plain FP32.
//
// Errors (out of memory, a lost device) throw CudaError; the train task turns
// it into a failed trial with the message, and the runner stays usable.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "nn/backend.h"
#include "nn/cuda/cuda_error.h"
#include "nn/cuda/cuda_stream.h"

namespace sweep::nn {

namespace {

constexpr int kThreads = 256;
constexpr int kReduceThreads = 256;  // fixed: the reduction order depends on it

inline unsigned Blocks(size_t n) {
  size_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b > 65535u * 32u ? 65535u * 32u : (b == 0 ? 1 : b));
}

#define SWEEP_CUDA(expr) CheckCuda((expr), #expr, __FILE__, __LINE__)
#define SWEEP_CUBLAS(expr) CheckCublas((expr), #expr, __FILE__, __LINE__)
#define SWEEP_CUDNN(expr) CheckCudnn((expr), #expr, __FILE__, __LINE__)

void CheckCuda(cudaError_t e, const char* what, const char* file, int line) {
  if (e == cudaSuccess) return;
  throw CudaError(std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) + " (" + what +
                  " at " + file + ":" + std::to_string(line) + ")");
}

void CheckCublas(cublasStatus_t s, const char* what, const char* file, int line) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw CudaError("cuBLAS error " + std::to_string(static_cast<int>(s)) + " (" + what + " at " +
                  file + ":" + std::to_string(line) + ")");
}

void CheckCudnn(cudnnStatus_t s, const char* what, const char* file, int line) {
  if (s == CUDNN_STATUS_SUCCESS) return;
  throw CudaError(std::string("cuDNN: ") + cudnnGetErrorString(s) + " (" + what + " at " + file +
                  ":" + std::to_string(line) + ")");
}

#include "nn/cuda/kernels.cuh"

// ------------------------------------------------------------ the backend

struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  size_t workspace_bytes = 0;
};

// Fixed, deterministic algorithms (implicit precomputed GEMM forward,
// algorithm 1 backward): the same result on every run.
constexpr cudnnConvolutionFwdAlgo_t kFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr cudnnConvolutionBwdDataAlgo_t kBwdDataAlgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
constexpr cudnnConvolutionBwdFilterAlgo_t kBwdFilterAlgo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;

class CudaBackend : public Backend {
 public:
  explicit CudaBackend(int device) : device_(device) {
    SWEEP_CUDA(cudaSetDevice(device_));
    SWEEP_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    SWEEP_CUBLAS(cublasCreate(&blas_));
    SWEEP_CUBLAS(cublasSetStream(blas_, stream_));
    SWEEP_CUBLAS(cublasSetMathMode(blas_, CUBLAS_DEFAULT_MATH));
    SWEEP_CUDNN(cudnnCreate(&dnn_));
    SWEEP_CUDNN(cudnnSetStream(dnn_, stream_));
    cudaDeviceProp prop;
    SWEEP_CUDA(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
  }
  ~CudaBackend() override {
    cudaSetDevice(device_);
    for (auto& [key, plan] : plans_) {
      cudnnDestroyTensorDescriptor(plan.x);
      cudnnDestroyTensorDescriptor(plan.y);
      cudnnDestroyFilterDescriptor(plan.w);
      cudnnDestroyConvolutionDescriptor(plan.conv);
    }
    if (scratch_) cudaFree(scratch_);
    if (labels_) cudaFree(labels_);
    if (row_loss_) cudaFree(row_loss_);
    if (row_correct_) cudaFree(row_correct_);
    cudnnDestroy(dnn_);
    cublasDestroy(blas_);
    cudaStreamDestroy(stream_);
  }

  Device device() const override { return Device::kCuda; }
  void BindThread() override { SWEEP_CUDA(cudaSetDevice(device_)); }
  std::string Describe() const override {
    return "cuda:" + std::to_string(device_) + " (" + name_ + ", cuDNN " +
           std::to_string(cudnnGetVersion()) + ")";
  }

  float* Alloc(size_t n) override {
    void* p = nullptr;
    cudaError_t e = cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(float));
    if (e != cudaSuccess) {
      cudaGetLastError();  // clear it: the device stays usable
      throw CudaError("out of GPU memory allocating " + std::to_string(n * sizeof(float) >> 20) +
                      " MiB on cuda:" + std::to_string(device_) + " (" + cudaGetErrorString(e) +
                      ")");
    }
    SWEEP_CUDA(cudaMemsetAsync(p, 0, std::max<size_t>(n, 1) * sizeof(float), stream_));
    return static_cast<float*>(p);
  }
  void Free(float* p) override {
    if (p) cudaFree(p);
  }
  void ToHost(const float* src, float* host, size_t n) override {
    SWEEP_CUDA(cudaMemcpyAsync(host, src, n * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    SWEEP_CUDA(cudaStreamSynchronize(stream_));
  }
  void FromHost(const float* host, float* dst, size_t n) override {
    SWEEP_CUDA(cudaMemcpyAsync(dst, host, n * sizeof(float), cudaMemcpyHostToDevice, stream_));
    // The host buffer may be reused at once by the caller.
    SWEEP_CUDA(cudaStreamSynchronize(stream_));
  }
  void Zero(float* p, size_t n) override {
    SWEEP_CUDA(cudaMemsetAsync(p, 0, n * sizeof(float), stream_));
  }
  void Copy(const float* src, float* dst, size_t n) override {
    SWEEP_CUDA(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
  }

  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  void Gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
            const float* b, float beta, float* c) override {
    int lda = trans_a ? m : k, ldb = trans_b ? k : n;
    SWEEP_CUBLAS(cublasSgemm(blas_, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                             trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb, a, lda,
                             &beta, c, n));
  }
  void AddBias(float* y, const float* bias, int rows, int cols) override {
    size_t n = static_cast<size_t>(rows) * cols;
    AddBiasKernel<<<Blocks(n), kThreads, 0, stream_>>>(y, bias, rows, cols);
    SWEEP_CUDA(cudaGetLastError());
  }
  void BiasGrad(const float* dy, float* dbias, int rows, int cols) override {
    GroupSumKernel<<<cols, kReduceThreads, 0, stream_>>>(dy, dbias, rows, cols, 1);
    SWEEP_CUDA(cudaGetLastError());
  }

  size_t ConvWorkspace(const Window& g) override {
    return (Plan(g).workspace_bytes + sizeof(float) - 1) / sizeof(float);
  }
  void Conv2dForward(const Window& g, const float* x, const float* w, const float* b, float* y,
                     float* workspace) override {
    ConvPlan& p = Plan(g);
    const float one = 1.f, zero = 0.f;
    SWEEP_CUDNN(cudnnConvolutionForward(dnn_, &one, p.x, x, p.w, w, p.conv, kFwdAlgo, workspace,
                                        p.workspace_bytes, &zero, p.y, y));
    if (b) {
      // Per-channel bias over NCHW output.
      size_t plane = static_cast<size_t>(g.OutH()) * g.OutW();
      size_t n = static_cast<size_t>(g.n) * g.oc * plane;
      ChannelBiasKernel<<<Blocks(n), kThreads, 0, stream_>>>(y, b, g.oc, plane, n);
      SWEEP_CUDA(cudaGetLastError());
    }
  }
  void Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                      float* dw, float* db, float* workspace) override {
    ConvPlan& p = Plan(g);
    const float one = 1.f, zero = 0.f;
    SWEEP_CUDNN(cudnnConvolutionBackwardFilter(dnn_, &one, p.x, x, p.y, dy, p.conv, kBwdFilterAlgo,
                                               workspace, p.workspace_bytes, &zero, p.w, dw));
    if (db) {
      GroupSumKernel<<<g.oc, kReduceThreads, 0, stream_>>>(dy, db, g.n, g.oc, g.OutH() * g.OutW());
      SWEEP_CUDA(cudaGetLastError());
    }
    if (dx) {
      SWEEP_CUDNN(cudnnConvolutionBackwardData(dnn_, &one, p.w, w, p.y, dy, p.conv, kBwdDataAlgo,
                                               workspace, p.workspace_bytes, &zero, p.x, dx));
    }
  }

  void MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax) override {
    size_t n = static_cast<size_t>(g.n) * g.c * g.OutH() * g.OutW();
    MaxPoolFwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                          g.OutH(), g.OutW(), x, y, argmax);
    SWEEP_CUDA(cudaGetLastError());
  }
  void MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax,
                       float* dx) override {
    size_t n = static_cast<size_t>(g.n) * g.c * g.h * g.w;
    MaxPoolBwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                          g.OutH(), g.OutW(), dy, argmax, dx);
    SWEEP_CUDA(cudaGetLastError());
  }
  void AvgPoolForward(const Window& g, const float* x, float* y) override {
    size_t n = static_cast<size_t>(g.n) * g.c * g.OutH() * g.OutW();
    AvgPoolFwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                          g.OutH(), g.OutW(), x, y);
    SWEEP_CUDA(cudaGetLastError());
  }
  void AvgPoolBackward(const Window& g, const float* dy, float* dx) override {
    size_t n = static_cast<size_t>(g.n) * g.c * g.h * g.w;
    AvgPoolBwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                          g.OutH(), g.OutW(), dy, dx);
    SWEEP_CUDA(cudaGetLastError());
  }

  void ActivationForward(Activation a, float slope, const float* x, float* y, size_t n) override {
    ActFwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(static_cast<int>(a), slope, x, y, n);
    SWEEP_CUDA(cudaGetLastError());
  }
  void ActivationBackward(Activation a, float slope, const float* x, const float* dy, float* dx,
                          size_t n) override {
    ActBwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(static_cast<int>(a), slope, x, dy, dx, n);
    SWEEP_CUDA(cudaGetLastError());
  }
  void DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask,
                      size_t n) override {
    const float keep = 1.f / (1.f - p);
    const uint64_t threshold =
        static_cast<uint64_t>(static_cast<double>(p) * 18446744073709551616.0);
    DropoutKernel<<<Blocks(n), kThreads, 0, stream_>>>(keep, threshold, seed, x, y, mask, n);
    SWEEP_CUDA(cudaGetLastError());
  }
  void Mul(const float* a, const float* b, float* y, size_t n) override {
    MulKernel<<<Blocks(n), kThreads, 0, stream_>>>(a, b, y, n);
    SWEEP_CUDA(cudaGetLastError());
  }

  void BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                      const float* gamma, const float* beta, float* y, float* save_mean,
                      float* save_invstd, float* run_mean, float* run_var) override {
    BnDescriptors d(n, c, hw);
    const float one = 1.f, zero = 0.f;
    SWEEP_CUDNN(cudnnBatchNormalizationForwardTraining(
        dnn_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x, x, d.x, y, d.bn, gamma, beta, momentum,
        run_mean, run_var, std::max<double>(eps, CUDNN_BN_MIN_EPSILON), save_mean, save_invstd));
  }
  void BatchNormEval(int n, int c, int hw, float eps, const float* x, const float* gamma,
                     const float* beta, const float* run_mean, const float* run_var,
                     float* y) override {
    BnDescriptors d(n, c, hw);
    const float one = 1.f, zero = 0.f;
    SWEEP_CUDNN(cudnnBatchNormalizationForwardInference(
        dnn_, CUDNN_BATCHNORM_SPATIAL, &one, &zero, d.x, x, d.x, y, d.bn, gamma, beta, run_mean,
        run_var, std::max<double>(eps, CUDNN_BN_MIN_EPSILON)));
  }
  void BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                         const float* gamma, const float* mean, const float* scale, const float* dy,
                         float* dx, float* dgamma, float* dbeta) override {
    if (eval) {
      BnGradSumsKernel<<<c, kReduceThreads, 0, stream_>>>(n, c, hw, eps, true, x, mean, scale, dy,
                                                          dgamma, dbeta);
      SWEEP_CUDA(cudaGetLastError());
      if (dx) {
        size_t total = static_cast<size_t>(n) * c * hw;
        BnEvalBwdKernel<<<Blocks(total), kThreads, 0, stream_>>>(n, c, hw, eps, gamma, scale, dy,
                                                                 dx);
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

  // `labels` are in host memory; loss and correct come back to the host.
  void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n, int classes,
                           float* dlogits, double* loss_sum, int64_t* correct) override {
    EnsureRows(n);
    SWEEP_CUDA(
        cudaMemcpyAsync(labels_, labels, n * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
    SoftmaxXentKernel<<<(n + 127) / 128, 128, 0, stream_>>>(logits, labels_, n, classes, dlogits,
                                                            row_loss_, row_correct_);
    SWEEP_CUDA(cudaGetLastError());
    std::vector<double> loss(n);
    std::vector<int> right(n);
    SWEEP_CUDA(cudaMemcpyAsync(loss.data(), row_loss_, n * sizeof(double), cudaMemcpyDeviceToHost,
                               stream_));
    SWEEP_CUDA(cudaMemcpyAsync(right.data(), row_correct_, n * sizeof(int), cudaMemcpyDeviceToHost,
                               stream_));
    SWEEP_CUDA(cudaStreamSynchronize(stream_));
    double sum = 0;
    int64_t ok = 0;
    for (int i = 0; i < n; ++i) {
      sum += loss[i];
      ok += right[i];
    }
    *loss_sum = sum;
    *correct = ok;
  }

  void SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum,
               bool nesterov, float weight_decay) override {
    SgdKernel<<<Blocks(n), kThreads, 0, stream_>>>(p, g, v, n, lr, momentum, nesterov,
                                                   weight_decay);
    SWEEP_CUDA(cudaGetLastError());
  }
  void AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
                float beta2, float eps, float weight_decay, bool decoupled, int64_t t) override {
    const float c1 = 1.f - std::pow(beta1, static_cast<float>(t)),
                c2 = 1.f - std::pow(beta2, static_cast<float>(t));
    AdamKernel<<<Blocks(n), kThreads, 0, stream_>>>(p, g, m, v, n, lr, beta1, beta2, eps,
                                                    weight_decay, decoupled, c1, c2);
    SWEEP_CUDA(cudaGetLastError());
  }

  cudaStream_t stream() const { return stream_; }
  int device_index() const { return device_; }

 private:
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

  ConvPlan& Plan(const Window& g) {
    auto key = std::make_tuple(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad, g.oc);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
    ConvPlan p;
    SWEEP_CUDNN(cudnnCreateTensorDescriptor(&p.x));
    SWEEP_CUDNN(cudnnCreateTensorDescriptor(&p.y));
    SWEEP_CUDNN(cudnnCreateFilterDescriptor(&p.w));
    SWEEP_CUDNN(cudnnCreateConvolutionDescriptor(&p.conv));
    SWEEP_CUDNN(
        cudnnSetTensor4dDescriptor(p.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, g.n, g.c, g.h, g.w));
    SWEEP_CUDNN(
        cudnnSetFilter4dDescriptor(p.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, g.oc, g.c, g.k, g.k));
    SWEEP_CUDNN(cudnnSetConvolution2dDescriptor(p.conv, g.pad, g.pad, g.stride, g.stride, 1, 1,
                                                CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    SWEEP_CUDNN(cudnnSetConvolutionMathType(p.conv, CUDNN_DEFAULT_MATH));
    SWEEP_CUDNN(cudnnSetTensor4dDescriptor(p.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, g.n, g.oc,
                                           g.OutH(), g.OutW()));
    size_t f = 0, bd = 0, bf = 0;
    SWEEP_CUDNN(cudnnGetConvolutionForwardWorkspaceSize(dnn_, p.x, p.w, p.conv, p.y, kFwdAlgo, &f));
    SWEEP_CUDNN(cudnnGetConvolutionBackwardDataWorkspaceSize(dnn_, p.w, p.y, p.conv, p.x,
                                                             kBwdDataAlgo, &bd));
    SWEEP_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(dnn_, p.x, p.y, p.conv, p.w,
                                                               kBwdFilterAlgo, &bf));
    p.workspace_bytes = std::max(std::max(f, bd), std::max(bf, sizeof(float)));
    return plans_.emplace(key, p).first->second;
  }

  float* Scratch(size_t n) {
    if (n > scratch_n_) {
      if (scratch_) cudaFree(scratch_);
      scratch_ = nullptr;
      scratch_ = Alloc(n);
      scratch_n_ = n;
    }
    return scratch_;
  }

  void EnsureRows(int n) {
    if (n <= rows_) return;
    if (labels_) cudaFree(labels_);
    if (row_loss_) cudaFree(row_loss_);
    if (row_correct_) cudaFree(row_correct_);
    labels_ = nullptr;
    row_loss_ = nullptr;
    row_correct_ = nullptr;
    SWEEP_CUDA(cudaMalloc(&labels_, n * sizeof(int32_t)));
    SWEEP_CUDA(cudaMalloc(&row_loss_, n * sizeof(double)));
    SWEEP_CUDA(cudaMalloc(&row_correct_, n * sizeof(int)));
    rows_ = n;
  }

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

}  // namespace

cudaStream_t CudaStreamOf(Backend* b) {
  auto* c = dynamic_cast<CudaBackend*>(b);
  return c ? c->stream() : nullptr;
}

int CudaDeviceOf(Backend* b) {
  auto* c = dynamic_cast<CudaBackend*>(b);
  return c ? c->device_index() : -1;
}

namespace {

int DeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return n;
}

void CopyError(const std::string& what, char* err, size_t len) {
  if (len == 0) return;
  std::snprintf(err, len, "%s", what.c_str());
}

}  // namespace

}  // namespace sweep::nn

// The module's entry points, loaded with dlopen by nn/cuda_select.cc: a
// process that never trains on a GPU never loads CUDA.
extern "C" int sweep_cuda_device_count() { return sweep::nn::DeviceCount(); }

extern "C" sweep::nn::Backend* sweep_cuda_make_backend(int device, char* err, size_t len) {
  using namespace sweep::nn;
  int count = DeviceCount();
  if (count == 0) {
    CopyError("no CUDA device is visible (no GPU, no driver, or CUDA_VISIBLE_DEVICES hides them)",
              err, len);
    return nullptr;
  }
  if (device < 0 || device >= count) {
    CopyError(
        "no CUDA device " + std::to_string(device) + " (" + std::to_string(count) + " visible)",
        err, len);
    return nullptr;
  }
  try {
    return new CudaBackend(device);
  } catch (const std::exception& e) {
    CopyError("cannot use cuda:" + std::to_string(device) + ": " + e.what(), err, len);
    return nullptr;
  }
}

namespace sweep::nn {}  // namespace sweep::nn
