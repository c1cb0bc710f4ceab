// The Parzen estimator against values worked out by hand (and equal to
// Optuna 5's _ParzenEstimator on the same observations): bandwidths,
// the magic clip, the prior kernel, discretisation, log parameters,
// categorical weights and the fading observation weights.
#include "tuner/algorithms/parzen.h"

#include <gtest/gtest.h>

#include <cmath>

namespace sweep {
namespace {

ParzenDim Continuous(double low, double high, bool log = false) {
  ParzenDim d;
  d.low = low;
  d.high = high;
  d.log = log;
  return d;
}

TEST(ParzenTest, NeighbourGapBandwidthsWithTheMagicClipAndThePrior) {
  // x1 in [-5, 10]: sorted centres -4, 1, 2, 3, 9 with the ends -5 and 10.
  // Inner centres take their larger gap (1: 5, 3: 6); the outermost take
  // their inner gap (-4: 5, 9: 6); 2's gaps are 1 and 1, below the clip
  // range / min(100, 1 + 6 kernels) = 15 / 7. The prior: centre 2.5, width 15.
  ParzenEstimator e({Continuous(-5, 10), Continuous(0, 15)},
                    {{1, 2}, {3, 4}, {-4, 14}, {9, 1}, {2, 2.5}});
  std::vector<double> mus = {1, 3, -4, 9, 2, 2.5};
  std::vector<double> sigmas = {5, 6, 5, 6, 15.0 / 7, 15};
  ASSERT_EQ(e.mus(0).size(), 6u);
  for (size_t k = 0; k < 6; ++k) {
    EXPECT_DOUBLE_EQ(e.mus(0)[k], mus[k]) << k;
    EXPECT_DOUBLE_EQ(e.sigmas(0)[k], sigmas[k]) << k;
  }
  // x2: sorted 1, 2, 2.5, 4, 14 in [0, 15]: gaps clipped to 15/7 for 1, 2
  // and 2.5; 4 -> max(1.5, 10) = 10; 14 (outermost) -> its inner gap 10.
  std::vector<double> sigmas2 = {15.0 / 7, 10, 10, 15.0 / 7, 15.0 / 7, 15};
  for (size_t k = 0; k < 6; ++k) EXPECT_DOUBLE_EQ(e.sigmas(1)[k], sigmas2[k]) << k;
  // Five observations of weight 1 and the prior of weight 1.
  for (double w : e.weights()) EXPECT_DOUBLE_EQ(w, 1.0 / 6);
  // The density, as Optuna 5 computes it for these observations.
  EXPECT_NEAR(e.LogPdf({0, 0}), -4.8143303402, 1e-9);
  EXPECT_NEAR(e.LogPdf({2, 3}), -4.2931901131, 1e-9);
}

TEST(ParzenTest, OneObservationTakesItsLargerDistanceToTheEnds) {
  // Fewer than 4 points with the ends: no end rule; the gap to the far end.
  ParzenEstimator e({Continuous(0, 1)}, {{0.2}});
  EXPECT_DOUBLE_EQ(e.sigmas(0)[0], 0.8);
  EXPECT_DOUBLE_EQ(e.sigmas(0)[1], 1.0);  // the prior
  EXPECT_DOUBLE_EQ(e.mus(0)[1], 0.5);
  // No observations: the prior alone, weight 1.
  ParzenEstimator prior({Continuous(0, 1)}, std::vector<std::vector<double>>{});
  ASSERT_EQ(prior.weights().size(), 1u);
  EXPECT_DOUBLE_EQ(prior.weights()[0], 1.0);
}

TEST(ParzenTest, LogParametersAreModelledInLogSpace) {
  ParzenEstimator e({Continuous(1e-4, 1, /*log=*/true)}, {{1e-3}, {1e-2}});
  EXPECT_NEAR(e.mus(0)[0], std::log(1e-3), 1e-12);
  EXPECT_NEAR(e.mus(0)[1], std::log(1e-2), 1e-12);
  EXPECT_NEAR(e.mus(0)[2], 0.5 * std::log(1e-4), 1e-12);  // the prior's centre
  Rng rng(7);
  for (int i = 0; i < 200; ++i) {
    double v = e.Sample(&rng)[0];
    EXPECT_GE(v, 1e-4);
    EXPECT_LE(v, 1.0);
  }
}

TEST(ParzenTest, DiscreteParametersAreProbabilityMassesOnTheGrid) {
  // An integer in 1..5: the kernels' domain is [0.5, 5.5]; each grid value
  // gets its cell's mass, so the masses sum to one.
  ParzenDim d;
  d.kind = ParzenDim::Kind::kDiscrete;
  d.low = 1;
  d.high = 5;
  d.step = 1;
  ParzenEstimator e({d}, {{2}, {2}, {4}});
  EXPECT_DOUBLE_EQ(d.DomainLow(), 0.5);
  EXPECT_DOUBLE_EQ(d.DomainHigh(), 5.5);
  double total = 0;
  for (int v = 1; v <= 5; ++v) total += std::exp(e.LogPdf({static_cast<double>(v)}));
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_GT(e.LogPdf({2}), e.LogPdf({5}));
  Rng rng(3);
  for (int i = 0; i < 200; ++i) {
    double v = e.Sample(&rng)[0];
    EXPECT_EQ(v, std::round(v));
    EXPECT_GE(v, 1);
    EXPECT_LE(v, 5);
  }
}

TEST(ParzenTest, ALogIntegerWithALargeStepHasItsFirstValuesMassToo) {
  // 1, 5, ..., 65 in log space: the first value's cell starts at 0.5 (half
  // of it), not at 1 - 4/2 = -1, which has no logarithm.
  ParzenDim d;
  d.kind = ParzenDim::Kind::kDiscrete;
  d.log = true;
  d.low = 1;
  d.high = 65;
  d.step = 4;
  ParzenEstimator e({d}, {{1}, {1}, {5}, {33}});
  ASSERT_TRUE(std::isfinite(e.LogPdf({1})));
  double total = 0;
  for (int v = 1; v <= 65; v += 4) total += std::exp(e.LogPdf({static_cast<double>(v)}));
  EXPECT_NEAR(total, 1.0, 1e-12);
  // Two observations at 1: the first value is the likeliest.
  for (int v = 5; v <= 65; v += 4) EXPECT_GT(e.LogPdf({1}), e.LogPdf({static_cast<double>(v)}));
}

TEST(ParzenTest, CategoricalKernelsAddThePriorsShareToEveryChoice) {
  // 3 choices, observed 0, 0, 2; 4 kernels with the prior: each observation
  // kernel has 1/4 on every choice plus 1 on its own, normalised (1.75).
  ParzenDim d;
  d.kind = ParzenDim::Kind::kCategorical;
  d.choices = 3;
  ParzenEstimator e({d}, {{0}, {0}, {2}});
  const auto& p = e.choice_probs(0);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_DOUBLE_EQ(p[0][0], 1.25 / 1.75);
  EXPECT_DOUBLE_EQ(p[0][1], 0.25 / 1.75);
  EXPECT_DOUBLE_EQ(p[2][2], 1.25 / 1.75);
  for (double q : p[3]) EXPECT_DOUBLE_EQ(q, 1.0 / 3);  // the prior: uniform
  // p(0) = (2 * 1.25/1.75 + 0.25/1.75 + 1/3) / 4.
  EXPECT_NEAR(std::exp(e.LogPdf({0})), (2 * 1.25 / 1.75 + 0.25 / 1.75 + 1.0 / 3) / 4, 1e-12);
}

TEST(ParzenTest, OldObservationsFadeFromTheTwentySixthOn) {
  EXPECT_EQ(ObservationWeights(24), std::vector<double>(24, 1.0));
  std::vector<double> w = ObservationWeights(30);
  ASSERT_EQ(w.size(), 30u);
  // numpy.linspace(1/30, 1, 5) for the oldest five, then 25 ones.
  double first = 1.0 / 30;
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(w[i], first + (1 - first) * i / 4.0, 1e-15) << i;
  for (int i = 5; i < 30; ++i) EXPECT_DOUBLE_EQ(w[i], 1.0);
}

TEST(ParzenTest, GaussMassIsAccurateInBothTails) {
  EXPECT_NEAR(LogGaussMass(-1, 1), std::log(0.6826894921370859), 1e-12);
  // Phi(9) - Phi(8) = 6.2209605742717e-16 - 1.1285884059538e-19.
  EXPECT_NEAR(LogGaussMass(8, 9), std::log(6.2209605742717e-16 - 1.1285884059538e-19), 1e-6);
  EXPECT_NEAR(LogGaussMass(-9, -8), LogGaussMass(8, 9), 1e-12);
}

}  // namespace
}  // namespace sweep
