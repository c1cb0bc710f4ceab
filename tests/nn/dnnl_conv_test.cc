// The CPU backend's oneDNN convolution against the im2col + GEMM reference
// (nn/cpu/conv.cc): forward, input, weight and bias gradients on several
// geometries, repeat runs bit-identical, and a backward pass with no input
// gradient (a network's first layer); and the same convolution as the CPU
// backend holds it, opened from its module (libsweep_nn_dnnl.so).
#include "nn/cpu/dnnl_conv.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nn/cpu/dnnl_conv_module.h"
#include "nn/cpu/ops.h"
#include "nn/random_floats.h"

namespace sweep::nn {
namespace {

// Largest |a - b| relative to the largest |b| (1 when b is all zero).
double RelDiff(const std::vector<float>& a, const std::vector<float>& b) {
  double d = 0, m = 1e-30;
  for (size_t i = 0; i < a.size(); ++i) {
    d = std::max(d, std::fabs(static_cast<double>(a[i]) - b[i]));
    m = std::max(m, std::fabs(static_cast<double>(b[i])));
  }
  return d / m;
}

struct Result {
  std::vector<float> y, dx, dw, db;
};

template <typename Conv>
Result RunDnnl(Conv& conv, const Window& g, const std::vector<float>& x,
               const std::vector<float>& w, const std::vector<float>& b,
               const std::vector<float>& dy, bool want_dx) {
  Result r;
  r.y.assign(static_cast<size_t>(g.n) * g.oc * g.OutH() * g.OutW(), -7.f);
  r.dx.assign(x.size(), -7.f);
  r.dw.assign(w.size(), -7.f);
  r.db.assign(b.size(), -7.f);
  std::vector<float> col(conv.Workspace(g));
  conv.Forward(g, x.data(), w.data(), b.data(), r.y.data(), col.data());
  conv.Backward(g, x.data(), w.data(), dy.data(), want_dx ? r.dx.data() : nullptr, r.dw.data(),
                r.db.data(), col.data());
  return r;
}

Result RunReference(const Window& g, const std::vector<float>& x, const std::vector<float>& w,
                    const std::vector<float>& b, const std::vector<float>& dy) {
  Result r;
  r.y.resize(static_cast<size_t>(g.n) * g.oc * g.OutH() * g.OutW());
  r.dx.resize(x.size());
  r.dw.resize(w.size());
  r.db.resize(b.size());
  std::vector<float> col(cpu::ConvWorkspace(g)), tmp;
  cpu::Conv2dForward(g, x.data(), w.data(), b.data(), r.y.data(), col.data(), tmp);
  cpu::Conv2dBackward(g, x.data(), w.data(), dy.data(), r.dx.data(), r.dw.data(), r.db.data(),
                      col.data(), tmp);
  return r;
}

class DnnlConvTest : public ::testing::TestWithParam<Window> {};

TEST_P(DnnlConvTest, MatchesIm2colReference) {
  const Window g = GetParam();
  auto x = RandomFloats(static_cast<size_t>(g.n) * g.c * g.h * g.w, 1);
  auto w = RandomFloats(static_cast<size_t>(g.oc) * g.c * g.k * g.k, 2);
  auto b = RandomFloats(g.oc, 3);
  auto dy = RandomFloats(static_cast<size_t>(g.n) * g.oc * g.OutH() * g.OutW(), 4);
  cpu::DnnlConv conv;
  Result got = RunDnnl(conv, g, x, w, b, dy, true);
  Result want = RunReference(g, x, w, b, dy);
  EXPECT_LT(RelDiff(got.y, want.y), 1e-5);
  EXPECT_LT(RelDiff(got.dx, want.dx), 1e-5);
  EXPECT_LT(RelDiff(got.dw, want.dw), 1e-5);
  EXPECT_LT(RelDiff(got.db, want.db), 1e-5);

  // The same inputs again, through the cached primitives: the same bits.
  Result again = RunDnnl(conv, g, x, w, b, dy, true);
  EXPECT_EQ(again.y, got.y);
  EXPECT_EQ(again.dx, got.dx);
  EXPECT_EQ(again.dw, got.dw);
  EXPECT_EQ(again.db, got.db);

  // No input gradient asked: dx untouched, the weight gradients unchanged.
  Result first = RunDnnl(conv, g, x, w, b, dy, false);
  EXPECT_EQ(first.dw, got.dw);
  EXPECT_EQ(first.db, got.db);
  for (float v : first.dx) ASSERT_EQ(v, -7.f);

  // Through the module the backend opens: the same code, the same bits.
  cpu::DnnlConvModule loaded;
  Result via = RunDnnl(loaded, g, x, w, b, dy, true);
  EXPECT_EQ(via.y, got.y);
  EXPECT_EQ(via.dx, got.dx);
  EXPECT_EQ(via.dw, got.dw);
  EXPECT_EQ(via.db, got.db);
}

Window Geometry(int n, int c, int h, int w, int k, int stride, int pad, int oc) {
  Window g;
  g.n = n, g.c = c, g.h = h, g.w = w, g.k = k, g.stride = stride, g.pad = pad, g.oc = oc;
  return g;
}

INSTANTIATE_TEST_SUITE_P(
    Geometries, DnnlConvTest,
    ::testing::Values(Geometry(4, 1, 28, 28, 5, 1, 2, 32),   // the benchmark CNN's first layer
                      Geometry(3, 32, 14, 14, 5, 1, 2, 64),  // and its second
                      Geometry(5, 3, 32, 32, 3, 1, 1, 16),   // RGB
                      Geometry(2, 5, 9, 7, 3, 2, 1, 6),      // odd sizes, stride 2
                      Geometry(1, 2, 6, 6, 1, 1, 0, 3),      // 1x1
                      Geometry(7, 8, 5, 5, 5, 1, 0, 8)));    // valid, one output pixel

}  // namespace
}  // namespace sweep::nn
