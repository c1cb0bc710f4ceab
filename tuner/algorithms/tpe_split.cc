// MOTPE's and constrained TPE's good/bad split.
#include "tuner/algorithms/tpe_split.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/objectives.h"
#include "common/pareto.h"

namespace sweep {

namespace {

constexpr double kEps = 1e-12;

// Greedy hypervolume subset selection: `k` of `candidates` (indices into
// `points`), each step the one that adds the most hypervolume to those
// chosen so far.
std::vector<size_t> SelectByHypervolume(const std::vector<SplitPoint>& points,
                                        std::vector<size_t> candidates, size_t k) {
  std::vector<std::vector<double>> fs;
  for (size_t i : candidates) fs.push_back(points[i].f);
  const std::vector<double> ref = ReferencePoint(fs);
  std::vector<size_t> chosen;
  std::vector<std::vector<double>> chosen_f;
  double volume = 0;
  while (chosen.size() < k && !candidates.empty()) {
    size_t best = 0;
    double best_gain = -1;
    for (size_t c = 0; c < candidates.size(); ++c) {
      chosen_f.push_back(points[candidates[c]].f);
      double gain = Hypervolume(chosen_f, ref) - volume;
      chosen_f.pop_back();
      if (gain > best_gain) {  // ties: the earliest, so the choice is deterministic
        best_gain = gain;
        best = c;
      }
    }
    chosen.push_back(candidates[best]);
    chosen_f.push_back(points[candidates[best]].f);
    volume += std::max(0.0, best_gain);
    candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(best));
  }
  return chosen;
}

}  // namespace

std::vector<double> ReferencePoint(const std::vector<std::vector<double>>& points) {
  if (points.empty()) return {};
  std::vector<double> worst = points[0];
  for (const auto& p : points)
    for (size_t k = 0; k < worst.size(); ++k) worst[k] = std::max(worst[k], p[k]);
  for (double& w : worst) {
    w = std::max(1.1 * w, 0.9 * w);
    if (w == 0) w = kEps;
  }
  return worst;
}

TpeSplit SplitForTpe(const std::vector<SplitPoint>& points, size_t n_good) {
  TpeSplit out;
  const size_t m = points.empty() ? 0 : points[0].f.size();
  std::vector<size_t> feasible, infeasible;
  for (size_t i = 0; i < points.size(); ++i)
    (points[i].violation <= 0 ? feasible : infeasible).push_back(i);
  n_good = std::min(n_good, points.size());
  std::vector<size_t> good;
  if (m <= 1) {
    std::stable_sort(feasible.begin(), feasible.end(),
                     [&](size_t a, size_t b) { return points[a].f[0] < points[b].f[0]; });
    for (size_t i = 0; i < feasible.size() && good.size() < n_good; ++i)
      good.push_back(feasible[i]);
  } else if (!feasible.empty() && n_good > 0) {
    std::vector<ParetoPoint> fp;
    for (size_t i : feasible) fp.push_back({points[i].f, 0});
    for (const std::vector<size_t>& front : NonDominatedFronts(fp)) {
      std::vector<size_t> members;
      for (size_t j : front) members.push_back(feasible[j]);
      const size_t room = n_good - good.size();
      if (members.size() <= room) {
        good.insert(good.end(), members.begin(), members.end());
      } else {
        std::vector<size_t> picked = SelectByHypervolume(points, members, room);
        good.insert(good.end(), picked.begin(), picked.end());
      }
      if (good.size() >= n_good) break;
    }
  }
  // Too few feasible: the least infeasible make up the number.
  std::stable_sort(infeasible.begin(), infeasible.end(),
                   [&](size_t a, size_t b) { return points[a].violation < points[b].violation; });
  for (size_t i = 0; i < infeasible.size() && good.size() < n_good; ++i)
    good.push_back(infeasible[i]);
  std::sort(good.begin(), good.end());
  std::vector<bool> is_good(points.size(), false);
  for (size_t i : good) is_good[i] = true;
  for (size_t i = 0; i < points.size(); ++i)
    if (!is_good[i]) out.bad.push_back(i);
  out.good = std::move(good);
  return out;
}

}  // namespace sweep

namespace sweep {

FinishedSplit SplitFinishedTrials(const std::vector<const Trial*>& all,
                                  const std::vector<double>& goals, int64_t n_good) {
  std::vector<SplitPoint> points;
  std::vector<const Trial*> trials, stopped;
  for (const Trial* t : all) {
    // A stopped trial's values are partial: it is bad, as a running one.
    if (t->status == TrialStatus::kStopped) stopped.push_back(t);
    if (t->status != TrialStatus::kCompleted) continue;
    if (t->objectives.size() != goals.size()) continue;
    SplitPoint p{Minimised(t->objectives, goals), t->violation};
    if (!std::all_of(p.f.begin(), p.f.end(), [](double v) { return std::isfinite(v); })) continue;
    points.push_back(std::move(p));
    trials.push_back(t);
  }
  TpeSplit split = SplitForTpe(points, static_cast<size_t>(std::max<int64_t>(n_good, 0)));
  FinishedSplit out;
  int infeasible = 0;
  for (size_t i : split.good) {
    out.good.push_back(trials[i]);
    infeasible += points[i].violation > 0;
  }
  for (size_t i : split.bad) out.bad.push_back(trials[i]);
  out.bad.insert(out.bad.end(), stopped.begin(), stopped.end());
  const bool several = goals.size() > 1;
  out.what = std::string(several ? "MOTPE" : "TPE") + ": " + std::to_string(out.good.size()) +
             " good" + (several ? " (by Pareto rank, then hypervolume)" : "") + " and " +
             std::to_string(out.bad.size()) + " bad trials";
  if (infeasible > 0)
    out.what +=
        "; " + std::to_string(infeasible) + " good ones are infeasible (too few are feasible)";
  std::string numbers;
  for (size_t i = 0; i < out.good.size() && i < 5; ++i)
    numbers += (i ? ", " : "") + std::to_string(out.good[i]->number);
  if (!out.good.empty())
    out.what += "; good: trial " + numbers + (out.good.size() > 5 ? ", ..." : "");
  return out;
}

}  // namespace sweep
