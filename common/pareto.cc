// Non-dominated sorting, crowding distance and hypervolume.
#include "common/pareto.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sweep {

bool ParetoDominates(const std::vector<double>& a, const std::vector<double>& b) {
  bool better = false;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] > b[i]) return false;
    if (a[i] < b[i]) better = true;
  }
  return better;
}

bool ConstrainedDominates(const ParetoPoint& a, const ParetoPoint& b) {
  const bool fa = a.violation <= 0, fb = b.violation <= 0;
  if (fa != fb) return fa;
  if (!fa) return a.violation < b.violation;
  return ParetoDominates(a.f, b.f);
}

std::vector<std::vector<size_t>> NonDominatedFronts(const std::vector<ParetoPoint>& points) {
  const size_t n = points.size();
  std::vector<std::vector<size_t>> dominated(n);  // the points each one dominates
  std::vector<size_t> count(n, 0);                // how many dominate each one
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (ConstrainedDominates(points[i], points[j])) {
        dominated[i].push_back(j);
        ++count[j];
      } else if (ConstrainedDominates(points[j], points[i])) {
        dominated[j].push_back(i);
        ++count[i];
      }
    }
  }
  std::vector<std::vector<size_t>> fronts;
  std::vector<size_t> current;
  for (size_t i = 0; i < n; ++i)
    if (count[i] == 0) current.push_back(i);
  while (!current.empty()) {
    std::vector<size_t> next;
    for (size_t i : current)
      for (size_t j : dominated[i])
        if (--count[j] == 0) next.push_back(j);
    std::sort(next.begin(), next.end());
    fronts.push_back(std::move(current));
    current = std::move(next);
  }
  return fronts;
}

std::vector<double> CrowdingDistances(const std::vector<ParetoPoint>& points,
                                      const std::vector<size_t>& front) {
  const double inf = std::numeric_limits<double>::infinity();
  const size_t n = front.size();
  std::vector<double> out(n, 0.0);
  if (n <= 2) return std::vector<double>(n, inf);
  const size_t m = points[front[0]].f.size();
  std::vector<size_t> order(n);
  for (size_t k = 0; k < m; ++k) {
    for (size_t i = 0; i < n; ++i) order[i] = i;
    auto f = [&](size_t i) { return points[front[i]].f[k]; };
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return f(a) < f(b); });
    out[order.front()] = inf;
    out[order.back()] = inf;
    const double range = f(order.back()) - f(order.front());
    if (!(range > 0)) continue;
    for (size_t i = 1; i + 1 < n; ++i) out[order[i]] += (f(order[i + 1]) - f(order[i - 1])) / range;
  }
  return out;
}

namespace {

// Points all strictly inside the reference box, `d` objectives each.
double SlicedVolume(std::vector<std::vector<double>> pts, const std::vector<double>& ref,
                    size_t d) {
  if (pts.empty()) return 0;
  if (d == 1) {
    double lo = pts[0][0];
    for (const auto& p : pts) lo = std::min(lo, p[0]);
    return ref[0] - lo;
  }
  // Sorted along the last objective: between one point's value and the
  // next, the slice's cross-section is the (d-1)-volume of the points so far.
  std::sort(pts.begin(), pts.end(),
            [d](const auto& a, const auto& b) { return a[d - 1] < b[d - 1]; });
  double volume = 0;
  if (d == 2) {
    double best = ref[0];  // the smallest first objective so far
    for (size_t i = 0; i < pts.size(); ++i) {
      best = std::min(best, pts[i][0]);
      double next = i + 1 < pts.size() ? pts[i + 1][1] : ref[1];
      volume += (next - pts[i][1]) * (ref[0] - best);
    }
    return volume;
  }
  std::vector<std::vector<double>> below;
  for (size_t i = 0; i < pts.size(); ++i) {
    below.push_back(pts[i]);
    double next = i + 1 < pts.size() ? pts[i + 1][d - 1] : ref[d - 1];
    if (next > pts[i][d - 1]) volume += (next - pts[i][d - 1]) * SlicedVolume(below, ref, d - 1);
  }
  return volume;
}

}  // namespace

double Hypervolume(std::vector<std::vector<double>> points, const std::vector<double>& reference) {
  const size_t d = reference.size();
  if (d == 0) return 0;
  // Only points inside the box count, and only the non-dominated ones
  // shape the region: dropping the others first keeps the slices small.
  std::vector<ParetoPoint> inside;
  for (auto& p : points) {
    if (p.size() != d) continue;
    bool in = true;
    for (size_t k = 0; k < d; ++k) in = in && p[k] < reference[k];
    if (in) inside.push_back({std::move(p), 0});
  }
  if (inside.empty()) return 0;
  std::vector<std::vector<double>> front;
  const std::vector<std::vector<size_t>> fronts = NonDominatedFronts(inside);
  for (size_t i : fronts[0]) front.push_back(inside[i].f);
  return SlicedVolume(std::move(front), reference, d);
}

}  // namespace sweep
