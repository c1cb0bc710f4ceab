// The CPU backend's operations, one file per family (nn/cpu/NAME.cc; the CUDA
// twin of each is nn/cuda/NAME.cu, with the same op names). Internal to nn/:
// CpuBackend (cpu_backend.cc) dispatches to these, and the semantics of each
// op are those of nn/backend.h. `threads` is the backend's OpenMP thread
// count, which picks serial loops on one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "nn/backend.h"

namespace sweep::nn::cpu {

inline void Zero(float* p, size_t n) { std::memset(p, 0, n * sizeof(float)); }

// matmul.cc
void Gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, const float* b,
          float beta, float* c);
void AddBias(float* y, const float* bias, int rows, int cols);
void BiasGrad(const float* dy, float* dbias, int rows, int cols);

// conv.cc: `col` is the workspace (ConvWorkspace floats); `tmp` is the
// backend's scratch for the [oc][n*oh*ow] layout, kept between calls.
size_t ConvWorkspace(const Window& g);
void Conv2dForward(const Window& g, const float* x, const float* w, const float* b, float* y,
                   float* col, std::vector<float>& tmp);
void Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                    float* dw, float* db, float* col, std::vector<float>& tmp);

// pool.cc
void MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax);
void MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax, float* dx);
void AvgPoolForward(const Window& g, const float* x, float* y);
void AvgPoolBackward(const Window& g, const float* dy, float* dx);

// activation.cc
void ActivationForward(Activation a, float slope, const float* x, float* y, size_t n, int threads);
void ActivationBackward(Activation a, float slope, const float* x, const float* dy, float* dx,
                        size_t n, int threads);

// elementwise.cc
void DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask, size_t n);
void Mul(const float* a, const float* b, float* y, size_t n);

// batch_norm.cc
void BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                    const float* gamma, const float* beta, float* y, float* save_mean,
                    float* save_invstd, float* run_mean, float* run_var);
void BatchNormEval(int n, int c, int hw, float eps, const float* x, const float* gamma,
                   const float* beta, const float* run_mean, const float* run_var, float* y);
void BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                       const float* gamma, const float* means, const float* scales, const float* dy,
                       float* dx, float* dgamma, float* dbeta);

// loss.cc
void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n, int classes,
                         float* dlogits, double* loss_sum, int64_t* correct);

// optimizer.cc
void SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum, bool nesterov,
             float weight_decay, int threads);
void AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
              float beta2, float eps, float weight_decay, bool decoupled, int64_t t);

}  // namespace sweep::nn::cpu
