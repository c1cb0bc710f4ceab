// Where the GP sampler looks next: the points of highest log expected
// improvement, found by a quasi-Newton climb (L-BFGS-B over the numeric
// columns, within the unit cube) from the best of many random points and
// of small moves around the best trials, then each categorical column
// tried at each of its choices.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "common/rng.h"
#include "tuner/algorithms/gp_model.h"

namespace sweep {

// log EI of a point for a minimised output: log(σ h((best - μ) / σ)), with
// its gradient in x when `grad` is given.
double LogExpectedImprovement(const GaussianProcess& gp, const Eigen::VectorXd& x, double best,
                              Eigen::VectorXd* grad = nullptr);

struct Candidate {
  Eigen::VectorXd x;
  double log_ei = 0;
};

// `choices[d]`: 0 for a numeric column (values in [0, 1]), else how many
// choices categorical column d has. `best`: the lowest output observed.
// `anchors`: encoded points of the best trials, searched around. Returns
// the climbed points best first, then the rest of the random ones by log
// EI, `keep` in all: the caller takes the first it can use.
std::vector<Candidate> MaximizeLogEi(const GaussianProcess& gp, const std::vector<int>& choices,
                                     double best, const std::vector<Eigen::VectorXd>& anchors,
                                     Rng* rng, size_t keep);

}  // namespace sweep
