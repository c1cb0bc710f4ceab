// The C entry points of libsweep_nn_dnnl.so, the module that holds the CPU
// backend's oneDNN convolutions (dnnl_conv.h). dnnl_conv_module.cc opens it
// the first time a process convolves on the CPU. Errors come back as text
// in `err`, never as exceptions across the module's edge.
#include <cstdio>
#include <exception>
#include <new>

#include "nn/cpu/dnnl_conv.h"
#include "nn/module_entry.h"

using sweep::nn::Window;
using sweep::nn::cpu::DnnlConv;

namespace {

template <typename F>
int Guarded(char* err, size_t n, F&& f) {
  return sweep::nn::GuardedEntry("oneDNN convolution", err, n, f);
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) void* sweep_dnnl_conv_new(char* err, size_t n) {
  DnnlConv* conv = nullptr;
  Guarded(err, n, [&] { conv = new DnnlConv(); });
  return conv;
}

__attribute__((visibility("default"))) void sweep_dnnl_conv_free(void* conv) {
  delete static_cast<DnnlConv*>(conv);
}

__attribute__((visibility("default"))) int sweep_dnnl_conv_workspace(void* conv, const Window* g,
                                                                     size_t* floats, char* err,
                                                                     size_t n) {
  return Guarded(err, n, [&] { *floats = static_cast<DnnlConv*>(conv)->Workspace(*g); });
}

__attribute__((visibility("default"))) int sweep_dnnl_conv_forward(void* conv, const Window* g,
                                                                   const float* x, const float* w,
                                                                   const float* b, float* y,
                                                                   float* col, char* err,
                                                                   size_t n) {
  return Guarded(err, n, [&] { static_cast<DnnlConv*>(conv)->Forward(*g, x, w, b, y, col); });
}

__attribute__((visibility("default"))) int sweep_dnnl_conv_backward(
    void* conv, const Window* g, const float* x, const float* w, const float* dy, float* dx,
    float* dw, float* db, const float* col, char* err, size_t n) {
  return Guarded(err, n,
                 [&] { static_cast<DnnlConv*>(conv)->Backward(*g, x, w, dy, dx, dw, db, col); });
}

}  // extern "C"
