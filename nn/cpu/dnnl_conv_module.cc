// Opening libsweep_nn_dnnl.so on first use; see dnnl_conv_module.h.
#include "nn/cpu/dnnl_conv_module.h"

#include <mutex>
#include <stdexcept>
#include <string>

#include "nn/module_loader.h"

namespace sweep::nn::cpu {

namespace {

struct Entry {
  std::string error;  // why the module is not there, when it is not
  void* (*make)(char*, size_t) = nullptr;
  void (*free)(void*) = nullptr;
  int (*workspace)(void*, const Window*, size_t*, char*, size_t) = nullptr;
  int (*forward)(void*, const Window*, const float*, const float*, const float*, float*, float*,
                 char*, size_t) = nullptr;
  int (*backward)(void*, const Window*, const float*, const float*, const float*, float*, float*,
                  float*, const float*, char*, size_t) = nullptr;
};

template <typename Fn>
bool Bind(void* handle, const char* name, Fn* fn, std::string* error) {
  return BindSymbol(handle, name, "libsweep_nn_dnnl.so", "oneDNN convolutions", fn, error);
}

// Looks in $SWEEP_DNNL_MODULE, beside the binary, in ../lib, where the
// build put it, then the library path (module_loader.h). Never closed: the
// process keeps it, as it would keep a linked library.
const Entry& Module() {
  static Entry m;
  static std::once_flag once;
  std::call_once(once, [] {
    Result<void*> handle = OpenModule("libsweep_nn_dnnl.so", "SWEEP_DNNL_MODULE",
                                      SWEEP_DNNL_MODULE_PATH, "oneDNN convolutions");
    if (!handle.ok()) {
      m.error = handle.status().message();
      return;
    }
    Entry e;
    if (Bind(*handle, "sweep_dnnl_conv_new", &e.make, &m.error) &&
        Bind(*handle, "sweep_dnnl_conv_free", &e.free, &m.error) &&
        Bind(*handle, "sweep_dnnl_conv_workspace", &e.workspace, &m.error) &&
        Bind(*handle, "sweep_dnnl_conv_forward", &e.forward, &m.error) &&
        Bind(*handle, "sweep_dnnl_conv_backward", &e.backward, &m.error)) {
      m = e;
    }
  });
  return m;
}

void Check(int rc, const char* err) {
  if (rc != 0) throw std::runtime_error(err);
}

}  // namespace

DnnlConvModule::~DnnlConvModule() {
  if (conv_) Module().free(conv_);
}

void* DnnlConvModule::Conv() {
  if (conv_) return conv_;
  const Entry& m = Module();
  if (!m.make) throw std::runtime_error(m.error);
  char err[1024] = {0};
  conv_ = m.make(err, sizeof err);
  if (!conv_) throw std::runtime_error(err);
  return conv_;
}

size_t DnnlConvModule::Workspace(const Window& g) {
  void* c = Conv();
  char err[1024] = {0};
  size_t floats = 0;
  Check(Module().workspace(c, &g, &floats, err, sizeof err), err);
  return floats;
}

void DnnlConvModule::Forward(const Window& g, const float* x, const float* w, const float* b,
                             float* y, float* col) {
  void* c = Conv();
  char err[1024] = {0};
  Check(Module().forward(c, &g, x, w, b, y, col, err, sizeof err), err);
}

void DnnlConvModule::Backward(const Window& g, const float* x, const float* w, const float* dy,
                              float* dx, float* dw, float* db, const float* col) {
  void* c = Conv();
  char err[1024] = {0};
  Check(Module().backward(c, &g, x, w, dy, dx, dw, db, col, err, sizeof err), err);
}

}  // namespace sweep::nn::cpu
