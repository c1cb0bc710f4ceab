// PED-ANOVA parameter importance (see importance.h). Each parameter's
// values are mapped to [0, 1] (log scale where the parameter has one) and
// estimated on a grid of 50 cells, with a Gaussian kernel (Scott's
// bandwidth) for numbers and one cell per choice for categories; both
// densities are mixed with a uniform prior of weight one trial, so a top set
// of a few trials cannot claim a divergence it has no evidence for.
#include "dashboard/importance.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/objectives.h"
#include "common/values.h"

namespace sweep {
namespace {

constexpr int kGrid = 50;

// Probability masses over the cells of `xs` (numbers in [0, 1]).
std::vector<double> KernelMasses(const std::vector<double>& xs) {
  std::vector<double> mass(kGrid, 1.0 / kGrid);  // the prior
  const double m = static_cast<double>(xs.size());
  if (xs.empty()) return mass;
  double mean = 0, var = 0;
  for (double x : xs) mean += x;
  mean /= m;
  for (double x : xs) var += (x - mean) * (x - mean);
  double sd = xs.size() > 1 ? std::sqrt(var / (m - 1)) : 0;
  double h = std::max(sd * std::pow(m, -0.2), 1.0 / kGrid);
  // The kernels are summed over a fine histogram of the values, not value
  // by value: 10,000 trials cost 1,024 kernels, and moving a value by at
  // most half a bin (1/2048) against a bandwidth of at least 1/50 changes
  // nothing that shows.
  constexpr int kBins = 1024;
  std::vector<double> bins(kBins, 0);
  for (double x : xs) bins[static_cast<size_t>(std::clamp(x, 0.0, 1.0) * (kBins - 1) + 0.5)] += 1;
  std::vector<double> kde(kGrid, 0);
  for (int b = 0; b < kBins; ++b) {
    if (bins[b] == 0) continue;
    const double x = static_cast<double>(b) / (kBins - 1);
    for (int g = 0; g < kGrid; ++g) {
      double z = ((g + 0.5) / kGrid - x) / h;
      kde[g] += bins[b] * std::exp(-0.5 * z * z);
    }
  }
  double total = 0;
  for (double v : kde) total += v;
  for (int g = 0; g < kGrid; ++g) mass[g] = (mass[g] + m * kde[g] / total) / (m + 1);
  return mass;
}

std::vector<double> CountMasses(const std::vector<int>& cells, int n_cells) {
  std::vector<double> mass(static_cast<size_t>(n_cells), 1.0 / n_cells);
  const double m = static_cast<double>(cells.size());
  std::vector<double> count(static_cast<size_t>(n_cells), 0);
  for (int c : cells) count[static_cast<size_t>(c)] += 1;
  for (int c = 0; c < n_cells; ++c)
    mass[static_cast<size_t>(c)] =
        (mass[static_cast<size_t>(c)] + count[static_cast<size_t>(c)]) / (m + 1);
  return mass;
}

double Divergence(const std::vector<double>& all, const std::vector<double>& top) {
  double d = 0;
  for (size_t g = 0; g < all.size(); ++g) d += top[g] * top[g] / all[g];
  return std::max(0.0, d - 1);
}

// The parameter's value in [0, 1], or its category's index; false when the
// trial does not have it (or has a value the space does not know).
bool Position(const pb::Parameter& p, const pb::Value& v, double* u, int* cell) {
  if (p.type() == pb::PARAM_TYPE_CATEGORICAL) {
    for (int i = 0; i < p.values_size(); ++i) {
      if (ValuesEqual(p.values(i), v)) {
        *cell = i;
        return true;
      }
    }
    return false;
  }
  double x, lo = p.min(), hi = p.max();
  if (!ValueAsDouble(v, &x) || !std::isfinite(x)) return false;
  if (p.log()) {
    if (x <= 0 || lo <= 0) return false;
    x = std::log(x), lo = std::log(lo), hi = std::log(hi);
  }
  *u = hi > lo ? std::clamp((x - lo) / (hi - lo), 0.0, 1.0) : 0.5;
  return true;
}

}  // namespace

Importance PedAnova(const pb::Study& spec, const std::vector<TrialView>& trials, double quantile) {
  Importance out;
  out.quantile = quantile;
  const bool maximize = PrimaryObjective(spec).goal() == pb::GOAL_MAXIMIZE;
  std::vector<const TrialView*> done;
  auto finite = [](const TrialView& t) { return t.value && std::isfinite(*t.value); };
  for (const TrialView& t : trials) {
    if (t.status != TrialStatus::kCompleted || !finite(t)) continue;
    done.push_back(&t);
    if (t.step) out.full_step = std::max(out.full_step.value_or(*t.step), *t.step);
  }
  out.completed = static_cast<int64_t>(done.size());
  for (const TrialView& t : trials) {
    if (t.status != TrialStatus::kStopped || !finite(t)) continue;
    if (out.full_step && t.step && *t.step >= *out.full_step) {
      done.push_back(&t);
      ++out.stopped_used;
    } else {
      ++out.stopped_left_out;
    }
  }
  out.trials = static_cast<int64_t>(done.size());
  if (done.size() < 4) return out;
  std::stable_sort(done.begin(), done.end(), [&](const TrialView* a, const TrialView* b) {
    return maximize ? *a->value > *b->value : *a->value < *b->value;
  });
  size_t k = std::max<size_t>(2, static_cast<size_t>(std::ceil(quantile * done.size())));
  out.top = static_cast<int64_t>(k);
  double sum = 0;
  for (const pb::Parameter& p : spec.parameters()) {
    if (p.type() == pb::PARAM_TYPE_CONSTANT || p.type() == pb::PARAM_TYPE_UNSPECIFIED) continue;
    std::vector<double> all_u, top_u;
    std::vector<int> all_c, top_c;
    for (size_t i = 0; i < done.size(); ++i) {
      for (const pb::ParamValue& pv : done[i]->params.params()) {
        if (pv.name() != p.name()) continue;
        double u = 0;
        int cell = 0;
        if (!Position(p, pv.value(), &u, &cell)) break;
        all_u.push_back(u), all_c.push_back(cell);
        if (i < k) top_u.push_back(u), top_c.push_back(cell);
        break;
      }
    }
    ParamImportance pi;
    pi.name = p.name();
    pi.trials = static_cast<int64_t>(all_u.size());
    if (!all_u.empty()) {
      pi.divergence =
          p.type() == pb::PARAM_TYPE_CATEGORICAL
              ? Divergence(CountMasses(all_c, p.values_size()), CountMasses(top_c, p.values_size()))
              : Divergence(KernelMasses(all_u), KernelMasses(top_u));
    }
    sum += pi.divergence;
    out.params.push_back(std::move(pi));
  }
  for (auto& pi : out.params) pi.importance = sum > 0 ? pi.divergence / sum : 0;
  std::stable_sort(out.params.begin(), out.params.end(),
                   [](const auto& a, const auto& b) { return a.divergence > b.divergence; });
  return out;
}

}  // namespace sweep
