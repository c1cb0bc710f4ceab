#include "tuner/algorithms/gp_model.h"

#include <LBFGSB.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>

// OpenBLAS's own (EIGEN_USE_BLAS sends Eigen's products to it).
extern "C" void openblas_set_num_threads(int);

namespace sweep {

namespace {

// The GP's BLAS calls run on the calling thread alone: its matrices are
// small, and OpenBLAS's threads would spin on cores the runners use. The
// tuner's process trains nothing (runners are processes of their own).
void OneBlasThread() {
  static std::once_flag once;
  std::call_once(once, [] { openblas_set_num_threads(1); });
}

const double kSqrt5 = std::sqrt(5.0);
constexpr double kLog2Pi = 1.8378770664093453;

// Bounds of θ: lengthscales in [0.01, 100] (the unit cube is 1 wide),
// the kernel's variance in [0.01, 100], the noise up to 1 (the outputs'
// whole variance).
constexpr double kMinLengthscale = 1e-2, kMaxLengthscale = 1e2;
constexpr double kMinScale = 1e-2, kMaxScale = 1e2;
constexpr double kMinExtraNoise = 1e-9, kMaxExtraNoise = 1;

// The covariance of the pairs with the noise on its diagonal, and its
// slope in r² (for the gradient).
Eigen::MatrixXd Covariance(const PairwiseDistances& pairs, const GpKernel& k,
                           Eigen::MatrixXd* slope = nullptr) {
  const Eigen::Index n = pairs.sq.empty() ? 0 : pairs.sq[0].rows();
  Eigen::ArrayXXd r2 = Eigen::ArrayXXd::Zero(n, n);
  for (size_t d = 0; d < pairs.sq.size(); ++d)
    r2 += k.inv_sq_lengthscales(static_cast<Eigen::Index>(d)) * pairs.sq[d].array();
  Eigen::ArrayXXd r = r2.sqrt();
  Eigen::ArrayXXd e = (-kSqrt5 * r).exp();
  Eigen::MatrixXd K = (k.scale * (1 + kSqrt5 * r + 5.0 / 3.0 * r2) * e).matrix();
  if (slope) *slope = (-5.0 / 6.0 * k.scale * (1 + kSqrt5 * r) * e).matrix();
  K.diagonal().array() += k.noise;
  return K;
}

// Factors K; where rounding makes it indefinite, adds jitter of 1e-9 up to
// 1e-5 of the kernel's variance to the diagonal. False if nothing works.
bool Factor(Eigen::MatrixXd K, double scale, Eigen::LLT<Eigen::MatrixXd>* llt) {
  llt->compute(K);
  for (double jitter = 1e-9; llt->info() != Eigen::Success; jitter *= 10) {
    if (jitter > 1e-5) return false;
    K.diagonal().array() += jitter * scale;
    llt->compute(K);
  }
  return true;
}

}  // namespace

double Matern52(double r2, double scale) {
  double r = std::sqrt(std::max(0.0, r2));
  return scale * (1 + kSqrt5 * r + 5.0 / 3.0 * r2) * std::exp(-kSqrt5 * r);
}

double Matern52Slope(double r2, double scale) {
  double r = std::sqrt(std::max(0.0, r2));
  return -5.0 / 6.0 * scale * (1 + kSqrt5 * r) * std::exp(-kSqrt5 * r);
}

double ScaledSquaredDistance(const Eigen::Ref<const Eigen::VectorXd>& x,
                             const Eigen::Ref<const Eigen::VectorXd>& y,
                             const Eigen::VectorXd& inv_sq_lengthscales,
                             const std::vector<bool>& categorical) {
  double r2 = 0;
  for (Eigen::Index d = 0; d < x.size(); ++d) {
    double diff = x(d) - y(d);
    double sq = categorical[static_cast<size_t>(d)] ? (diff != 0 ? 1.0 : 0.0) : diff * diff;
    r2 += sq * inv_sq_lengthscales(d);
  }
  return r2;
}

PairwiseDistances Pairwise(const Eigen::MatrixXd& X, const std::vector<bool>& categorical) {
  PairwiseDistances p;
  const Eigen::Index n = X.rows();
  for (Eigen::Index d = 0; d < X.cols(); ++d) {
    Eigen::MatrixXd m(n, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      for (Eigen::Index i = 0; i < n; ++i) {
        double diff = X(i, d) - X(j, d);
        m(i, j) = categorical[static_cast<size_t>(d)] ? (diff != 0 ? 1.0 : 0.0) : diff * diff;
      }
    }
    p.sq.push_back(std::move(m));
  }
  return p;
}

Eigen::VectorXd ThetaOf(const GpKernel& k) {
  const Eigen::Index d = k.inv_sq_lengthscales.size();
  Eigen::VectorXd theta(d + 2);
  theta.head(d) = k.inv_sq_lengthscales.array().log();
  theta(d) = std::log(k.scale);
  theta(d + 1) = std::log(std::max(kMinExtraNoise, k.noise - kMinNoise));
  return theta;
}

GpKernel KernelOf(const Eigen::VectorXd& theta) {
  const Eigen::Index d = theta.size() - 2;
  GpKernel k;
  k.inv_sq_lengthscales = theta.head(d).array().exp();
  k.scale = std::exp(theta(d));
  k.noise = kMinNoise + std::exp(theta(d + 1));
  return k;
}

double LogPosterior(const PairwiseDistances& pairs, const Eigen::VectorXd& y,
                    const Eigen::VectorXd& theta, Eigen::VectorXd* grad) {
  const Eigen::Index n = y.size(), D = static_cast<Eigen::Index>(pairs.sq.size());
  const GpKernel k = KernelOf(theta);
  Eigen::MatrixXd slope;
  Eigen::MatrixXd K = Covariance(pairs, k, grad ? &slope : nullptr);
  Eigen::LLT<Eigen::MatrixXd> llt;
  Eigen::VectorXd alpha;
  double lp = -std::numeric_limits<double>::infinity();
  if (Factor(K, k.scale, &llt)) {
    alpha = llt.solve(y);
    double log_det = 2 * llt.matrixLLT().diagonal().array().log().sum();
    lp = -0.5 * y.dot(alpha) - 0.5 * log_det - 0.5 * static_cast<double>(n) * kLog2Pi;
  }
  // Eigen's Cholesky reports success on NaN input: anything not finite is
  // "not positive definite" here.
  if (!std::isfinite(lp)) {
    if (grad) grad->setZero(theta.size());
    return -std::numeric_limits<double>::infinity();
  }

  // The priors.
  for (Eigen::Index d = 0; d < D; ++d)
    lp -= 0.1 / k.inv_sq_lengthscales(d) + 0.1 * k.inv_sq_lengthscales(d);
  lp += std::log(k.scale) - k.scale;             // Gamma(2, 1)
  lp += 0.1 * std::log(k.noise) - 30 * k.noise;  // Gamma(1.1, 30)
  if (!grad) return lp;

  // d lp / dθ = ½ tr((α αᵀ - K⁻¹) dK/dθ) + the priors' slopes; W is
  // symmetric, so the trace is the sum of W ∘ dK.
  Eigen::MatrixXd W = alpha * alpha.transpose() - llt.solve(Eigen::MatrixXd::Identity(n, n));
  Eigen::ArrayXXd ws = W.array() * slope.array();
  grad->setZero(theta.size());
  for (Eigen::Index d = 0; d < D; ++d) {
    double isl = k.inv_sq_lengthscales(d);
    (*grad)(d) =
        0.5 * (ws * pairs.sq[static_cast<size_t>(d)].array()).sum() * isl + 0.1 / isl - 0.1 * isl;
  }
  // dK/dlog s is K without its noise.
  K.diagonal().array() -= k.noise;
  (*grad)(D) = 0.5 * (W.array() * K.array()).sum() + 1 - k.scale;
  (*grad)(D + 1) = (0.5 * W.trace() + 0.1 / k.noise - 30) * (k.noise - kMinNoise);
  return lp;
}

GpKernel FitKernel(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                   const std::vector<bool>& categorical) {
  OneBlasThread();
  const Eigen::Index D = X.cols();
  Eigen::VectorXd lb(D + 2), ub(D + 2);
  lb.head(D).setConstant(-2 * std::log(kMaxLengthscale));
  ub.head(D).setConstant(-2 * std::log(kMinLengthscale));
  lb(D) = std::log(kMinScale);
  ub(D) = std::log(kMaxScale);
  lb(D + 1) = std::log(kMinExtraNoise);
  ub(D + 1) = std::log(kMaxExtraNoise);

  // The negative log posterior, remembering the best point it was asked
  // at: LBFGSpp throws when a line search fails, and that point stands.
  struct Objective {
    const PairwiseDistances pairs;
    const Eigen::VectorXd& y;
    Eigen::VectorXd best;
    double best_f = std::numeric_limits<double>::infinity();
    double operator()(const Eigen::VectorXd& theta, Eigen::VectorXd& grad) {
      double lp = LogPosterior(pairs, y, theta, &grad);
      grad = -grad;
      double f = std::isfinite(lp) ? -lp : 1e300;
      if (f < best_f) {
        best_f = f;
        best = theta;
      }
      return f;
    }
  };
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = 60;
  param.epsilon = 1e-4;
  param.epsilon_rel = 1e-4;
  param.past = 3;
  param.delta = 1e-6;
  LBFGSpp::LBFGSBSolver<double> solver(param);

  Objective objective{Pairwise(X, categorical), y, {}};
  // Starts: a short and a long lengthscale, for a wiggly and a smooth
  // function; the kernel's variance 1 (the outputs' own), little
  // noise.
  for (double lengthscale : {0.2, 1.0}) {
    GpKernel start;
    double ls = lengthscale * std::sqrt(static_cast<double>(std::max<Eigen::Index>(1, D)));
    ls = std::clamp(ls, kMinLengthscale, kMaxLengthscale);
    start.inv_sq_lengthscales = Eigen::VectorXd::Constant(D, 1 / (ls * ls));
    start.scale = 1;
    start.noise = kMinNoise + 1e-4;
    Eigen::VectorXd theta = ThetaOf(start).cwiseMax(lb).cwiseMin(ub);
    double f = 0;
    try {
      solver.minimize(objective, theta, f, lb, ub);
    } catch (const std::exception&) {
      // A failed line search: the best point asked about stands.
    }
  }
  if (objective.best.size() == 0) {
    GpKernel fallback;
    fallback.inv_sq_lengthscales = Eigen::VectorXd::Ones(D);
    return fallback;
  }
  return KernelOf(objective.best);
}

Eigen::VectorXd StandardizeOutputs(const std::vector<double>& values) {
  const size_t n = values.size();
  Eigen::VectorXd y(static_cast<Eigen::Index>(n));
  if (n == 0) return y;
  std::vector<double> sorted = values;
  auto median_of = [](std::vector<double>* v) {
    size_t m = v->size() / 2;
    std::nth_element(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(m), v->end());
    double hi = (*v)[m];
    if (v->size() % 2 == 1) return hi;
    double lo = *std::max_element(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(m));
    return 0.5 * (lo + hi);
  };
  double median = median_of(&sorted);
  std::vector<double> dev(n);
  for (size_t i = 0; i < n; ++i) dev[i] = std::abs(values[i] - median);
  double spread = 1.4826 * median_of(&dev);
  if (!(spread > 0)) {
    double mean = 0, sq = 0;
    for (double v : values) mean += v;
    mean /= static_cast<double>(n);
    for (double v : values) sq += (v - mean) * (v - mean);
    spread = std::sqrt(sq / static_cast<double>(n));
  }
  if (!(spread > 0)) spread = 1;
  for (size_t i = 0; i < n; ++i) {
    double z = (values[i] - median) / spread;
    y(static_cast<Eigen::Index>(i)) = z > 2 ? 2 + std::log1p(z - 2) : z;
  }
  return y;
}

GaussianProcess::GaussianProcess(Eigen::MatrixXd X, Eigen::VectorXd y,
                                 std::vector<bool> categorical, GpKernel kernel, Eigen::Index exact)
    : Xt_(X.transpose()), categorical_(std::move(categorical)), kernel_(std::move(kernel)) {
  OneBlasThread();
  // One n x n matrix (not one per column, as a fit keeps): every trial of
  // a long study is in it.
  auto covariance = [&] {
    const Eigen::Index n = Xt_.cols();
    Eigen::MatrixXd K(n, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      K(j, j) = kernel_.scale + (j >= n - exact ? kMinNoise : kernel_.noise);
      for (Eigen::Index i = j + 1; i < n; ++i) {
        K(i, j) = K(j, i) =
            Matern52(ScaledSquaredDistance(Xt_.col(i), Xt_.col(j), kernel_.inv_sq_lengthscales,
                                           categorical_),
                     kernel_.scale);
      }
    }
    return K;
  };
  if (!Factor(covariance(), kernel_.scale, &chol_)) {
    // Nothing factors (duplicate points with no noise): a noisier model.
    kernel_.noise = std::max(kernel_.noise, 1e-2 * kernel_.scale);
    exact = 0;
    Factor(covariance(), kernel_.scale, &chol_);
  }
  alpha_ = chol_.solve(y);
}

Eigen::VectorXd GaussianProcess::CrossCovariance(const Eigen::VectorXd& x) const {
  Eigen::VectorXd k(Xt_.cols());
  for (Eigen::Index i = 0; i < Xt_.cols(); ++i) {
    double r2 = ScaledSquaredDistance(x, Xt_.col(i), kernel_.inv_sq_lengthscales, categorical_);
    k(i) = Matern52(r2, kernel_.scale);
  }
  return k;
}

void GaussianProcess::Predict(const Eigen::MatrixXd& Q, Eigen::VectorXd* mean,
                              Eigen::VectorXd* var) const {
  Eigen::MatrixXd Ks(Xt_.cols(), Q.rows());
  for (Eigen::Index q = 0; q < Q.rows(); ++q) Ks.col(q) = CrossCovariance(Q.row(q).transpose());
  *mean = Ks.transpose() * alpha_;
  Eigen::MatrixXd V = chol_.matrixL().solve(Ks);
  *var = (kernel_.scale - V.colwise().squaredNorm().transpose().array()).cwiseMax(1e-12);
}

void GaussianProcess::PredictWithGradient(const Eigen::VectorXd& x, double* mean, double* var,
                                          Eigen::VectorXd* dmean, Eigen::VectorXd* dvar) const {
  const Eigen::Index n = Xt_.cols(), D = Xt_.rows();
  Eigen::VectorXd k(n);
  Eigen::MatrixXd dk = Eigen::MatrixXd::Zero(n, D);  // d k_i / d x_d
  for (Eigen::Index i = 0; i < n; ++i) {
    double r2 = ScaledSquaredDistance(x, Xt_.col(i), kernel_.inv_sq_lengthscales, categorical_);
    k(i) = Matern52(r2, kernel_.scale);
    double slope = Matern52Slope(r2, kernel_.scale);
    for (Eigen::Index d = 0; d < D; ++d) {
      if (categorical_[static_cast<size_t>(d)]) continue;
      dk(i, d) = slope * 2 * (x(d) - Xt_(d, i)) * kernel_.inv_sq_lengthscales(d);
    }
  }
  Eigen::VectorXd beta = chol_.solve(k);  // K⁻¹ k
  *mean = k.dot(alpha_);
  *var = std::max(1e-12, kernel_.scale - k.dot(beta));
  *dmean = dk.transpose() * alpha_;
  *dvar = -2 * (dk.transpose() * beta);
}

}  // namespace sweep
