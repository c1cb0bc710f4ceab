// The Parzen estimators of TPE (Bergstra et al., NeurIPS 2011), built as
// Optuna's sampler builds them (optuna/samplers/_tpe/parzen_estimator.py):
// one kernel per observation plus a prior kernel, neighbour-gap bandwidths
// clipped by the "magic clip", truncated Gaussians (in log space for log
// parameters), discretised for stepped and integer parameters, and
// categorical kernels that put weight 1 on the observed choice plus the
// prior's share on every choice. A mixture over observations: each kernel
// is a product over the dimensions, so the estimator is multivariate.
// Pure arithmetic, no state beyond what the constructor computes.
#pragma once

#include <cstdint>
#include <vector>

#include "common/rng.h"

namespace sweep {

// One dimension of the space as the estimator sees it.
struct ParzenDim {
  enum class Kind { kContinuous, kDiscrete, kCategorical };
  Kind kind = Kind::kContinuous;
  bool log = false;
  double low = 0, high = 0;  // the parameter's bounds (discrete: first and last grid value)
  double step = 0;           // discrete: the grid step
  int choices = 0;           // categorical: how many

  // The kernels' domain: [low, high], widened by half a step for a discrete
  // dimension, in log space for a log one.
  double DomainLow() const;
  double DomainHigh() const;
  // A value as the kernels see it (its log for a log dimension).
  double Transform(double v) const;
};

// The weights Optuna gives observations in trial order: 1 each for fewer
// than 25, else a ramp from 1/n up to 1 for the oldest n - 25 and 1 for the
// newest 25, so old trials fade.
std::vector<double> ObservationWeights(size_t n);

class ParzenEstimator {
 public:
  // `observations`: one row per trial, one value per dimension (a number
  // for numeric dimensions, the choice's index for categorical ones), in
  // trial order. `weights`: one per row (ObservationWeights when empty).
  ParzenEstimator(std::vector<ParzenDim> dims, const std::vector<std::vector<double>>& observations,
                  std::vector<double> weights = {}, double prior_weight = 1.0);
  // The same with the observations in one row-major array (dims.size()
  // values per row), which large histories build without a vector per row.
  ParzenEstimator(std::vector<ParzenDim> dims, const std::vector<double>& flat,
                  std::vector<double> weights, double prior_weight);

  // One point drawn from the mixture (values as in `observations`).
  std::vector<double> Sample(Rng* rng) const;
  // log p(x), for a point in the same form.
  double LogPdf(const std::vector<double>& x) const;

  // For tests: the normalised component weights (the prior's last), and a
  // numeric dimension's kernel centres and bandwidths (transformed), or a
  // categorical dimension's per-component choice probabilities.
  const std::vector<double>& weights() const { return weights_; }
  const std::vector<double>& mus(size_t d) const { return mu_[d]; }
  const std::vector<double>& sigmas(size_t d) const { return sigma_[d]; }
  const std::vector<std::vector<double>>& choice_probs(size_t d) const { return cat_[d]; }

 private:
  std::vector<ParzenDim> dims_;
  std::vector<double> weights_, log_weights_;
  // Per dimension, per component: numeric kernels (centre, bandwidth and
  // the log of the truncated mass; for continuous kernels the whole log
  // normaliser) or categorical probabilities.
  std::vector<std::vector<double>> mu_, sigma_, inv_sigma_, log_mass_, log_norm_;
  std::vector<std::vector<std::vector<double>>> cat_;
};

// log(Phi(b) - Phi(a)) for a <= b, the standard normal's mass on [a, b],
// computed on the side of the distribution where it does not cancel.
double LogGaussMass(double a, double b);

}  // namespace sweep
