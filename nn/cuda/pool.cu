// CUDA pooling: max (with argmax) and average, forward and backward. CPU twin:
// nn/cpu/pool.cc.
#include <cmath>

#include "nn/cuda/cuda_backend.cuh"
#include "nn/cuda/launch.cuh"

namespace sweep::nn::cuda {

namespace {

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

}  // namespace

void CudaBackend::MaxPoolForward(const Window& g, const float* x, float* y, int32_t* argmax) {
  size_t n = static_cast<size_t>(g.n) * g.c * g.OutH() * g.OutW();
  MaxPoolFwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                        g.OutH(), g.OutW(), x, y, argmax);
  SWEEP_CUDA(cudaGetLastError());
}
void CudaBackend::MaxPoolBackward(const Window& g, const float* dy, const int32_t* argmax,
                                  float* dx) {
  size_t n = static_cast<size_t>(g.n) * g.c * g.h * g.w;
  MaxPoolBwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                        g.OutH(), g.OutW(), dy, argmax, dx);
  SWEEP_CUDA(cudaGetLastError());
}
void CudaBackend::AvgPoolForward(const Window& g, const float* x, float* y) {
  size_t n = static_cast<size_t>(g.n) * g.c * g.OutH() * g.OutW();
  AvgPoolFwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                        g.OutH(), g.OutW(), x, y);
  SWEEP_CUDA(cudaGetLastError());
}
void CudaBackend::AvgPoolBackward(const Window& g, const float* dy, float* dx) {
  size_t n = static_cast<size_t>(g.n) * g.c * g.h * g.w;
  AvgPoolBwdKernel<<<Blocks(n), kThreads, 0, stream_>>>(g.n, g.c, g.h, g.w, g.k, g.stride, g.pad,
                                                        g.OutH(), g.OutW(), dy, dx);
  SWEEP_CUDA(cudaGetLastError());
}

}  // namespace sweep::nn::cuda
