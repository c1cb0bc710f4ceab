// CPU batch norm: training (batch statistics), eval (running statistics)
// and backward. CUDA twin: nn/cuda/batch_norm.cu.
#include <cmath>
#include <cstddef>

#include "nn/cpu/ops.h"

namespace sweep::nn::cpu {

void BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                    const float* gamma, const float* beta, float* y, float* save_mean,
                    float* save_invstd, float* run_mean, float* run_var) {
  const double count = static_cast<double>(n) * hw;
#pragma omp parallel for schedule(static)
  for (int ch = 0; ch < c; ++ch) {
    double s = 0, ss = 0;
    for (int i = 0; i < n; ++i) {
      const float* p = x + (static_cast<size_t>(i) * c + ch) * hw;
      for (int j = 0; j < hw; ++j) s += p[j];
    }
    double mean = s / count;
    for (int i = 0; i < n; ++i) {
      const float* p = x + (static_cast<size_t>(i) * c + ch) * hw;
      for (int j = 0; j < hw; ++j) ss += (p[j] - mean) * (p[j] - mean);
    }
    double var = ss / count;
    float invstd = static_cast<float>(1.0 / std::sqrt(var + eps));
    save_mean[ch] = static_cast<float>(mean);
    save_invstd[ch] = invstd;
    run_mean[ch] = (1 - momentum) * run_mean[ch] + momentum * static_cast<float>(mean);
    double unbiased = count > 1 ? ss / (count - 1) : var;
    run_var[ch] = (1 - momentum) * run_var[ch] + momentum * static_cast<float>(unbiased);
    float scale = gamma[ch] * invstd, shift = beta[ch] - static_cast<float>(mean) * scale;
    for (int i = 0; i < n; ++i) {
      size_t off = (static_cast<size_t>(i) * c + ch) * hw;
      for (int j = 0; j < hw; ++j) y[off + j] = x[off + j] * scale + shift;
    }
  }
}

void BatchNormEval(int n, int c, int hw, float eps, const float* x, const float* gamma,
                   const float* beta, const float* run_mean, const float* run_var, float* y) {
#pragma omp parallel for schedule(static)
  for (int ch = 0; ch < c; ++ch) {
    float scale = gamma[ch] / std::sqrt(run_var[ch] + eps), shift = beta[ch] - run_mean[ch] * scale;
    for (int i = 0; i < n; ++i) {
      size_t off = (static_cast<size_t>(i) * c + ch) * hw;
      for (int j = 0; j < hw; ++j) y[off + j] = x[off + j] * scale + shift;
    }
  }
}

void BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                       const float* gamma, const float* means, const float* scales, const float* dy,
                       float* dx, float* dgamma, float* dbeta) {
  const double count = static_cast<double>(n) * hw;
#pragma omp parallel for schedule(static)
  for (int ch = 0; ch < c; ++ch) {
    double sdy = 0, sdyx = 0;
    const double mean = means[ch];
    const double invstd =
        eval ? 1.0 / std::sqrt(static_cast<double>(scales[ch]) + eps) : scales[ch];
    for (int i = 0; i < n; ++i) {
      size_t off = (static_cast<size_t>(i) * c + ch) * hw;
      for (int j = 0; j < hw; ++j) {
        sdy += dy[off + j];
        sdyx += dy[off + j] * ((x[off + j] - mean) * invstd);
      }
    }
    dgamma[ch] = static_cast<float>(sdyx);
    dbeta[ch] = static_cast<float>(sdy);
    if (!dx) continue;
    if (eval) {
      for (int i = 0; i < n; ++i) {
        size_t off = (static_cast<size_t>(i) * c + ch) * hw;
        for (int j = 0; j < hw; ++j)
          dx[off + j] = static_cast<float>(gamma[ch] * invstd * dy[off + j]);
      }
      continue;
    }
    const double k = gamma[ch] * invstd / count;
    for (int i = 0; i < n; ++i) {
      size_t off = (static_cast<size_t>(i) * c + ch) * hw;
      for (int j = 0; j < hw; ++j) {
        double xhat = (x[off + j] - mean) * invstd;
        dx[off + j] = static_cast<float>(k * (count * dy[off + j] - sdy - xhat * sdyx));
      }
    }
  }
}

}  // namespace sweep::nn::cpu
