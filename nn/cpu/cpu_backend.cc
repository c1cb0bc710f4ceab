// CPU backend: OpenBLAS SGEMM for matrix products and convolutions (im2col),
// OpenMP over independent outputs elsewhere. Every reduction runs in a fixed
// order, so results are deterministic for a fixed thread count. It is the
// reference every other backend is tested against.
#include <omp.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "common/rng.h"
#include "nn/backend.h"

extern "C" {
// From OpenBLAS (cblas.h declares them, but its location varies by package).
void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void openblas_set_num_threads(int n);
}

namespace sweep::nn {

namespace {

constexpr int kRowMajor = 101, kNoTrans = 111, kTrans = 112;

// Serial element-wise kernels with non-aliasing pointers, branch-free, so
// GCC vectorises them; OpenMP's outlined regions kept them scalar (and
// branchy: ReLU mispredicted on every other element). The parallel versions
// below are used only for large buffers on several threads.
void ReluSerial(const float* __restrict x, float* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
void ReluGradSerial(const float* __restrict x, const float* __restrict dy, float* __restrict dx,
                    size_t n) {
  for (size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : 0.f;
}
void SgdSerial(float* __restrict p, const float* __restrict g, float* __restrict v, size_t n,
               float lr, float momentum, bool nesterov, float wd) {
  if (momentum == 0.f) {
    for (size_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + wd * p[i]);
  } else if (nesterov) {
    for (size_t i = 0; i < n; ++i) {
      float grad = g[i] + wd * p[i];
      v[i] = momentum * v[i] + grad;
      p[i] -= lr * (grad + momentum * v[i]);
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      v[i] = momentum * v[i] + g[i] + wd * p[i];
      p[i] -= lr * v[i];
    }
  }
}

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
  void ToHost(const float* src, float* host, size_t n) override {
    std::memcpy(host, src, n * sizeof(float));
  }
  void FromHost(const float* host, float* dst, size_t n) override {
    std::memcpy(dst, host, n * sizeof(float));
  }
  void Zero(float* p, size_t n) override { std::memset(p, 0, n * sizeof(float)); }
  void Copy(const float* src, float* dst, size_t n) override {
    std::memcpy(dst, src, n * sizeof(float));
  }

  void Gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, const float* b,
            float beta, float* c) override {
    cblas_sgemm(kRowMajor, ta ? kTrans : kNoTrans, tb ? kTrans : kNoTrans, m, n, k, alpha, a,
                ta ? m : k, b, tb ? k : n, beta, c, n);
  }

  void AddBias(float* y, const float* bias, int rows, int cols) override {
#pragma omp parallel for schedule(static) if (static_cast <int64_t>(rows) * cols > 65536)
    for (int r = 0; r < rows; ++r) {
      float* row = y + static_cast<size_t>(r) * cols;
      for (int c = 0; c < cols; ++c) row[c] += bias[c];
    }
  }

  void BiasGrad(const float* dy, float* dbias, int rows, int cols) override {
    // Row by row (contiguous, vectorised); the order of the sum is fixed.
    std::memset(dbias, 0, cols * sizeof(float));
    for (int r = 0; r < rows; ++r) {
      const float* row = dy + static_cast<size_t>(r) * cols;
#pragma omp simd
      for (int c = 0; c < cols; ++c) dbias[c] += row[c];
    }
  }

  // col[(c*k + ki)*k + kj][(n*oh + y)*ow + x]
  void Im2Col(const Window& g, const float* x, float* col) {
    const int oh = g.OutH(), ow = g.OutW(), ck = g.c * g.k * g.k;
    const size_t cols = static_cast<size_t>(g.n) * oh * ow;
#pragma omp parallel for schedule(static)
    for (int row = 0; row < ck; ++row) {
      int c = row / (g.k * g.k), ki = (row / g.k) % g.k, kj = row % g.k;
      // Output columns whose input column is inside the image: [x0, x1).
      int x0 = 0, x1 = ow;
      while (x0 < ow && x0 * g.stride - g.pad + kj < 0) ++x0;
      while (x1 > x0 && (x1 - 1) * g.stride - g.pad + kj >= g.w) --x1;
      float* out = col + row * cols;
      for (int n = 0; n < g.n; ++n) {
        const float* plane = x + (static_cast<size_t>(n) * g.c + c) * g.h * g.w;
        for (int y = 0; y < oh; ++y) {
          int iy = y * g.stride - g.pad + ki;
          float* o = out + (static_cast<size_t>(n) * oh + y) * ow;
          if (iy < 0 || iy >= g.h) {
            std::memset(o, 0, ow * sizeof(float));
            continue;
          }
          const float* in = plane + static_cast<size_t>(iy) * g.w - g.pad + kj;
          for (int xx = 0; xx < x0; ++xx) o[xx] = 0.f;
          if (g.stride == 1) {
            std::memcpy(o + x0, in + x0, (x1 - x0) * sizeof(float));
          } else {
            for (int xx = x0; xx < x1; ++xx) o[xx] = in[xx * g.stride];
          }
          for (int xx = x1; xx < ow; ++xx) o[xx] = 0.f;
        }
      }
    }
  }

  // Adds columns back into dx; each (n, c) plane is owned by one thread.
  void Col2Im(const Window& g, const float* col, float* dx) {
    const int oh = g.OutH(), ow = g.OutW();
    const size_t cols = static_cast<size_t>(g.n) * oh * ow;
#pragma omp parallel for schedule(static)
    for (int nc = 0; nc < g.n * g.c; ++nc) {
      int n = nc / g.c, c = nc % g.c;
      float* plane = dx + static_cast<size_t>(nc) * g.h * g.w;
      for (int ki = 0; ki < g.k; ++ki) {
        for (int kj = 0; kj < g.k; ++kj) {
          int x0 = 0, x1 = ow;
          while (x0 < ow && x0 * g.stride - g.pad + kj < 0) ++x0;
          while (x1 > x0 && (x1 - 1) * g.stride - g.pad + kj >= g.w) --x1;
          const float* in =
              col + ((c * g.k + ki) * g.k + kj) * cols + static_cast<size_t>(n) * oh * ow;
          for (int y = 0; y < oh; ++y) {
            int iy = y * g.stride - g.pad + ki;
            if (iy < 0 || iy >= g.h) continue;
            float* dst = plane + iy * g.w - g.pad + kj;
            const float* src = in + y * ow;
            if (g.stride == 1) {
#pragma omp simd
              for (int xx = x0; xx < x1; ++xx) dst[xx] += src[xx];
            } else {
              for (int xx = x0; xx < x1; ++xx) dst[xx * g.stride] += src[xx];
            }
          }
        }
      }
    }
  }

  size_t ConvWorkspace(const Window& g) override {
    return static_cast<size_t>(g.c) * g.k * g.k * g.n * g.OutH() * g.OutW();
  }

  void Conv2dForward(const Window& g, const float* x, const float* w, const float* b, float* y,
                     float* col) override {
    const int ohw = g.OutH() * g.OutW(), ck = g.c * g.k * g.k;
    const size_t cols = static_cast<size_t>(g.n) * ohw;
    tmp_.resize(static_cast<size_t>(g.oc) * cols);
    Im2Col(g, x, col);
    Gemm(false, false, g.oc, static_cast<int>(cols), ck, 1.f, w, col, 0.f, tmp_.data());
    // [oc][n*ohw] -> [n][oc][ohw] plus bias.
#pragma omp parallel for schedule(static)
    for (int no = 0; no < g.n * g.oc; ++no) {
      int n = no / g.oc, o = no % g.oc;
      const float* src = tmp_.data() + static_cast<size_t>(o) * cols + static_cast<size_t>(n) * ohw;
      float* dst = y + static_cast<size_t>(no) * ohw;
      float bias = b ? b[o] : 0.f;
      for (int i = 0; i < ohw; ++i) dst[i] = src[i] + bias;
    }
  }

  void Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                      float* dw, float* db, float* col) override {
    const int ohw = g.OutH() * g.OutW(), ck = g.c * g.k * g.k;
    const size_t cols = static_cast<size_t>(g.n) * ohw;
    tmp_.resize(static_cast<size_t>(g.oc) * cols);
    // dy [n][oc][ohw] -> [oc][n*ohw]
#pragma omp parallel for schedule(static)
    for (int no = 0; no < g.n * g.oc; ++no) {
      int n = no / g.oc, o = no % g.oc;
      std::memcpy(tmp_.data() + static_cast<size_t>(o) * cols + static_cast<size_t>(n) * ohw,
                  dy + static_cast<size_t>(no) * ohw, ohw * sizeof(float));
    }
    if (db) {
#pragma omp parallel for schedule(static)
      for (int o = 0; o < g.oc; ++o) {
        const float* row = tmp_.data() + static_cast<size_t>(o) * cols;
        double s = 0;
        for (size_t i = 0; i < cols; ++i) s += row[i];
        db[o] = static_cast<float>(s);
      }
    }
    // `col` still holds the forward pass's columns of x.
    Gemm(false, true, g.oc, ck, static_cast<int>(cols), 1.f, tmp_.data(), col, 0.f, dw);
    if (dx) {
      Gemm(true, false, ck, static_cast<int>(cols), g.oc, 1.f, w, tmp_.data(), 0.f, col);
      Zero(dx, static_cast<size_t>(g.n) * g.c * g.h * g.w);
      Col2Im(g, col, dx);
    }
  }

