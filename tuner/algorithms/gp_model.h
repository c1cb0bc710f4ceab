// The Gaussian process behind `type: gp`: a Matérn-5/2 kernel with one
// lengthscale per input (automatic relevance determination), its
// hyperparameters fitted by maximum a posteriori (the log marginal
// likelihood plus priors, multi-start L-BFGS-B from LBFGSpp), and the
// posterior mean and variance with their gradients (Cholesky solves from
// Eigen). Inputs are rows in the unit cube, except categorical columns,
// which hold a choice's index and count as distance 0 (same) or 1
// (different), as Optuna's GPSampler treats them. Outputs are expected
// standardised (StandardizeOutputs). Pure arithmetic: no state beyond what
// each constructor computes, and the same results for the same inputs.
#pragma once

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <vector>

namespace sweep {

// The kernel's hyperparameters.
struct GpKernel {
  Eigen::VectorXd inv_sq_lengthscales;  // 1/ℓ² per input column
  double scale = 1;                     // the kernel's variance
  double noise = 1e-4;                  // the observations' noise variance
};

// The noise variance never goes below this (standardised outputs).
constexpr double kMinNoise = 1e-6;

// Matérn-5/2 of a squared scaled distance r²: s (1 + √5 r + 5r²/3) e^(-√5 r),
// and its slope in r², -(5/6) s (1 + √5 r) e^(-√5 r).
double Matern52(double r2, double scale);
double Matern52Slope(double r2, double scale);

// r² = Σ_d (x_d - y_d)² / ℓ_d², with categorical columns counting 1 when
// they differ.
double ScaledSquaredDistance(const Eigen::Ref<const Eigen::VectorXd>& x,
                             const Eigen::Ref<const Eigen::VectorXd>& y,
                             const Eigen::VectorXd& inv_sq_lengthscales,
                             const std::vector<bool>& categorical);

// The squared difference of every pair of rows of X, one matrix per
// column (categorical columns: 0 or 1), computed once for a whole fit.
struct PairwiseDistances {
  std::vector<Eigen::MatrixXd> sq;
};
PairwiseDistances Pairwise(const Eigen::MatrixXd& X, const std::vector<bool>& categorical);

// The hyperparameters as the fit sees them: θ = (log 1/ℓ² per column,
// log s, log(noise - kMinNoise)), and back.
Eigen::VectorXd ThetaOf(const GpKernel& k);
GpKernel KernelOf(const Eigen::VectorXd& theta);

// log p(y | X, θ) + log prior(θ), and its gradient in θ. The priors are
// Optuna 5's: -(0.1/λ + 0.1λ) for each λ = 1/ℓ² (its mode at ℓ = 1, the
// unit cube's width), the kernel's variance Gamma(2, 1), the noise
// Gamma(1.1, 30). (A log-normal lengthscale prior that grows with the
// dimension, Hvarfner et al., ICML 2024, found worse values on the 10-D
// synthetic functions at 50 trials: bench/RESULTS.md.)
// -infinity where the covariance is not positive definite.
double LogPosterior(const PairwiseDistances& pairs, const Eigen::VectorXd& y,
                    const Eigen::VectorXd& theta, Eigen::VectorXd* grad);

// The maximum a posteriori hyperparameters for (X, y): L-BFGS-B from a few
// fixed starting points (so the fit is a pure function of the data), the
// best end point kept.
GpKernel FitKernel(const Eigen::MatrixXd& X, const Eigen::VectorXd& y,
                   const std::vector<bool>& categorical);

// Outputs made ready for the GP: centred on their median and scaled by a
// robust spread (1.4826 × the median absolute deviation, or the standard
// deviation if that is 0); values more than 2 spreads above the median (the
// bad side: lower is better) are squashed, 2 + log(1 + excess), so a few
// diverged trials do not flatten the model where the good points are.
Eigen::VectorXd StandardizeOutputs(const std::vector<double>& values);

class GaussianProcess {
 public:
  // The posterior given observations (X, y) and a kernel. The last
  // `exact` rows are taken as measured without noise (the Kriging
  // believer's predictions for running trials). A covariance that Cholesky
  // cannot factor gets growing jitter on its diagonal.
  GaussianProcess(Eigen::MatrixXd X, Eigen::VectorXd y, std::vector<bool> categorical,
                  GpKernel kernel, Eigen::Index exact = 0);

  // The posterior mean and variance at each row of Q.
  void Predict(const Eigen::MatrixXd& Q, Eigen::VectorXd* mean, Eigen::VectorXd* var) const;
  // The same at one point, with gradients in every column (0 in
  // categorical ones).
  void PredictWithGradient(const Eigen::VectorXd& x, double* mean, double* var,
                           Eigen::VectorXd* dmean, Eigen::VectorXd* dvar) const;

  const GpKernel& kernel() const { return kernel_; }

 private:
  Eigen::VectorXd CrossCovariance(const Eigen::VectorXd& x) const;

  Eigen::MatrixXd Xt_;  // one column per observation
  std::vector<bool> categorical_;
  GpKernel kernel_;
  Eigen::LLT<Eigen::MatrixXd> chol_;
  Eigen::VectorXd alpha_;  // K⁻¹ y
};

}  // namespace sweep
