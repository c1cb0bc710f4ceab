// CPU loss: softmax cross-entropy with its gradient and the count of correct
// predictions. CUDA twin: nn/cuda/loss.cu.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "nn/cpu/ops.h"

namespace sweep::nn::cpu {

void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n, int classes,
                         float* dlogits, double* loss_sum, int64_t* correct) {
  double loss = 0;
  int64_t right = 0;
  for (int i = 0; i < n; ++i) {
    const float* z = logits + static_cast<size_t>(i) * classes;
    float* d = dlogits ? dlogits + static_cast<size_t>(i) * classes : nullptr;
    int arg = 0;
    float mx = z[0];
    for (int j = 1; j < classes; ++j) {
      if (z[j] > mx) {
        mx = z[j];
        arg = j;
      }
    }
    double sum = 0;
    for (int j = 0; j < classes; ++j) sum += std::exp(static_cast<double>(z[j] - mx));
    double lse = mx + std::log(sum);
    loss += lse - z[labels[i]];
    right += arg == labels[i];
    if (d) {
      for (int j = 0; j < classes; ++j) {
        double pj = std::exp(z[j] - lse);
        d[j] = static_cast<float>((pj - (j == labels[i] ? 1.0 : 0.0)) / n);
      }
    }
  }
  *loss_sum = loss;
  *correct = right;
}

}  // namespace sweep::nn::cpu