  void MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax) override {
    const int oh = g.OutH(), ow = g.OutW();
#pragma omp parallel for schedule(static)
    for (int nc = 0; nc < g.n * g.c; ++nc) {
      const float* in = x + static_cast<size_t>(nc) * g.h * g.w;
      for (int yy = 0; yy < oh; ++yy) {
        for (int xx = 0; xx < ow; ++xx) {
          float best = -INFINITY;
          int32_t at = -1;
          for (int ki = 0; ki < g.k; ++ki) {
            int iy = yy * g.stride - g.pad + ki;
            if (iy < 0 || iy >= g.h) continue;
            for (int kj = 0; kj < g.k; ++kj) {
              int ix = xx * g.stride - g.pad + kj;
              if (ix < 0 || ix >= g.w) continue;
              float v = in[iy * g.w + ix];
              if (v > best || at < 0) {
                best = v;
                at = iy * g.w + ix;
              }
            }
          }
          size_t o = (static_cast<size_t>(nc) * oh + yy) * ow + xx;
          y[o] = best;
          argmax[o] = at;
        }
      }
    }
  }

  void MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax,
                       float* dx) override {
    const int ohw = g.OutH() * g.OutW();
    Zero(dx, static_cast<size_t>(g.n) * g.c * g.h * g.w);
#pragma omp parallel for schedule(static)
    for (int nc = 0; nc < g.n * g.c; ++nc) {
      float* plane = dx + static_cast<size_t>(nc) * g.h * g.w;
      for (int i = 0; i < ohw; ++i) {
        size_t o = static_cast<size_t>(nc) * ohw + i;
        if (argmax[o] >= 0) plane[argmax[o]] += dy[o];
      }
    }
  }

  void AvgPoolForward(const Window& g, const float* x, float* y) override {
    const int oh = g.OutH(), ow = g.OutW();
    const float scale = 1.f / static_cast<float>(g.k * g.k);
#pragma omp parallel for schedule(static)
    for (int nc = 0; nc < g.n * g.c; ++nc) {
      const float* in = x + static_cast<size_t>(nc) * g.h * g.w;
      for (int yy = 0; yy < oh; ++yy) {
        for (int xx = 0; xx < ow; ++xx) {
          float s = 0;
          for (int ki = 0; ki < g.k; ++ki) {
            int iy = yy * g.stride - g.pad + ki;
            if (iy < 0 || iy >= g.h) continue;
            for (int kj = 0; kj < g.k; ++kj) {
              int ix = xx * g.stride - g.pad + kj;
              if (ix >= 0 && ix < g.w) s += in[iy * g.w + ix];
            }
          }
          y[(static_cast<size_t>(nc) * oh + yy) * ow + xx] = s * scale;
        }
      }
    }
  }

  void AvgPoolBackward(const Window& g, const float* dy, float* dx) override {
    const int oh = g.OutH(), ow = g.OutW();
    const float scale = 1.f / static_cast<float>(g.k * g.k);
    Zero(dx, static_cast<size_t>(g.n) * g.c * g.h * g.w);
#pragma omp parallel for schedule(static)
    for (int nc = 0; nc < g.n * g.c; ++nc) {
      float* plane = dx + static_cast<size_t>(nc) * g.h * g.w;
      for (int yy = 0; yy < oh; ++yy) {
        for (int xx = 0; xx < ow; ++xx) {
          float d = dy[(static_cast<size_t>(nc) * oh + yy) * ow + xx] * scale;
          for (int ki = 0; ki < g.k; ++ki) {
            int iy = yy * g.stride - g.pad + ki;
            if (iy < 0 || iy >= g.h) continue;
            for (int kj = 0; kj < g.k; ++kj) {
              int ix = xx * g.stride - g.pad + kj;
              if (ix >= 0 && ix < g.w) plane[iy * g.w + ix] += d;
            }
          }
        }
      }
    }
  }

  void ActivationForward(Activation a, float slope, const float* x, float* y, size_t n) override {
    // One loop per kind, so the compiler vectorises the common ones.
    switch (a) {
      case Activation::kRelu:
        if (n <= 262144 || threads_ == 1) return ReluSerial(x, y, n);
#pragma omp parallel for simd schedule(static)
        for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : 0.f;
        return;
      case Activation::kLeakyRelu:
#pragma omp parallel for simd schedule(static) if (n > 262144)
        for (size_t i = 0; i < n; ++i) y[i] = x[i] > 0.f ? x[i] : slope * x[i];
        return;
      default:
#pragma omp parallel for schedule(static) if (n > 65536)
        for (size_t i = 0; i < n; ++i) y[i] = Act(a, slope, x[i]);
    }
  }

  void ActivationBackward(Activation a, float slope, const float* x, const float* dy, float* dx,
                          size_t n) override {
    switch (a) {
      case Activation::kRelu:
        if (n <= 262144 || threads_ == 1) return ReluGradSerial(x, dy, dx, n);
#pragma omp parallel for simd schedule(static)
        for (size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : 0.f;
        return;
      case Activation::kLeakyRelu:
#pragma omp parallel for simd schedule(static) if (n > 262144)
        for (size_t i = 0; i < n; ++i) dx[i] = x[i] > 0.f ? dy[i] : slope * dy[i];
        return;
      default:
#pragma omp parallel for schedule(static) if (n > 65536)
        for (size_t i = 0; i < n; ++i) dx[i] = dy[i] * ActGrad(a, slope, x[i]);
    }
  }

  void DropoutForward(float p, uint64_t seed, const float* x, float* y, float* mask,
                      size_t n) override {
    const float keep = 1.f / (1.f - p);
    const uint64_t threshold =
        static_cast<uint64_t>(static_cast<double>(p) * 18446744073709551616.0);
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; ++i) {
      mask[i] = SplitMix64(seed + i * 0x9e3779b97f4a7c15ULL) >= threshold ? keep : 0.f;
      y[i] = x[i] * mask[i];
    }
  }

  void Mul(const float* a, const float* b, float* y, size_t n) override {
    for (size_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
  }

  void BatchNormTrain(int n, int c, int hw, float momentum, float eps, const float* x,
                      const float* gamma, const float* beta, float* y, float* save_mean,
                      float* save_invstd, float* run_mean, float* run_var) override {
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
                     const float* beta, const float* run_mean, const float* run_var,
                     float* y) override {
#pragma omp parallel for schedule(static)
    for (int ch = 0; ch < c; ++ch) {
      float scale = gamma[ch] / std::sqrt(run_var[ch] + eps),
            shift = beta[ch] - run_mean[ch] * scale;
      for (int i = 0; i < n; ++i) {
        size_t off = (static_cast<size_t>(i) * c + ch) * hw;
        for (int j = 0; j < hw; ++j) y[off + j] = x[off + j] * scale + shift;
      }
    }
  }

  void BatchNormBackward(bool eval, int n, int c, int hw, float eps, const float* x,
                         const float* gamma, const float* means, const float* scales,
                         const float* dy, float* dx, float* dgamma, float* dbeta) override {
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

  void SoftmaxCrossEntropy(const float* logits, const int32_t* labels, int n, int classes,
                           float* dlogits, double* loss_sum, int64_t* correct) override {
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

  void SgdStep(float* p, const float* g, float* v, size_t n, float lr, float momentum,
               bool nesterov, float weight_decay) override {
    // Branch-free loops per variant, so each vectorises.
    const bool par = threads_ > 1 && n > 65536;
    if (!par) return SgdSerial(p, g, v, n, lr, momentum, nesterov, weight_decay);
    if (momentum == 0.f) {
#pragma omp parallel for simd schedule(static) if (par)
      for (size_t i = 0; i < n; ++i) p[i] -= lr * (g[i] + weight_decay * p[i]);
    } else if (nesterov) {
#pragma omp parallel for simd schedule(static) if (par)
      for (size_t i = 0; i < n; ++i) {
        float grad = g[i] + weight_decay * p[i];
        v[i] = momentum * v[i] + grad;
        p[i] -= lr * (grad + momentum * v[i]);
      }
    } else {
#pragma omp parallel for simd schedule(static) if (par)
      for (size_t i = 0; i < n; ++i) {
        v[i] = momentum * v[i] + g[i] + weight_decay * p[i];
        p[i] -= lr * v[i];
      }
    }
  }

  void AdamStep(float* p, const float* g, float* m, float* v, size_t n, float lr, float beta1,
                float beta2, float eps, float weight_decay, bool decoupled, int64_t t) override {
    const float c1 = 1.f - std::pow(beta1, static_cast<float>(t)),
                c2 = 1.f - std::pow(beta2, static_cast<float>(t));
#pragma omp parallel for schedule(static) if (n > 65536)
    for (size_t i = 0; i < n; ++i) {
      float grad = g[i];
      if (decoupled)
        p[i] *= 1.f - lr * weight_decay;
      else
        grad += weight_decay * p[i];
      m[i] = beta1 * m[i] + (1.f - beta1) * grad;
      v[i] = beta2 * v[i] + (1.f - beta2) * grad * grad;
      p[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps);
    }
  }

 private:
  static float Act(Activation a, float slope, float x) {
    switch (a) {
      case Activation::kRelu:
        return x > 0 ? x : 0.f;
      case Activation::kLeakyRelu:
        return x > 0 ? x : slope * x;
      case Activation::kTanh:
        return std::tanh(x);
      default: {
        const float c = 0.7978845608028654f;
        return 0.5f * x * (1.f + std::tanh(c * (x + 0.044715f * x * x * x)));
      }
    }
  }
  static float ActGrad(Activation a, float slope, float x) {
    switch (a) {
      case Activation::kRelu:
        return x > 0 ? 1.f : 0.f;
      case Activation::kLeakyRelu:
        return x > 0 ? 1.f : slope;
      case Activation::kTanh: {
        float t = std::tanh(x);
        return 1.f - t * t;
      }
      default: {
        const float c = 0.7978845608028654f;
        float u = c * (x + 0.044715f * x * x * x), t = std::tanh(u);
        return 0.5f * (1.f + t) + 0.5f * x * (1.f - t * t) * c * (1.f + 3.f * 0.044715f * x * x);
      }
    }
  }

  int threads_;
  std::vector<float> tmp_;
};

}  // namespace

void EnsurePassiveOpenMp(char** argv) {
  if (getenv("OMP_WAIT_POLICY") != nullptr) return;
  setenv("OMP_WAIT_POLICY", "PASSIVE", 1);
  execv("/proc/self/exe", argv);
}

std::unique_ptr<Backend> MakeCpuBackend(int threads) {
  return std::make_unique<CpuBackend>(threads);
}

}  // namespace sweep::nn
