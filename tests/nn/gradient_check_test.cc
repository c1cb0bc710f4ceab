// Finite-difference gradient checks for every layer and the loss, on the CPU
// backend (the reference every other backend is compared with).
#include <gtest/gtest.h>

#include <cmath>

#include "common/rng.h"
#include "nn/layer.h"
#include "nn/model.h"

namespace sweep::nn {
namespace {

class GradientCheck : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> b_ = MakeCpuBackend(1);
};

// Checks d(sum(r * layer(x)))/d(x and params) against central differences.
void Check(Backend* b, std::unique_ptr<Layer> layer, std::vector<int> in, int n,
           bool training = true, double eps = 1e-2, double tol = 2e-2) {
  SCOPED_TRACE(layer->Name());
  layer->Setup(in);
  size_t np = layer->ParamCount(), ns = layer->StateCount();
  Tensor p(b, {static_cast<int>(std::max<size_t>(np, 1))}),
      g(b, {static_cast<int>(std::max<size_t>(np, 1))}),
      s(b, {static_cast<int>(std::max<size_t>(ns, 1))});
  Rng rng(42);
  std::vector<float> hp(p.size()), hs(s.size());
  layer->Init(hp.data(), hs.data(), &rng);
  for (auto& v : hp) v += static_cast<float>(0.1 * rng.Normal());  // non-trivial biases and scales
  p.FromHost(hp);
  s.FromHost(hs);
  layer->Bind(p.data(), g.data(), s.data());
  std::vector<int> xs = {n};
  xs.insert(xs.end(), in.begin(), in.end());
  Tensor x(b, xs), y, dx;
  std::vector<float> hx(x.size());
  for (auto& v : hx) v = static_cast<float>(rng.Normal());
  x.FromHost(hx);
  Context ctx{b, training, 1234};
  layer->Forward(ctx, x, &y);
  Tensor r(b, y.shape());
  std::vector<float> hr(r.size());
  for (auto& v : hr) v = static_cast<float>(rng.Normal());
  r.FromHost(hr);
  auto objective = [&]() {
    Tensor out;
    layer->Forward(ctx, x, &out);
    std::vector<float> ho = out.ToHost();
    double sum = 0;
    for (size_t i = 0; i < ho.size(); ++i) sum += static_cast<double>(ho[i]) * hr[i];
    return sum;
  };
  b->Zero(g.data(), g.size());
  layer->Forward(ctx, x, &y);
  layer->Backward(ctx, x, y, r, &dx);
  std::vector<float> adx = dx.ToHost(), ag = g.ToHost();

  auto compare = [&](const char* what, float* host, Tensor* t, const std::vector<float>& analytic,
                     size_t count) {
    size_t stride = std::max<size_t>(1, count / 40);
    int bad = 0;
    for (size_t i = 0; i < count; i += stride) {
      float orig = host[i];
      host[i] = orig + static_cast<float>(eps);
      t->FromHost(std::vector<float>(host, host + t->size()));
      double up = objective();
      host[i] = orig - static_cast<float>(eps);
      t->FromHost(std::vector<float>(host, host + t->size()));
      double down = objective();
      host[i] = orig;
      t->FromHost(std::vector<float>(host, host + t->size()));
      double numeric = (up - down) / (2 * eps);
      double err = std::fabs(numeric - analytic[i]) /
                   std::max(1.0, std::fabs(numeric) + std::fabs(analytic[i]));
      if (err > tol && ++bad <= 5)
        ADD_FAILURE() << what << "[" << i << "]: analytic " << analytic[i] << " numeric "
                      << numeric;
    }
  };
  compare("dx", hx.data(), &x, adx, hx.size());
  if (np > 0) compare("dparam", hp.data(), &p, ag, np);
}

TEST_F(GradientCheck, Linear) { Check(b_.get(), MakeLinear(5, WeightInit::kHe), {7}, 4); }
TEST_F(GradientCheck, Conv2dStridePad) {
  Check(b_.get(), MakeConv2d(3, 3, 2, 1, WeightInit::kHe), {2, 7, 7}, 2);
}
TEST_F(GradientCheck, Conv2dSame5x5) {
  Check(b_.get(), MakeConv2d(4, 5, 1, 2, WeightInit::kXavier), {3, 6, 6}, 2);
}
TEST_F(GradientCheck, MaxPool) { Check(b_.get(), MakeMaxPool2d(2, 2), {2, 6, 6}, 2, true, 1e-3); }
TEST_F(GradientCheck, AvgPool) { Check(b_.get(), MakeAvgPool2d(2, 2), {2, 6, 6}, 2); }
TEST_F(GradientCheck, GlobalAvgPool) { Check(b_.get(), MakeGlobalAvgPool(), {3, 4, 4}, 2); }
TEST_F(GradientCheck, Relu) {
  Check(b_.get(), MakeActivation(Activation::kRelu), {20}, 3, true, 1e-3);
}
TEST_F(GradientCheck, LeakyRelu) {
  Check(b_.get(), MakeActivation(Activation::kLeakyRelu, 0.1f), {20}, 3, true, 1e-3);
}
TEST_F(GradientCheck, Tanh) { Check(b_.get(), MakeActivation(Activation::kTanh), {20}, 3); }
TEST_F(GradientCheck, Gelu) { Check(b_.get(), MakeActivation(Activation::kGelu), {20}, 3); }
TEST_F(GradientCheck, DropoutTraining) { Check(b_.get(), MakeDropout(0.3f), {30}, 3); }
TEST_F(GradientCheck, DropoutEvalIsIdentity) {
  Check(b_.get(), MakeDropout(0.3f), {30}, 3, false);
  // Out of training, y is x itself (no mask, no 1 / (1 - p) scaling).
  auto layer = MakeDropout(0.3f);
  layer->Setup({30});
  Tensor x(b_.get(), {3, 30}), y;
  Rng rng(5);
  std::vector<float> hx(x.size());
  for (auto& v : hx) v = static_cast<float>(rng.Normal());
  x.FromHost(hx);
  layer->Forward(Context{b_.get(), false, 1234}, x, &y);
  ASSERT_EQ(y.shape(), x.shape());
  EXPECT_EQ(y.ToHost(), hx);
  // In training the same input is masked and scaled, so the check above is not vacuous.
  Tensor yt;
  layer->Forward(Context{b_.get(), true, 1234}, x, &yt);
  EXPECT_NE(yt.ToHost(), hx);
}
TEST_F(GradientCheck, BatchNormDense) {
  Check(b_.get(), MakeBatchNorm(), {6}, 8, true, 1e-2, 3e-2);
}
TEST_F(GradientCheck, BatchNormSpatial) {
  Check(b_.get(), MakeBatchNorm(), {3, 4, 4}, 4, true, 1e-2, 3e-2);
}
TEST_F(GradientCheck, BatchNormEval) { Check(b_.get(), MakeBatchNorm(), {3, 4, 4}, 4, false); }
TEST_F(GradientCheck, Flatten) { Check(b_.get(), MakeFlatten(), {2, 3, 3}, 2); }

TEST_F(GradientCheck, SoftmaxCrossEntropy) {
  const int n = 4, k = 5;
  Rng rng(7);
  std::vector<float> z(n * k), d(n * k);
  for (auto& v : z) v = static_cast<float>(2 * rng.Normal());
  std::vector<int32_t> labels = {0, 3, 4, 1};
  double loss;
  int64_t correct;
  b_->SoftmaxCrossEntropy(z.data(), labels.data(), n, k, d.data(), &loss, &correct);
  for (int i = 0; i < n * k; ++i) {
    std::vector<float> up = z, down = z;
    up[i] += 1e-2f;
    down[i] -= 1e-2f;
    double lu, ld;
    b_->SoftmaxCrossEntropy(up.data(), labels.data(), n, k, nullptr, &lu, &correct);
    b_->SoftmaxCrossEntropy(down.data(), labels.data(), n, k, nullptr, &ld, &correct);
    EXPECT_NEAR((lu - ld) / 2e-2 / n, d[i], 1e-3) << i;  // d is of the mean loss
  }
}

// The whole model: the flat gradient buffer matches differences of the mean loss.
TEST_F(GradientCheck, SmallCnnEndToEnd) {
  Model m(b_.get(), {1, 6, 6});
  m.Add(MakeConv2d(2, 3, 1, 1, WeightInit::kHe));
  m.Add(MakeBatchNorm());
  m.Add(MakeActivation(Activation::kTanh));
  m.Add(MakeMaxPool2d(2, 2));
  m.Add(MakeFlatten());
  m.Add(MakeLinear(3, WeightInit::kXavier));
  m.Finalize(3);
  Tensor x(b_.get(), {4, 1, 6, 6});
  Rng rng(5);
  std::vector<float> hx(x.size());
  for (auto& v : hx) v = static_cast<float>(rng.Normal());
  x.FromHost(hx);
  std::vector<int32_t> labels = {0, 1, 2, 1};
  m.Forward(x, true, 9);
  m.Loss(labels.data(), true, nullptr);
  std::vector<float> g(m.grads(), m.grads() + m.param_count());
  for (size_t i = 0; i < m.param_count(); i += 7) {
    float orig = m.params()[i];
    m.params()[i] = orig + 1e-2f;
    m.Forward(x, true, 9);
    double up = m.Loss(labels.data(), false, nullptr) / 4;
    m.params()[i] = orig - 1e-2f;
    m.Forward(x, true, 9);
    double down = m.Loss(labels.data(), false, nullptr) / 4;
    m.params()[i] = orig;
    EXPECT_NEAR((up - down) / 2e-2, g[i],
                2e-2 * std::max(1.0, static_cast<double>(std::fabs(g[i]))))
        << i;
  }
}

}  // namespace
}  // namespace sweep::nn
