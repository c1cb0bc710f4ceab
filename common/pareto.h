// Pareto fronts for several objectives, every one minimised (a caller
// negates one that is maximised): non-dominated sorting, crowding distance
// and hypervolume. Pure functions, shared by the tuner's search and the
// readers that show a front (sweep best, the dashboard).
//
// Domination is constrained domination (Deb, 2000), as NSGA-II and Optuna
// use it: a feasible point (violation 0) dominates every infeasible one; of
// two infeasible points the one with the smaller total violation dominates;
// of two feasible points, Pareto dominance decides (no worse in every
// objective, better in one).
#pragma once

#include <cstddef>
#include <vector>

namespace sweep {

struct ParetoPoint {
  std::vector<double> f;  // objectives, minimised
  double violation = 0;   // total constraint violation; 0: feasible
};

bool ParetoDominates(const std::vector<double>& a, const std::vector<double>& b);
bool ConstrainedDominates(const ParetoPoint& a, const ParetoPoint& b);

// The points split into fronts by constrained domination: fronts[0] holds
// the indices of the points nothing dominates, fronts[1] those only
// fronts[0] dominates, and so on (Deb et al. 2002's fast non-dominated
// sort). Each front in ascending index order.
std::vector<std::vector<size_t>> NonDominatedFronts(const std::vector<ParetoPoint>& points);

// The crowding distance of each member of `front` (indices into `points`,
// the result in the same order): the sum over objectives of the gap between
// its neighbours, each gap divided by the front's range in that objective;
// infinite for a front's extremes (and for every member of a front of two
// or fewer).
std::vector<double> CrowdingDistances(const std::vector<ParetoPoint>& points,
                                      const std::vector<size_t>& front);

// The volume of the region that the points dominate and that `reference`
// bounds: the hypervolume indicator. A point not strictly better than the
// reference in every objective adds nothing. Exact, by slicing along the
// last objective (2-D: one sweep); fine for fronts of hundreds of points in
// up to 4 objectives.
double Hypervolume(std::vector<std::vector<double>> points, const std::vector<double>& reference);

}  // namespace sweep
