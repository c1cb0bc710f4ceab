// Optimizer steps and learning-rate schedules against hand-computed values.
#include "nn/optimizer.h"

#include <gtest/gtest.h>

namespace sweep::nn {
namespace {

struct OneParam {
  std::unique_ptr<Backend> b = MakeCpuBackend(1);
  Model m{b.get(), {1}};
  OneParam() {
    m.Add(MakeLinear(1, WeightInit::kHe));  // weight and bias: two parameters
    m.Finalize(1);
  }
  void Set(float p, float g) {
    m.params()[0] = p;
    m.grads()[0] = g;
  }
  float p() { return m.params()[0]; }
};

TEST(OptimizerTest, SgdMomentum) {
  OneParam o;
  Optimizer opt(&o.m, {OptimizerKind::kSgd, 0.9f});
  o.Set(1.f, 0.5f);
  opt.Step(0.1f);
  EXPECT_FLOAT_EQ(o.p(), 0.95f);  // v = 0.5
  o.m.grads()[0] = 0.5f;
  opt.Step(0.1f);
  EXPECT_FLOAT_EQ(o.p(), 0.855f);  // v = 0.9 * 0.5 + 0.5
}

TEST(OptimizerTest, SgdNesterovAndWeightDecay) {
  OneParam a;
  Optimizer nesterov(&a.m, {OptimizerKind::kSgd, 0.9f, true});
  a.Set(1.f, 0.5f);
  nesterov.Step(0.1f);
  EXPECT_FLOAT_EQ(a.p(), 0.905f);  // d = g + 0.9 * v = 0.95
  OneParam b;
  Optimizer wd(&b.m, {OptimizerKind::kSgd, 0.f, false, 0.1f});
  b.Set(1.f, 0.5f);
  wd.Step(0.1f);
  EXPECT_FLOAT_EQ(b.p(), 0.94f);  // g' = 0.5 + 0.1 * 1
}

TEST(OptimizerTest, AdamTwoSteps) {
  OneParam o;
  Optimizer opt(&o.m, {OptimizerKind::kAdam});
  o.Set(1.f, 0.5f);
  opt.Step(0.1f);
  EXPECT_NEAR(o.p(), 0.9f, 1e-6);  // bias-corrected m/sqrt(v) = 1
  o.m.grads()[0] = 0.5f;
  opt.Step(0.1f);
  EXPECT_NEAR(o.p(), 0.8f, 1e-6);
}

TEST(OptimizerTest, AdamWDecouplesWeightDecay) {
  OneParam w;
  Optimizer adamw(&w.m, {OptimizerKind::kAdamW, 0.f, false, 0.1f});
  w.Set(1.f, 0.5f);
  adamw.Step(0.1f);
  EXPECT_NEAR(w.p(), 0.89f, 1e-6);  // 1 * (1 - 0.1 * 0.1) - 0.1
  OneParam l2;
  Optimizer adam(&l2.m, {OptimizerKind::kAdam, 0.f, false, 0.1f});
  l2.Set(1.f, 0.5f);
  adam.Step(0.1f);
  EXPECT_NEAR(l2.p(), 0.9f, 1e-6);  // L2 folds into the gradient, which Adam normalises
}

TEST(OptimizerTest, Schedules) {
  EXPECT_FLOAT_EQ(LearningRate(Schedule::kConstant, 0.1f, 3.0, 10, 0), 0.1f);
  EXPECT_FLOAT_EQ(LearningRate(Schedule::kStep, 0.1f, 4.9, 10, 0), 0.1f);
  EXPECT_FLOAT_EQ(LearningRate(Schedule::kStep, 0.1f, 5.0, 10, 0), 0.01f);
  EXPECT_FLOAT_EQ(LearningRate(Schedule::kStep, 0.1f, 7.5, 10, 0), 0.001f);
  EXPECT_FLOAT_EQ(LearningRate(Schedule::kCosine, 0.1f, 0.0, 10, 0), 0.1f);
  EXPECT_NEAR(LearningRate(Schedule::kCosine, 0.1f, 5.0, 10, 0), 0.05f, 1e-7);
  EXPECT_NEAR(LearningRate(Schedule::kCosine, 0.1f, 10.0, 10, 0), 0.0f, 1e-7);
  EXPECT_NEAR(LearningRate(Schedule::kConstant, 0.1f, 0.5, 10, 2), 0.025f, 1e-6);  // warm-up
  EXPECT_NEAR(LearningRate(Schedule::kCosine, 0.1f, 2.0, 10, 2), 0.1f,
              1e-6);  // cosine starts after it
}

}  // namespace
}  // namespace sweep::nn
