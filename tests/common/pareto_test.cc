// Non-dominated sorting, crowding, constrained domination and hypervolume,
// against fronts worked out by hand.
#include "common/pareto.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/rng.h"

namespace sweep {
namespace {

const double kInf = std::numeric_limits<double>::infinity();

TEST(Pareto, DominanceNeedsNoWorseEverywhereAndBetterSomewhere) {
  EXPECT_TRUE(ParetoDominates({1, 2}, {1, 3}));
  EXPECT_FALSE(ParetoDominates({1, 3}, {1, 3}));  // equal: neither
  EXPECT_FALSE(ParetoDominates({0, 4}, {1, 3}));  // a trade-off
  EXPECT_FALSE(ParetoDominates({1, 3}, {0, 4}));
}

TEST(Pareto, ConstrainedDominationPutsFeasibleFirstThenLeastViolation) {
  ParetoPoint good{{5, 5}, 0}, slightly{{0, 0}, 0.1}, badly{{0, 0}, 2};
  EXPECT_TRUE(ConstrainedDominates(good, slightly));  // worse objectives, but feasible
  EXPECT_FALSE(ConstrainedDominates(slightly, good));
  EXPECT_TRUE(ConstrainedDominates(slightly, badly));
  EXPECT_FALSE(ConstrainedDominates(badly, slightly));
  EXPECT_FALSE(ConstrainedDominates(badly, ParetoPoint{{9, 9}, 2}));  // equal violation
}

TEST(Pareto, FrontsByHand) {
  // 0 (1,4), 1 (2,2), 2 (4,1) trade off; 3 (3,3) is dominated by 1 only;
  // 4 (4,4) by 1 and 3 (and 0, 2); 5 is infeasible, after every feasible one.
  std::vector<ParetoPoint> p = {{{1, 4}, 0}, {{2, 2}, 0}, {{4, 1}, 0},
                                {{3, 3}, 0}, {{4, 4}, 0}, {{0, 0}, 1}};
  auto fronts = NonDominatedFronts(p);
  ASSERT_EQ(fronts.size(), 4u);
  EXPECT_EQ(fronts[0], (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(fronts[1], (std::vector<size_t>{3}));
  EXPECT_EQ(fronts[2], (std::vector<size_t>{4}));
  EXPECT_EQ(fronts[3], (std::vector<size_t>{5}));
  EXPECT_TRUE(NonDominatedFronts({}).empty());
}

TEST(Pareto, FrontsAgreeWithTheDefinitionOnRandomPoints) {
  Rng rng(7);
  std::vector<ParetoPoint> p;
  for (int i = 0; i < 200; ++i)
    p.push_back({{rng.Uniform(), rng.Uniform(), rng.Uniform()}, rng.Uniform() < 0.2 ? 1.0 : 0});
  auto fronts = NonDominatedFronts(p);
  std::vector<int> rank(p.size(), -1);
  size_t total = 0;
  for (size_t r = 0; r < fronts.size(); ++r) {
    total += fronts[r].size();
    for (size_t i : fronts[r]) rank[i] = static_cast<int>(r);
  }
  ASSERT_EQ(total, p.size());
  for (size_t i = 0; i < p.size(); ++i) {
    bool dominated_by_previous = rank[i] == 0;
    for (size_t j = 0; j < p.size(); ++j) {
      // Nothing in its own or a later front dominates a point...
      if (rank[j] >= rank[i]) EXPECT_FALSE(ConstrainedDominates(p[j], p[i])) << i << " " << j;
      // ...and something in the front just before does.
      if (rank[j] == rank[i] - 1 && ConstrainedDominates(p[j], p[i])) dominated_by_previous = true;
    }
    EXPECT_TRUE(dominated_by_previous) << i;
  }
}

TEST(Pareto, CrowdingByHand) {
  // Sorted by f0: (0,4) (1,2) (3,1) (4,0); ranges 4 and 4.
  std::vector<ParetoPoint> p = {{{1, 2}, 0}, {{4, 0}, 0}, {{0, 4}, 0}, {{3, 1}, 0}};
  auto d = CrowdingDistances(p, {0, 1, 2, 3});
  EXPECT_DOUBLE_EQ(d[0], (3.0 - 0.0) / 4 + (4.0 - 1.0) / 4);  // neighbours (0,4) and (3,1)
  EXPECT_EQ(d[1], kInf);
  EXPECT_EQ(d[2], kInf);
  EXPECT_DOUBLE_EQ(d[3], (4.0 - 1.0) / 4 + (2.0 - 0.0) / 4);
  auto two = CrowdingDistances(p, {0, 1});
  EXPECT_EQ(two[0], kInf);
  EXPECT_EQ(two[1], kInf);
}

TEST(Pareto, HypervolumeIn2DByHand) {
  // The staircase (1,3) (2,2) (3,1) under (4,4): 1 + 2 + 3.
  EXPECT_DOUBLE_EQ(Hypervolume({{1, 3}, {2, 2}, {3, 1}}, {4, 4}), 6);
  // A dominated point, a repeated one and one outside the box add nothing.
  EXPECT_DOUBLE_EQ(Hypervolume({{1, 3}, {2, 2}, {3, 1}, {3, 3}, {2, 2}, {5, 0}}, {4, 4}), 6);
  EXPECT_DOUBLE_EQ(Hypervolume({{4, 0}}, {4, 4}), 0);  // on the reference's edge
  EXPECT_DOUBLE_EQ(Hypervolume({}, {4, 4}), 0);
}

TEST(Pareto, HypervolumeIn3DByHand) {
  EXPECT_DOUBLE_EQ(Hypervolume({{0, 0, 0}}, {1, 2, 3}), 6);
  // Boxes of 2*2*1 and 1*1*2 that share a unit cube.
  EXPECT_DOUBLE_EQ(Hypervolume({{0, 0, 1}, {1, 1, 0}}, {2, 2, 2}), 5);
  // Three unit-thick slabs along each axis meeting in the corner:
  // 3 * 4 - 3 * 2 + 1 (inclusion-exclusion of 2x2x1 boxes).
  EXPECT_DOUBLE_EQ(Hypervolume({{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}, {2, 2, 2}), 7);
}

TEST(Pareto, HypervolumeIn4DMatchesMonteCarlo) {
  Rng rng(11);
  std::vector<std::vector<double>> pts;
  for (int i = 0; i < 12; ++i)
    pts.push_back({rng.Uniform(), rng.Uniform(), rng.Uniform(), rng.Uniform()});
  const double exact = Hypervolume(pts, {1, 1, 1, 1});
  int inside = 0;
  const int n = 200000;
  for (int s = 0; s < n; ++s) {
    std::vector<double> z = {rng.Uniform(), rng.Uniform(), rng.Uniform(), rng.Uniform()};
    for (const auto& p : pts) {
      if (p[0] <= z[0] && p[1] <= z[1] && p[2] <= z[2] && p[3] <= z[3]) {
        ++inside;
        break;
      }
    }
  }
  // The sampling error's standard deviation is below 0.0012.
  EXPECT_NEAR(exact, static_cast<double>(inside) / n, 0.005);
}

}  // namespace
}  // namespace sweep
