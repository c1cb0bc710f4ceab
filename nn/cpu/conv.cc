// CPU convolution: im2col + GEMM forward, GEMM + col2im backward, with the
// bias and its gradient. CUDA twin: nn/cuda/conv.cu.
#include <cstdint>
#include <cstring>
#include <vector>

#include "nn/cpu/ops.h"

namespace sweep::nn::cpu {

namespace {

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

}  // namespace

size_t ConvWorkspace(const Window& g) {
  return static_cast<size_t>(g.c) * g.k * g.k * g.n * g.OutH() * g.OutW();
}

void Conv2dForward(const Window& g, const float* x, const float* w, const float* b, float* y,
                   float* col, std::vector<float>& tmp) {
  const int ohw = g.OutH() * g.OutW(), ck = g.c * g.k * g.k;
  const size_t cols = static_cast<size_t>(g.n) * ohw;
  tmp.resize(static_cast<size_t>(g.oc) * cols);
  Im2Col(g, x, col);
  Gemm(false, false, g.oc, static_cast<int>(cols), ck, 1.f, w, col, 0.f, tmp.data());
  // [oc][n*ohw] -> [n][oc][ohw] plus bias.
#pragma omp parallel for schedule(static)
  for (int no = 0; no < g.n * g.oc; ++no) {
    int n = no / g.oc, o = no % g.oc;
    const float* src = tmp.data() + static_cast<size_t>(o) * cols + static_cast<size_t>(n) * ohw;
    float* dst = y + static_cast<size_t>(no) * ohw;
    float bias = b ? b[o] : 0.f;
    for (int i = 0; i < ohw; ++i) dst[i] = src[i] + bias;
  }
}

void Conv2dBackward(const Window& g, const float* x, const float* w, const float* dy, float* dx,
                    float* dw, float* db, float* col, std::vector<float>& tmp) {
  const int ohw = g.OutH() * g.OutW(), ck = g.c * g.k * g.k;
  const size_t cols = static_cast<size_t>(g.n) * ohw;
  tmp.resize(static_cast<size_t>(g.oc) * cols);
  // dy [n][oc][ohw] -> [oc][n*ohw]
#pragma omp parallel for schedule(static)
  for (int no = 0; no < g.n * g.oc; ++no) {
    int n = no / g.oc, o = no % g.oc;
    std::memcpy(tmp.data() + static_cast<size_t>(o) * cols + static_cast<size_t>(n) * ohw,
                dy + static_cast<size_t>(no) * ohw, ohw * sizeof(float));
  }
  if (db) {
#pragma omp parallel for schedule(static)
    for (int o = 0; o < g.oc; ++o) {
      const float* row = tmp.data() + static_cast<size_t>(o) * cols;
      double s = 0;
      for (size_t i = 0; i < cols; ++i) s += row[i];
      db[o] = static_cast<float>(s);
    }
  }
  // `col` still holds the forward pass's columns of x.
  Gemm(false, true, g.oc, ck, static_cast<int>(cols), 1.f, tmp.data(), col, 0.f, dw);
  if (dx) {
    Gemm(true, false, ck, static_cast<int>(cols), g.oc, 1.f, w, tmp.data(), 0.f, col);
    Zero(dx, static_cast<size_t>(g.n) * g.c * g.h * g.w);
    Col2Im(g, col, dx);
  }
}

}  // namespace sweep::nn::cpu
