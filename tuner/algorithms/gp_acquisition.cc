#include "tuner/algorithms/gp_acquisition.h"

#include <LBFGSB.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "tuner/algorithms/log_ei.h"

namespace sweep {

namespace {

constexpr int kRandomPoints = 1024;   // uniform draws over the space
constexpr int kAnchorMoves = 32;      // moves around each of the best trials
constexpr double kMoveSpread = 0.05;  // their standard deviation (unit cube)
constexpr size_t kClimbs = 8;         // of the best, climbed by L-BFGS-B

// Climbs from `x` over the numeric columns, categorical ones held.
Candidate Climb(const GaussianProcess& gp, const std::vector<int>& numeric, double best,
                Eigen::VectorXd x) {
  Candidate out{x, LogExpectedImprovement(gp, x, best)};
  if (numeric.empty()) return out;
  const Eigen::Index m = static_cast<Eigen::Index>(numeric.size());
  struct Objective {
    const GaussianProcess& gp;
    const std::vector<int>& numeric;
    double best;
    Eigen::VectorXd full;
    Candidate* out;
    double operator()(const Eigen::VectorXd& z, Eigen::VectorXd& grad) {
      for (size_t j = 0; j < numeric.size(); ++j)
        full(numeric[j]) = z(static_cast<Eigen::Index>(j));
      Eigen::VectorXd g;
      double v = LogExpectedImprovement(gp, full, best, &g);
      grad.resize(z.size());
      for (size_t j = 0; j < numeric.size(); ++j)
        grad(static_cast<Eigen::Index>(j)) = -g(numeric[j]);
      if (!std::isfinite(v)) {
        grad.setZero();
        return 1e300;
      }
      if (v > out->log_ei) *out = Candidate{full, v};
      return -v;
    }
  };
  Eigen::VectorXd z(m);
  for (size_t j = 0; j < numeric.size(); ++j) z(static_cast<Eigen::Index>(j)) = x(numeric[j]);
  LBFGSpp::LBFGSBParam<double> param;
  param.max_iterations = 50;
  param.epsilon = 1e-5;
  param.epsilon_rel = 1e-5;
  LBFGSpp::LBFGSBSolver<double> solver(param);
  Objective objective{gp, numeric, best, x, &out};
  double f = 0;
  try {
    solver.minimize(objective, z, f, Eigen::VectorXd::Zero(m), Eigen::VectorXd::Ones(m));
  } catch (const std::exception&) {
    // A failed line search: the best point asked about stands.
  }
  return out;
}

}  // namespace

double LogExpectedImprovement(const GaussianProcess& gp, const Eigen::VectorXd& x, double best,
                              Eigen::VectorXd* grad) {
  double mean = 0, var = 0;
  Eigen::VectorXd dmean, dvar;
  if (grad) {
    gp.PredictWithGradient(x, &mean, &var, &dmean, &dvar);
  } else {
    Eigen::VectorXd m, v;
    gp.Predict(x.transpose(), &m, &v);
    mean = m(0);
    var = v(0);
  }
  double sigma = std::sqrt(var);
  double z = (best - mean) / sigma;
  double value = std::log(sigma) + LogH(z);
  if (grad) {
    Eigen::VectorXd dsigma = dvar / (2 * sigma);
    Eigen::VectorXd dz = (-dmean - z * dsigma) / sigma;
    *grad = dsigma / sigma + LogHSlope(z) * dz;
  }
  return value;
}

std::vector<Candidate> MaximizeLogEi(const GaussianProcess& gp, const std::vector<int>& choices,
                                     double best, const std::vector<Eigen::VectorXd>& anchors,
                                     Rng* rng, size_t keep) {
  const Eigen::Index D = static_cast<Eigen::Index>(choices.size());
  std::vector<int> numeric;
  for (Eigen::Index d = 0; d < D; ++d)
    if (choices[static_cast<size_t>(d)] == 0) numeric.push_back(static_cast<int>(d));
  auto draw = [&](Eigen::Index d) {
    int c = choices[static_cast<size_t>(d)];
    double u = rng->Uniform();
    return c == 0 ? u : std::min<double>(c - 1, std::floor(u * c));
  };
  const Eigen::Index n = kRandomPoints + kAnchorMoves * static_cast<Eigen::Index>(anchors.size());
  Eigen::MatrixXd pool(n, D);
  for (Eigen::Index i = 0; i < kRandomPoints; ++i)
    for (Eigen::Index d = 0; d < D; ++d) pool(i, d) = draw(d);
  Eigen::Index row = kRandomPoints;
  for (const Eigen::VectorXd& a : anchors) {
    for (int j = 0; j < kAnchorMoves; ++j, ++row) {
      for (Eigen::Index d = 0; d < D; ++d) {
        // Numeric columns move a little; categorical ones change now and then.
        pool(row, d) = choices[static_cast<size_t>(d)] == 0
                           ? std::clamp(a(d) + kMoveSpread * rng->Normal(), 0.0, 1.0)
                           : (rng->Uniform() < 1.0 / static_cast<double>(D) ? draw(d) : a(d));
      }
    }
  }
  Eigen::VectorXd mean, var;
  gp.Predict(pool, &mean, &var);
  std::vector<Candidate> all(static_cast<size_t>(n));
  for (Eigen::Index i = 0; i < n; ++i) {
    double sigma = std::sqrt(var(i));
    double e = std::log(sigma) + LogH((best - mean(i)) / sigma);
    all[static_cast<size_t>(i)] =
        Candidate{pool.row(i).transpose(), std::isfinite(e) ? e : -INFINITY};
  }
  std::stable_sort(all.begin(), all.end(),
                   [](const Candidate& a, const Candidate& b) { return a.log_ei > b.log_ei; });
  std::vector<Candidate> climbed;
  for (size_t i = 0; i < std::min(kClimbs, all.size()); ++i) {
    Candidate c = Climb(gp, numeric, best, all[i].x);
    // Each categorical column at each of its choices, the others held.
    for (Eigen::Index d = 0; d < D; ++d) {
      for (int v = 0; v < choices[static_cast<size_t>(d)]; ++v) {
        Eigen::VectorXd x = c.x;
        x(d) = v;
        double e = LogExpectedImprovement(gp, x, best);
        if (e > c.log_ei) c = Candidate{x, e};
      }
    }
    climbed.push_back(std::move(c));
  }
  std::stable_sort(climbed.begin(), climbed.end(),
                   [](const Candidate& a, const Candidate& b) { return a.log_ei > b.log_ei; });
  // The random points not climbed, in case every climbed one repeats a trial.
  for (size_t i = std::min(kClimbs, all.size()); i < all.size() && climbed.size() < keep; ++i)
    climbed.push_back(all[i]);
  return climbed;
}

}  // namespace sweep
