// CUDA loss: softmax cross-entropy with its gradient and the count of correct
// predictions. CPU twin: nn/cpu/loss.cc.
#include <cmath>
#include <vector>

#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

// One thread per row: loss and correctness per row (summed on the host in
// row order, as the CPU does), and d(mean loss)/d(logits).
__global__ void SoftmaxXentKernel(const float* logits, const int32_t* labels, int n, int classes,
                                  float* dlogits, double* row_loss, int* row_correct) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float* z = logits + static_cast<size_t>(i) * classes;
  int arg = 0;
  float mx = z[0];
  for (int j = 1; j < classes; ++j) {
    if (z[j] > mx) {
      mx = z[j];
      arg = j;
    }
  }
  double sum = 0;
  for (int j = 0; j < classes; ++j) sum += exp(static_cast<double>(z[j] - mx));
  double lse = mx + log(sum);
  int label = labels[i];
  row_loss[i] = lse - z[label];
  row_correct[i] = arg == label;
  if (dlogits) {
    float* d = dlogits + static_cast<size_t>(i) * classes;
    for (int j = 0; j < classes; ++j) {
      double pj = exp(static_cast<double>(z[j]) - lse);
      d[j] = static_cast<float>((pj - (j == label ? 1.0 : 0.0)) / n);
    }
  }
}

}  // namespace

void CudaBackend::SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n,
                                      int classes, float* dlogits, double* loss_sum,
                                      int64_t* correct) {
  EnsureRows(n);
  SWEEP_CUDA(
      cudaMemcpyAsync(labels_, labels, n * sizeof(int32_t), cudaMemcpyHostToDevice, stream_));
  SoftmaxXentKernel<<<(n + 127) / 128, 128, 0, stream_>>>(logits, labels_, n, classes, dlogits,
                                                          row_loss_, row_correct_);
  SWEEP_CUDA(cudaGetLastError());
  std::vector<double> loss(n);
  std::vector<int> right(n);
  SWEEP_CUDA(
      cudaMemcpyAsync(loss.data(), row_loss_, n * sizeof(double), cudaMemcpyDeviceToHost, stream_));
  SWEEP_CUDA(cudaMemcpyAsync(right.data(), row_correct_, n * sizeof(int), cudaMemcpyDeviceToHost,
                             stream_));
  SWEEP_CUDA(cudaStreamSynchronize(stream_));
  double sum = 0;
  int64_t ok = 0;
  for (int i = 0; i < n; ++i) {
    sum += loss[i];
    ok += right[i];
  }
  *loss_sum = sum;
  *correct = ok;
}

void CudaBackend::EnsureRows(int n) {
  if (n <= rows_) return;
  if (labels_) cudaFree(labels_);
  if (row_loss_) cudaFree(row_loss_);
  if (row_correct_) cudaFree(row_correct_);
  labels_ = nullptr;
  row_loss_ = nullptr;
  row_correct_ = nullptr;
  SWEEP_CUDA(cudaMalloc(&labels_, n * sizeof(int32_t)));
  SWEEP_CUDA(cudaMalloc(&row_loss_, n * sizeof(double)));
  SWEEP_CUDA(cudaMalloc(&row_correct_, n * sizeof(int)));
  rows_ = n;
}

}  // namespace sweep::nn::cuda
