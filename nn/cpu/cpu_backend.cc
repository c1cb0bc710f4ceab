// CPU backend: the class behind nn/backend.h, its memory and thread count,
// dispatching each op to its family file (nn/cpu/ops.h: matmul, conv, pool,
// activation, elementwise, batch_norm, loss, optimizer). OpenBLAS SGEMM for
// matrix products, oneDNN for convolutions (dnnl_conv.h), OpenMP over
// independent outputs elsewhere. Every reduction runs in a fixed order, so results are
// deterministic for a fixed thread count. It is the reference every other
// backend is tested against.
#include <omp.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/openmp_wait.h"
#include "nn/backend.h"
#include "nn/cpu/blas_core.h"
#include "nn/cpu/dnnl_conv_module.h"
#include "nn/cpu/ops.h"

extern "C" {
// From OpenBLAS (its header's location varies by package).
void openblas_set_num_threads(int n);
int blas_thread_shutdown_(void);
}

namespace sweep::nn {

namespace {

class CpuBackend : public Backend {
 public:
  explicit CpuBackend(int threads) : threads_(threads > 0 ? threads : omp_get_num_procs()) {
    openblas_set_num_threads(threads_);
    omp_set_num_threads(threads_);
  }
  Device device() const override { return Device::kCpu; }
  void BindThread() override { omp_set_num_threads(threads_); }
  std::string Describe() const override { return "cpu (" + std::to_string(threads_) + " threads)"; }

  float* Alloc(size_t n) override {
    void* p = nullptr;
    if (posix_memalign(&p, 64, std::max<size_t>(n, 1) * sizeof(float)) != 0) return nullptr;
    std::memset(p, 0, std::max<size_t>(n, 1) * sizeof(float));
    return static_cast<float*>(p);
  }
  void Free(float* p) override { free(p); }
  // n == 0 may come with null pointers (an empty vector's data()).
  void ToHost(const float* src, float* host, size_t n) override {
    if (n) std::memcpy(host, src, n * sizeof(float));
  }
  void FromHost(const float* host, float* dst, size_t n) override {
    if (n) std::memcpy(dst, host, n * sizeof(float));
  }
  void Zero(float* p, size_t n) override { cpu::Zero(p, n); }
  void Copy(const float* src, float* dst, size_t n) override {
    if (n) std::memcpy(dst, src, n * sizeof(float));
  }

  // matmul.cc
  void Gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, const float* b,
            float beta, float* c) override {
    cpu::Gemm(ta, tb, m, n, k, alpha, a, b, beta, c);
  }
  void AddBias(float* y, const float* bias, int rows, int cols) override {
    cpu::AddBias(y, bias, rows, cols);
  }
  void BiasGrad(const float* dy, float* dbias, int rows, int cols) override {
    cpu::BiasGrad(dy, dbias, rows, cols);
  }

  // dnnl_conv.cc (conv.cc's im2col is the reference it is tested against)
  size_t ConvWorkspace(const Window& g) override { return conv_.Workspace(g); }
  void Conv2dForward(const Window& g, const float* x, const float* w, const float* b, float* y,
                     float* col) override {
    conv_.Forward(g, x, w, b, y, col);
  }
  void Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                      float* dw, float* db, float* col) override {
    conv_.Backward(g, x, w, dy, dx, dw, db, col);
  }

  // pool.cc
  void MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax) override {
    cpu::MaxPoolForward(g, x, y, argmax);
  }
  void MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax,
                       float* dx) override {
    cpu::MaxPoolBackward(g, dy, argmax, dx);
  }
  void AvgPoolForward(const Window& g, const float* x, float* y) override {
    cpu::AvgPoolForward(g, x, y);
  }
  void AvgPoolBackward(const Window& g, const float* dy, float* dx) override {
    cpu::AvgPoolBackward(g, dy, dx);
  }

  // activation.cc
  void ActivationForward(Activation a, float slope, const float* x, float* y, size_t n) override {
    cpu::ActivationForward(a, slope, x, y, n, threads_);
  }
  void ActivationBackward(Activation a, float slope, const float* x, const float* dy, float* dx,
                          size_t n) override {
    cpu::ActivationBackward(a, slope, x, dy, dx, n, threads_);
  }

  // elementwise.cc
  void DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask,
                      size_t n) override {
    cpu::DropoutForward(p, seed, x, y, mask, n);
  }
  void Mul(const float* a, const float* b, float* y, size_t n) override { cpu::Mul(a, b, y, n); }

  // batch_norm.cc
  void BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                      const float* gamma, const float* beta, float* y, float* save_mean,
                      float* save_invstd, float* run_mean, float* run_var) override {
    cpu::BatchNormTrain(n, c, hw, momentum, eps, x, gamma, beta, y, save_mean, save_invstd,
                        run_mean, run_var);
  }
  void BatchNormEval(int n, int c, int hw, float eps, const float* x, const float* gamma,
                     const float* beta, const float* run_mean, const float* run_var,
                     float* y) override {
    cpu::BatchNormEval(n, c, hw, eps, x, gamma, beta, run_mean, run_var, y);
  }
  void BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                         const float* gamma, const float* means, const float* scales,
                         const float* dy, float* dx, float* dgamma, float* dbeta) override {
    cpu::BatchNormBackward(eval, n, c, hw, eps, x, gamma, means, scales, dy, dx, dgamma, dbeta);
  }

  // loss.cc
  void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n, int classes,
                           float* dlogits, double* loss_sum, int64_t* correct) override {
    cpu::SoftmaxCrossEntropy(logits, labels, n, classes, dlogits, loss_sum, correct);
  }

  // optimizer.cc
  void SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum,
               bool nesterov, float weight_decay) override {
    cpu::SgdStep(p, g, v, n, lr, momentum, nesterov, weight_decay, threads_);
  }
  void AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
                float beta2, float eps, float weight_decay, bool decoupled, int64_t t) override {
    cpu::AdamStep(p, g, m, v, n, lr, beta1, beta2, eps, weight_decay, decoupled, t);
  }

 private:
  int threads_;
  cpu::DnnlConvModule conv_;  // its primitives and scratch, per geometry
};

}  // namespace

void EnsureTrainingEnvironment(char** argv) {
  bool again = false;
  if (SetOpenMpWaitDefaults()) again = true;
  if (const char* core = cpu::BlasCoreToRequest()) {
    // Set now, so the next start does not ask again.
    setenv("OPENBLAS_CORETYPE", core, 1);
    again = true;
  }
  if (again) execv("/proc/self/exe", argv);
}

void StopIdleBlasThreads() { blas_thread_shutdown_(); }

std::unique_ptr<Backend> MakeCpuBackend(int threads) {
  return std::make_unique<CpuBackend>(threads);
}

}  // namespace sweep::nn
