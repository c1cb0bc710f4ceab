// The compute backend interface. Layers, optimizers and models call only
// these operations, so a CUDA backend (cuDNN/cuBLAS) slots in without
// changing them. All pointers are device pointers of this backend; tensors
// are float32, NCHW, row-major. A backend is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "common/status.h"

namespace sweep::nn {

enum class Device { kCpu, kCuda };

enum class Activation { kRelu, kLeakyRelu, kTanh, kGelu };

// Geometry of a 2-D convolution or pooling window over NCHW input.
struct Window {
  int n = 0, c = 0, h = 0, w = 0;  // input
  int k = 1, stride = 1, pad = 0;  // square kernel
  int oc = 0;                      // conv: output channels
  int OutH() const { return (h + 2 * pad - k) / stride + 1; }
  int OutW() const { return (w + 2 * pad - k) / stride + 1; }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual Device device() const = 0;
  // Call on a thread before it uses this backend (sets per-thread state such
  // as the OpenMP thread count).
  virtual void BindThread() {}
  virtual std::string Describe() const = 0;

  // Memory. Alloc returns zeroed memory.
  virtual float* Alloc(size_t n) = 0;
  virtual void Free(float* p) = 0;
  // Both return when the copy is done: `host` may be reused at once.
  virtual void ToHost(const float* src, float* host, size_t n) = 0;
  virtual void FromHost(const float* host, float* dst, size_t n) = 0;
  virtual void Zero(float* p, size_t n) = 0;
  virtual void Copy(const float* src, float* dst, size_t n) = 0;

  // C[m,n] = alpha * op(A) * op(B) + beta * C, row-major.
  virtual void Gemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a,
                    const float* b, float beta, float* c) = 0;
  // y[r, :] += bias for each of `rows` rows of width `cols`.
  virtual void AddBias(float* y, const float* bias, int rows, int cols) = 0;
  // dbias[:] = sum over rows of dy.
  virtual void BiasGrad(const float* dy, float* dbias, int rows, int cols) = 0;

  // Convolution (weights [oc, c, k, k], bias [oc]). `workspace` holds
  // ConvWorkspace(g) floats; Forward leaves in it what Backward reuses, so
  // pass the same one to both. Backward writes dw, db and dx (dx may be
  // null for the first layer).
  virtual size_t ConvWorkspace(const Window& g) = 0;
  virtual void Conv2dForward(const Window& g, const float* x, const float* w, const float* b,
                             float* y, float* workspace) = 0;
  virtual void Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy,
                              float* dx, float* dw, float* db, float* workspace) = 0;
  // Pooling; max pooling records the argmax for backward.
  virtual void MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax) = 0;
  virtual void MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax,
                               float* dx) = 0;
  virtual void AvgPoolForward(const Window& g, const float* x, float* y) = 0;
  virtual void AvgPoolBackward(const Window& g, const float* dy, float* dx) = 0;

  virtual void ActivationForward(Activation a, float slope, const float* x, float* y, size_t n) = 0;
  virtual void ActivationBackward(Activation a, float slope, const float* x, const float* dy,
                                  float* dx, size_t n) = 0;
  // Inverted dropout: mask[i] is 0 or 1/(1-p), drawn from (seed, i).
  virtual void DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask,
                              size_t n) = 0;
  virtual void Mul(const float* a, const float* b, float* y, size_t n) = 0;

  // Batch norm over N and spatial positions, per channel. Training mode
  // computes batch statistics, saves mean/invstd and updates the running ones.
  virtual void BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                              const float* gamma, const float* beta, float* y, float* save_mean,
                              float* save_invstd, float* run_mean, float* run_var) = 0;
  virtual void BatchNormEval(int n, int c, int hw, float eps, const float* x, const float* gamma,
                             const float* beta, const float* run_mean, const float* run_var,
                             float* y) = 0;
  // Training mode (`eval` false): `mean`/`scale` are the saved batch mean and
  // inverse std. Eval mode: they are the running mean and variance, and the
  // statistics are constants.
  virtual void BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                                 const float* gamma, const float* mean, const float* scale,
                                 const float* dy, float* dx, float* dgamma, float* dbeta) = 0;

  // Softmax cross-entropy over [n, classes]: returns the summed loss and the
  // number of correct argmax predictions; writes d(mean loss)/d(logits).
  // `labels` (n of them) are in host memory.
  virtual void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n, int classes,
                                   float* dlogits, double* loss_sum, int64_t* correct) = 0;

  // Optimizer updates over the flat parameter buffer.
  virtual void SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                       bool nesterov, float weight_decay) = 0;
  // decoupled: AdamW (weight decay applied to the weights, not the gradient).
  virtual void AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr,
                        float beta1, float beta2, float eps, float weight_decay, bool decoupled,
                        int64_t t) = 0;
};

// The CPU backend (OpenBLAS GEMM, OpenMP threads). `threads` <= 0: all cores.
std::unique_ptr<Backend> MakeCpuBackend(int threads);

// The CUDA backend on device `device` (cuBLAS, cuDNN, own kernels). An error
// says why not: a build without CUDA, no driver, no such device. Operations
// throw CudaError (nn/cuda/cuda_error.h) on device errors such as running
// out of memory.
Result<std::unique_ptr<Backend>> MakeCudaBackend(int device);
// CUDA devices visible to this process (0 in a build without CUDA).
int CudaDeviceCount();
// True when this build includes the CUDA backend.
bool HaveCudaBackend();

// What a process that trains needs set before its libraries load, so it
// calls this first thing in main(): it re-executes itself once with
// - OpenMP's wait policy (common/openmp_wait.h), unless the user set it;
// - OPENBLAS_CORETYPE=Haswell, unless the variable is set, when OpenBLAS
//   fell back to kernels without AVX2 on a CPU that has it (a CPU newer than
//   the OpenBLAS, or a VM that hides the model: nn/cpu/blas_core.h).
// On failure it carries on as it is.
void EnsureTrainingEnvironment(char** argv);

// OpenBLAS starts its worker threads when the process loads, and each spins
// (sched_yield) for about 0.1 s of CPU before it sleeps: a tax on every
// sweep process, paid even by those that never multiply a matrix (the
// tuner, the CLI). Called first thing in main(): the threads stop now, and
// OpenBLAS starts them again when the CPU backend sets its thread count
// (openblas_set_num_threads), or at its first threaded call.
void StopIdleBlasThreads();
// The kernels OpenBLAS picked for this CPU ("Haswell", "Zen", ...).
const char* BlasCoreName();

}  // namespace sweep::nn
