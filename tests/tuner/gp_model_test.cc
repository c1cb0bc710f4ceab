// The GP's arithmetic against what can be computed by hand: the kernel and
// its slope, the log posterior's gradient against finite differences, the
// marginal likelihood of a two-point case, log EI against its closed form,
// a nearly singular covariance, and the posterior's gradients.
#include "tuner/algorithms/gp_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "common/rng.h"
#include "tuner/algorithms/gp_acquisition.h"
#include "tuner/algorithms/log_ei.h"

namespace sweep {
namespace {

double NormCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }
double NormPdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI); }

TEST(GpModelTest, MaternAndItsSlopeInRSquared) {
  // k(0) = s; k(r) by the formula at r = 0.7.
  EXPECT_DOUBLE_EQ(Matern52(0, 2.5), 2.5);
  double r = 0.7, s = 1.3;
  double expect = s * (1 + std::sqrt(5.0) * r + 5.0 / 3.0 * r * r) * std::exp(-std::sqrt(5.0) * r);
  EXPECT_NEAR(Matern52(r * r, s), expect, 1e-14);
  for (double r2 : {0.0, 1e-6, 0.3, 2.0, 9.0}) {
    double h = 1e-6 * std::max(1.0, r2);
    double fd = (Matern52(r2 + h, s) - Matern52(std::max(0.0, r2 - h), s)) /
                (r2 + h - std::max(0.0, r2 - h));
    EXPECT_NEAR(Matern52Slope(r2, s), fd, 1e-5 * std::max(1.0, std::abs(fd))) << r2;
  }
}

TEST(GpModelTest, CategoricalColumnsCountOneWhenTheyDiffer) {
  Eigen::VectorXd x(2), y(2), isl(2);
  x << 0.2, 1;
  y << 0.5, 3;
  isl << 4, 0.25;
  EXPECT_NEAR(ScaledSquaredDistance(x, y, isl, {false, true}), 0.09 * 4 + 0.25, 1e-14);
  y(1) = 1;
  EXPECT_NEAR(ScaledSquaredDistance(x, y, isl, {false, true}), 0.09 * 4, 1e-14);
}

// The log posterior of two points by hand: a 2x2 covariance's inverse and
// determinant, plus the priors.
TEST(GpModelTest, LogPosteriorOfTwoPointsByHand) {
  Eigen::MatrixXd X(2, 1);
  X << 0.1, 0.6;
  Eigen::VectorXd y(2);
  y << -0.5, 1.2;
  GpKernel k;
  k.inv_sq_lengthscales = Eigen::VectorXd::Constant(1, 1 / (0.4 * 0.4));
  k.scale = 1.5;
  k.noise = 0.01;
  double r2 = 0.25 / 0.16;
  double a = k.scale + k.noise, b = Matern52(r2, k.scale);
  double det = a * a - b * b;
  double quad = (a * y(0) * y(0) - 2 * b * y(0) * y(1) + a * y(1) * y(1)) / det;
  double ml = -0.5 * quad - 0.5 * std::log(det) - std::log(2 * M_PI);
  double isl = 1 / (0.4 * 0.4);
  double prior = -(0.1 / isl + 0.1 * isl) + std::log(k.scale) - k.scale + 0.1 * std::log(k.noise) -
                 30 * k.noise;
  EXPECT_NEAR(LogPosterior(Pairwise(X, {false}), y, ThetaOf(k), nullptr), ml + prior, 1e-9);
}

TEST(GpModelTest, LogPosteriorGradientMatchesFiniteDifferences) {
  Rng rng(3);
  const int n = 12, D = 3;
  Eigen::MatrixXd X(n, D);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    for (int d = 0; d < D; ++d) X(i, d) = rng.Uniform();
    X(i, 2) = std::floor(rng.Uniform() * 3);  // a categorical column
    y(i) = std::sin(5 * X(i, 0)) + X(i, 1) * X(i, 1) + 0.3 * X(i, 2);
  }
  std::vector<bool> cat = {false, false, true};
  Eigen::VectorXd theta(D + 2);
  theta << 1.0, 2.0, -0.5, 0.2, std::log(1e-3);
  Eigen::VectorXd grad;
  PairwiseDistances pairs = Pairwise(X, cat);
  LogPosterior(pairs, y, theta, &grad);
  for (int j = 0; j < theta.size(); ++j) {
    Eigen::VectorXd up = theta, down = theta;
    up(j) += 1e-5;
    down(j) -= 1e-5;
    double fd =
        (LogPosterior(pairs, y, up, nullptr) - LogPosterior(pairs, y, down, nullptr)) / 2e-5;
    EXPECT_NEAR(grad(j), fd, 1e-4 * std::max(1.0, std::abs(fd))) << "theta " << j;
  }
}

