// CPU pooling: max (with argmax) and average, forward and backward. CUDA
// twin: nn/cuda/pool.cu.
#include <cmath>
#include <cstdint>

#include "nn/cpu/ops.h"

namespace sweep::nn::cpu {

namespace {

// The common 2x2 window, stride 2, no padding: every window is inside the
// image, so no bounds checks; the same visiting order and comparisons as the
// general loop (the first maximum wins), so the same results.
void MaxPool2x2(const Window& g, const float* x, float* y, int32_t* argmax) {
  const int oh = g.OutH(), ow = g.OutW(), w = g.w;
#pragma omp parallel for schedule(static)
  for (int nc = 0; nc < g.n * g.c; ++nc) {
    const float* in = x + static_cast<size_t>(nc) * g.h * w;
    float* out = y + static_cast<size_t>(nc) * oh * ow;
    int32_t* arg = argmax + static_cast<size_t>(nc) * oh * ow;
    for (int yy = 0; yy < oh; ++yy) {
      const int r0 = 2 * yy * w, r1 = r0 + w;
      for (int xx = 0; xx < ow; ++xx) {
        int at = r0 + 2 * xx;
        float best = in[at];
        if (in[r0 + 2 * xx + 1] > best) best = in[at = r0 + 2 * xx + 1];
        if (in[r1 + 2 * xx] > best) best = in[at = r1 + 2 * xx];
        if (in[r1 + 2 * xx + 1] > best) best = in[at = r1 + 2 * xx + 1];
        out[yy * ow + xx] = best;
        arg[yy * ow + xx] = at;
      }
    }
  }
}

}  // namespace

void MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax) {
  if (g.k == 2 && g.stride == 2 && g.pad == 0) return MaxPool2x2(g, x, y, argmax);
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

void MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax, float* dx) {
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

void AvgPoolForward(const Window& g, const float* x, float* y) {
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

void AvgPoolBackward(const Window& g, const float* dy, float* dx) {
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

}  // namespace sweep::nn::cpu
