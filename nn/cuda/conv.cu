// CUDA convolution: cuDNN forward and backward with fixed deterministic
// algorithms, a plan cache per window, and the per-channel bias. CPU twin:
// nn/cpu/conv.cc.
#include <cudnn.h>

#include <algorithm>
#include <tuple>

#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

// Fixed, deterministic algorithms (implicit precomputed GEMM forward,
// algorithm 1 backward): the same result on every run.
constexpr cudnnConvolutionFwdAlgo_t kFwdAlgo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
constexpr cudnnConvolutionBwdDataAlgo_t kBwdDataAlgo = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
constexpr cudnnConvolutionBwdFilterAlgo_t kBwdFilterAlgo = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1;

__global__ void ChannelBiasKernel(float* y, const float* b, int oc, size_t plane, size_t n) {
  GRID_STRIDE(i, n) { y[i] += b[(i / plane) % oc]; }
}

}  // namespace

size_t CudaBackend::ConvWorkspace(const Window& g) {
  return (Plan(g).workspace_bytes + sizeof(float) - 1) / sizeof(float);
}
void CudaBackend::Conv2dForward(const Window& g, const float* x, const float* w, const float* b,
                                float* y, float* workspace) {
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
void CudaBackend::Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy,
                                 float* dx, float* dw, float* db, float* workspace) {
  ConvPlan& p = Plan(g);
  const float one = 1.f, zero = 0.f;
  SWEEP_CUDNN(cudnnConvolutionBackwardFilter(dnn_, &one, p.x, x, p.y, dy, p.conv, kBwdFilterAlgo,
                                             workspace, p.workspace_bytes, &zero, p.w, dw));
  if (db) {
    GroupSum(dy, db, g.n, g.oc, g.OutH() * g.OutW(), stream_);
  }
  if (dx) {
    SWEEP_CUDNN(cudnnConvolutionBackwardData(dnn_, &one, p.w, w, p.y, dy, p.conv, kBwdDataAlgo,
                                             workspace, p.workspace_bytes, &zero, p.x, dx));
  }
}

ConvPlan& CudaBackend::Plan(const Window& g) {
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
  SWEEP_CUDNN(
      cudnnGetConvolutionBackwardDataWorkspaceSize(dnn_, p.w, p.y, p.conv, p.x, kBwdDataAlgo, &bd));
  SWEEP_CUDNN(cudnnGetConvolutionBackwardFilterWorkspaceSize(dnn_, p.x, p.y, p.conv, p.w,
                                                             kBwdFilterAlgo, &bf));
  p.workspace_bytes = std::max(std::max(f, bd), std::max(bf, sizeof(float)));
  return plans_.emplace(key, p).first->second;
}

}  // namespace sweep::nn::cuda
