// The CPU backend's convolutions as it holds them: oneDNN's (dnnl_conv.h),
// which live in a module of their own (libsweep_nn_dnnl.so, dnnl_entry.cc)
// opened the first time a process convolves on the CPU. The tuner, the CLI
// and runners of MLPs, synthetic objectives or programs never load oneDNN
// (about 1.7 ms of CPU at every process start). A module that cannot be loaded is an
// error naming why, thrown from the first convolution like oneDNN's own
// errors; never a fall-back to another implementation.
#pragma once

#include <cstddef>

#include "nn/backend.h"

namespace sweep::nn::cpu {

class DnnlConvModule {
 public:
  DnnlConvModule() = default;
  ~DnnlConvModule();
  DnnlConvModule(const DnnlConvModule&) = delete;
  DnnlConvModule& operator=(const DnnlConvModule&) = delete;

  // As DnnlConv's; each throws std::runtime_error with the module's message.
  size_t Workspace(const Window& g);
  void Forward(const Window& g, const float* x, const float* w, const float* b, float* y,
               float* col);
  void Backward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                float* dw, float* db, const float* col);

 private:
  // The module's DnnlConv, made on first use.
  void* Conv();
  void* conv_ = nullptr;
};

}  // namespace sweep::nn::cpu
