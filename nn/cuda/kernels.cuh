// The CUDA backend's own kernels (everything cuBLAS and cuDNN do not do):
// bias, grouped sums, pooling with argmax, activations, dropout, batch-norm
// pieces, softmax cross-entropy and the optimizer steps. Each follows the
// CPU backend's formula (nn/cpu/cpu_backend.cc). Included once, by
// cuda_backend.cu, inside its anonymous namespace.
#pragma once

#define GRID_STRIDE(i, n)                                                 \
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < (n); \
       i += size_t{blockDim.x} * gridDim.x)

__global__ void ChannelBiasKernel(float* y, const float* b, int oc, size_t plane, size_t n) {
  GRID_STRIDE(i, n) { y[i] += b[(i / plane) % oc]; }
}

__global__ void AddBiasKernel(float* y, const float* bias, size_t rows, size_t cols) {
  GRID_STRIDE(i, rows * cols) { y[i] += bias[i % cols]; }
}

// out[j] = sum over i < outer, k < inner of x[(i * groups + j) * inner + k]:
// one block per group j, a fixed tree order.
__global__ void GroupSumKernel(const float* x, float* out, int outer, int groups, int inner) {
  __shared__ double part[kReduceThreads];
  const int j = blockIdx.x;
  double s = 0;
  const size_t total = static_cast<size_t>(outer) * inner;
  for (size_t t = threadIdx.x; t < total; t += kReduceThreads) {
    size_t i = t / inner, k = t % inner;
    s += x[(i * groups + j) * inner + k];
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (int w = kReduceThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) part[threadIdx.x] += part[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[j] = static_cast<float>(part[0]);
}

__global__ void MaxPoolFwdKernel(int n, int c, int h, int w, int k, int stride, int pad, int oh,
                                 int ow, const float* x, float* y, int32_t* argmax) {
  GRID_STRIDE(o, static_cast<size_t>(n) * c * oh * ow) {
    int xx = static_cast<int>(o % ow), yy = static_cast<int>((o / ow) % oh);
    size_t nc = o / (static_cast<size_t>(oh) * ow);
    const float* in = x + nc * h * w;
    float best = -INFINITY;
    int32_t at = -1;
    for (int ki = 0; ki < k; ++ki) {
      int iy = yy * stride - pad + ki;
      if (iy < 0 || iy >= h) continue;
      for (int kj = 0; kj < k; ++kj) {
        int ix = xx * stride - pad + kj;
        if (ix < 0 || ix >= w) continue;
        float v = in[iy * w + ix];
        if (v > best || at < 0) {
          best = v;
          at = iy * w + ix;
        }
      }
    }
    y[o] = best;
    argmax[o] = at;
  }
}

// dx is gathered (one thread per input element), so no atomics and a fixed
// summation order where windows overlap.
__global__ void MaxPoolBwdKernel(int n, int c, int h, int w, int k, int stride, int pad, int oh,
                                 int ow, const float* dy, const int32_t* argmax, float* dx) {
  GRID_STRIDE(i, static_cast<size_t>(n) * c * h * w) {
    int ix = static_cast<int>(i % w), iy = static_cast<int>((i / w) % h);
    size_t nc = i / (static_cast<size_t>(h) * w);
    int here = iy * w + ix;
    float s = 0;
    int y0 = max(0, (iy + pad - k + stride) / stride), y1 = min(oh - 1, (iy + pad) / stride);
    int x0 = max(0, (ix + pad - k + stride) / stride), x1 = min(ow - 1, (ix + pad) / stride);
    for (int yy = y0; yy <= y1; ++yy) {
      for (int xx = x0; xx <= x1; ++xx) {
        size_t o = (nc * oh + yy) * ow + xx;
        if (argmax[o] == here) s += dy[o];
      }
    }
    dx[i] = s;
  }
}

__global__ void AvgPoolFwdKernel(int n, int c, int h, int w, int k, int stride, int pad, int oh,
                                 int ow, const float* x, float* y) {
  const float scale = 1.f / static_cast<float>(k * k);
  GRID_STRIDE(o, static_cast<size_t>(n) * c * oh * ow) {
    int xx = static_cast<int>(o % ow), yy = static_cast<int>((o / ow) % oh);
    size_t nc = o / (static_cast<size_t>(oh) * ow);
    const float* in = x + nc * h * w;
    float s = 0;
    for (int ki = 0; ki < k; ++ki) {
      int iy = yy * stride - pad + ki;
      if (iy < 0 || iy >= h) continue;
      for (int kj = 0; kj < k; ++kj) {
        int ix = xx * stride - pad + kj;
        if (ix >= 0 && ix < w) s += in[iy * w + ix];
      }
    }
    y[o] = s * scale;
  }
}

__global__ void AvgPoolBwdKernel(int n, int c, int h, int w, int k, int stride, int pad, int oh,
                                 int ow, const float* dy, float* dx) {
  const float scale = 1.f / static_cast<float>(k * k);
  GRID_STRIDE(i, static_cast<size_t>(n) * c * h * w) {
    int ix = static_cast<int>(i % w), iy = static_cast<int>((i / w) % h);
    size_t nc = i / (static_cast<size_t>(h) * w);
    float s = 0;
    int y0 = max(0, (iy + pad - k + stride) / stride), y1 = min(oh - 1, (iy + pad) / stride);
    int x0 = max(0, (ix + pad - k + stride) / stride), x1 = min(ow - 1, (ix + pad) / stride);
    for (int yy = y0; yy <= y1; ++yy)
      for (int xx = x0; xx <= x1; ++xx) s += dy[(nc * oh + yy) * ow + xx];
    dx[i] = s * scale;
  }
}

__device__ float Act(int a, float slope, float x) {
  switch (a) {
    case 0:
      return x > 0 ? x : 0.f;
    case 1:
      return x > 0 ? x : slope * x;
    case 2:
      return tanhf(x);
    default: {
      const float c = 0.7978845608028654f;
      return 0.5f * x * (1.f + tanhf(c * (x + 0.044715f * x * x * x)));
    }
  }
}

__device__ float ActGrad(int a, float slope, float x) {
  switch (a) {
    case 0:
      return x > 0 ? 1.f : 0.f;
    case 1:
      return x > 0 ? 1.f : slope;
    case 2: {
      float t = tanhf(x);
      return 1.f - t * t;
    }
    default: {
      const float c = 0.7978845608028654f;
      float u = c * (x + 0.044715f * x * x * x), t = tanhf(u);
      return 0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * c * (1.f + 3.f * 0.044715f * x * x);
    }
  }
}

__global__ void ActFwdKernel(int a, float slope, const float* x, float* y, size_t n) {
  GRID_STRIDE(i, n) { y[i] = Act(a, slope, x[i]); }
}

__global__ void ActBwdKernel(int a, float slope, const float* x, const float* dy, float* dx,
                             size_t n) {
  GRID_STRIDE(i, n) {
    dx[i] = a == 0 ? (x[i] > 0.f ? dy[i] : 0.f) : dy[i] * ActGrad(a, slope, x[i]);
  }
}

__device__ uint64_t SplitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The same mask as the CPU backend: element i keeps iff SplitMix64(seed +
// i * golden) >= p * 2^64.
__global__ void DropoutKernel(float keep, uint64_t threshold, uint64_t seed, const float* x,
                              float* y, float* mask, size_t n) {
  GRID_STRIDE(i, n) {
    float m = SplitMix64(seed + i * 0x9e3779b97f4a7c15ULL) >= threshold ? keep : 0.f;
    mask[i] = m;
    y[i] = x[i] * m;
  }
}

__global__ void MulKernel(const float* a, const float* b, float* y, size_t n) {
  GRID_STRIDE(i, n) { y[i] = a[i] * b[i]; }
}

// Batch-norm backward in eval mode (statistics are constants).
__global__ void BnEvalBwdKernel(int n, int c, int hw, float eps, const float* gamma,
                                const float* run_var, const float* dy, float* dx) {
  GRID_STRIDE(i, static_cast<size_t>(n) * c * hw) {
    int ch = static_cast<int>((i / hw) % c);
    dx[i] = gamma[ch] * rsqrtf(run_var[ch] + eps) * dy[i];
  }
}

// Per channel: sum(dy) and sum(dy * (x - mean) * invstd), the latter with
// invstd from the running variance (eval) or the saved one (train).
__global__ void BnGradSumsKernel(int n, int c, int hw, float eps, bool eval, const float* x,
                                 const float* mean, const float* scale, const float* dy,
                                 float* dgamma, float* dbeta) {
  __shared__ double s1[kReduceThreads], s2[kReduceThreads];
  const int ch = blockIdx.x;
  const double m = mean[ch];
  const double invstd = eval ? 1.0 / sqrt(static_cast<double>(scale[ch]) + eps) : scale[ch];
  double a = 0, b = 0;
  const size_t total = static_cast<size_t>(n) * hw;
  for (size_t t = threadIdx.x; t < total; t += kReduceThreads) {
    size_t off = ((t / hw) * c + ch) * hw + t % hw;
    a += dy[off];
    b += dy[off] * ((x[off] - m) * invstd);
  }
  s1[threadIdx.x] = a;
  s2[threadIdx.x] = b;
  __syncthreads();
  for (int w = kReduceThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s1[threadIdx.x] += s1[threadIdx.x + w];
      s2[threadIdx.x] += s2[threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    dbeta[ch] = static_cast<float>(s1[0]);
    dgamma[ch] = static_cast<float>(s2[0]);
  }
}

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

__global__ void SgdKernel(float* p, const float* g, float* v, size_t n, float lr, float momentum,
                          bool nesterov, float wd) {
  GRID_STRIDE(i, n) {
    if (momentum == 0.f) {
      p[i] -= lr * (g[i] + wd * p[i]);
    } else if (nesterov) {
      float grad = g[i] + wd * p[i];
      v[i] = momentum * v[i] + grad;
      p[i] -= lr * (grad + momentum * v[i]);
    } else {
      v[i] = momentum * v[i] + g[i] + wd * p[i];
      p[i] -= lr * v[i];
    }
  }
}

__global__ void AdamKernel(float* p, const float* g, float* m, float* v, size_t n, float lr,
                           float beta1, float beta2, float eps, float wd, bool decoupled, float c1,
                           float c2) {
  GRID_STRIDE(i, n) {
    float grad = g[i];
    if (decoupled)
      p[i] *= 1.f - lr * wd;
    else
      grad += wd * p[i];
    m[i] = beta1 * m[i] + (1.f - beta1) * grad;
    v[i] = beta2 * v[i] + (1.f - beta2) * grad * grad;
    p[i] -= lr * (m[i] / c1) / (sqrtf(v[i] / c2) + eps);
  }
}
