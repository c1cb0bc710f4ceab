// The CUDA backend: set-up, memory and the module's entry points; the ops
// live in one file per family (nn/cuda/cuda_backend.cuh lists them). cuBLAS
// for GEMM, cuDNN for convolution and batch norm, and our own kernels for the
// rest (bias, pooling with argmax, activations, dropout, softmax
// cross-entropy, optimizer steps). Same semantics as the CPU backend
// (nn/cpu/), so checkpoints move between them and the `gpu` tests compare the
// two op by op.
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

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "nn/backend.h"
#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/cuda_error.h"
#include "nn/cuda/cuda_stream.h"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

CudaBackend::CudaBackend(int device) : device_(device) {
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
CudaBackend::~CudaBackend() {
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

void CudaBackend::BindThread() { SWEEP_CUDA(cudaSetDevice(device_)); }
std::string CudaBackend::Describe() const {
  // Short: it ends up in the tuner's "runner joined" line.
  int runtime = 0;
  cudaRuntimeGetVersion(&runtime);
  const size_t cudnn = cudnnGetVersion();
  return "cuda:" + std::to_string(device_) + " (" + name_ + ", CUDA " + std::to_string(runtime) +
         ", cuDNN " + std::to_string(cudnn) +
         (cudnn == CUDNN_VERSION ? "" : " built with " + std::to_string(CUDNN_VERSION)) + ")";
}

float* CudaBackend::Alloc(size_t n) {
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(float));
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear it: the device stays usable
    throw CudaError("out of GPU memory allocating " + std::to_string(n * sizeof(float) >> 20) +
                    " MiB on cuda:" + std::to_string(device_) + " (" + cudaGetErrorString(e) + ")");
  }
  // Anything else is an earlier fault showing up here (a sticky error that
  // cudaGetLastError cannot clear): the context is broken.
  SWEEP_CUDA(e);
  SWEEP_CUDA(cudaMemsetAsync(p, 0, std::max<size_t>(n, 1) * sizeof(float), stream_));
  return static_cast<float*>(p);
}
void CudaBackend::Free(float* p) {
  if (p) cudaFree(p);
}
void CudaBackend::ToHost(const float* src, float* host, size_t n) {
  SWEEP_CUDA(cudaMemcpyAsync(host, src, n * sizeof(float), cudaMemcpyDeviceToHost, stream_));
  SWEEP_CUDA(cudaStreamSynchronize(stream_));
}
void CudaBackend::FromHost(const float* host, float* dst, size_t n) {
  SWEEP_CUDA(cudaMemcpyAsync(dst, host, n * sizeof(float), cudaMemcpyHostToDevice, stream_));
  // The caller may free or reuse `host` at once.
  SWEEP_CUDA(cudaStreamSynchronize(stream_));
}
void CudaBackend::Zero(float* p, size_t n) {
  SWEEP_CUDA(cudaMemsetAsync(p, 0, n * sizeof(float), stream_));
}
void CudaBackend::Copy(const float* src, float* dst, size_t n) {
  SWEEP_CUDA(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_));
}

float* CudaBackend::Scratch(size_t n) {
  if (n > scratch_n_) {
    if (scratch_) cudaFree(scratch_);
    scratch_ = nullptr;
    scratch_ = Alloc(n);
    scratch_n_ = n;
  }
  return scratch_;
}

}  // namespace sweep::nn::cuda

namespace sweep::nn {

cudaStream_t CudaStreamOf(Backend* b) {
  auto* c = dynamic_cast<cuda::CudaBackend*>(b);
  return c ? c->stream() : nullptr;
}

int CudaDeviceOf(Backend* b) {
  auto* c = dynamic_cast<cuda::CudaBackend*>(b);
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
    return new sweep::nn::cuda::CudaBackend(device);
  } catch (const std::exception& e) {
    CopyError("cannot use cuda:" + std::to_string(device) + ": " + e.what(), err, len);
    return nullptr;
  }
}