TEST(GpModelTest, LogEiAgreesWithTheClosedFormAndStaysFiniteFarOut) {
  for (double z = -5; z <= 5; z += 0.25) {
    double h = NormPdf(z) + z * NormCdf(z);
    EXPECT_NEAR(LogH(z), std::log(h), 1e-9 * std::max(1.0, std::abs(std::log(h)))) << z;
    double fd = (LogH(z + 1e-6) - LogH(z - 1e-6)) / 2e-6;
    EXPECT_NEAR(LogHSlope(z), fd, 1e-5 * std::max(1.0, std::abs(fd))) << z;
  }
  // Far out, h(z) ~ φ(z) / z²: log h = -z²/2 - log √(2π) - 2 log|z| + O(1/z²).
  for (double z : {-40.0, -1e3, -1e6, -1e9}) {
    double asym = -0.5 * z * z - 0.5 * std::log(2 * M_PI) - 2 * std::log(-z);
    EXPECT_NEAR(LogH(z), asym, 3 / (z * z) * std::max(1.0, std::abs(asym)) + 1e-9) << z;
    EXPECT_TRUE(std::isfinite(LogHSlope(z))) << z;
  }
  // Continuous where the formulas meet (z = -1).
  EXPECT_NEAR(LogH(-1 - 1e-12), LogH(-1 + 1e-12), 1e-9);
  // erfcx: exp(x²) erfc(x) directly below 26, the series above.
  EXPECT_NEAR(Erfcx(1.5), std::exp(2.25) * std::erfc(1.5), 1e-14);
  for (double x : {26.0, 26.5})  // the series against the direct product, still finite here
    EXPECT_NEAR(Erfcx(x), std::exp(x * x) * std::erfc(x), 1e-12) << x;
}

// Forty copies of two points 1e-12 apart under a kernel variance of 1e12
// and the least noise: a covariance whose Cholesky fails in doubles until
// jitter (or, failing that, more noise) is added. Predictions stay finite.
TEST(GpModelTest, ANumericallySingularCovarianceStillGivesFinitePredictions) {
  Eigen::MatrixXd X(40, 1);
  Eigen::VectorXd y(40);
  for (int i = 0; i < 40; ++i) {
    X(i, 0) = i % 2 ? 0.3 : 0.3 + 1e-12;
    y(i) = i % 2 ? 1.0 : 1.0 + 1e-9;
  }
  GpKernel k;
  k.inv_sq_lengthscales = Eigen::VectorXd::Constant(1, 1.0);
  k.scale = 1e12;
  k.noise = kMinNoise;
  Eigen::MatrixXd K = Eigen::MatrixXd::Constant(40, 40, k.scale);
  K.diagonal().array() += k.noise;
  ASSERT_NE(Eigen::LLT<Eigen::MatrixXd>(K).info(), Eigen::Success);  // the case needs the rescue
  GaussianProcess gp(X, y, {false}, k);
  Eigen::VectorXd mean, var;
  Eigen::MatrixXd Q(2, 1);
  Q << 0.3, 0.9;
  gp.Predict(Q, &mean, &var);
  EXPECT_NEAR(mean(0), 1.0, 1e-3);
  EXPECT_TRUE(std::isfinite(mean(1)) && std::isfinite(var(1)));
  EXPECT_GT(var(1), var(0));
  // The fit finds a kernel too.
  GpKernel fitted = FitKernel(X, y, {false});
  EXPECT_TRUE(std::isfinite(fitted.scale) && std::isfinite(fitted.noise));
}

TEST(GpModelTest, PosteriorAndLogEiGradientsMatchFiniteDifferences) {
  Rng rng(9);
  const int n = 15, D = 2;
  Eigen::MatrixXd X(n, D);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    X(i, 0) = rng.Uniform();
    X(i, 1) = rng.Uniform();
    y(i) = std::cos(4 * X(i, 0)) - X(i, 1);
  }
  GpKernel k = FitKernel(X, y, {false, false});
  GaussianProcess gp(X, y, {false, false}, k);
  Eigen::VectorXd x(2);
  x << 0.37, 0.61;
  double mean = 0, var = 0;
  Eigen::VectorXd dmean, dvar, dei;
  gp.PredictWithGradient(x, &mean, &var, &dmean, &dvar);
  double best = y.minCoeff();
  LogExpectedImprovement(gp, x, best, &dei);
  for (int d = 0; d < D; ++d) {
    Eigen::VectorXd up = x, down = x;
    up(d) += 1e-6;
    down(d) -= 1e-6;
    Eigen::VectorXd mu, mv, du, dv;
    gp.Predict(up.transpose(), &mu, &mv);
    gp.Predict(down.transpose(), &du, &dv);
    EXPECT_NEAR(dmean(d), (mu(0) - du(0)) / 2e-6, 1e-4) << d;
    EXPECT_NEAR(dvar(d), (mv(0) - dv(0)) / 2e-6, 1e-4) << d;
    double fd =
        (LogExpectedImprovement(gp, up, best) - LogExpectedImprovement(gp, down, best)) / 2e-6;
    EXPECT_NEAR(dei(d), fd, 1e-4 * std::max(1.0, std::abs(fd))) << d;
  }
}

TEST(GpModelTest, RobustStandardisationSquashesTheBadTail) {
  std::vector<double> v = {1, 2, 3, 4, 5, 1e6};
  Eigen::VectorXd y = StandardizeOutputs(v);
  // Median 3.5, MAD 1.5: (1 - 3.5) / (1.4826 * 1.5).
  EXPECT_NEAR(y(0), -2.5 / (1.4826 * 1.5), 1e-12);
  EXPECT_LT(y(5), 20);  // squashed, where the raw z would be ~450,000
  for (int i = 1; i < 6; ++i) EXPECT_GT(y(i), y(i - 1));  // order kept
}

}  // namespace
}  // namespace sweep
