// Downsampling keeps the ends and the extremes of a curve, and never more
// points than asked for.
#include "dashboard/downsample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sweep {
namespace {

TEST(DownsampleTest, KeepsTheEndsAndASpike) {
  std::vector<XY> curve;
  for (int i = 0; i < 1000; ++i) curve.push_back({double(i), std::sin(i / 50.0)});
  curve[517].y = 40;
  auto out = Downsample(curve, 50);
  ASSERT_EQ(out.size(), 50u);
  EXPECT_EQ(out.front().x, 0);
  EXPECT_EQ(out.back().x, 999);
  bool spike = false;
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i].x == 517 && out[i].y == 40) spike = true;
    if (i) EXPECT_LT(out[i - 1].x, out[i].x);
  }
  EXPECT_TRUE(spike);
}

TEST(DownsampleTest, AShortCurveIsKeptWhole) {
  std::vector<XY> curve = {{1, 2}, {2, 3}, {3, 1}};
  auto out = Downsample(curve, 6);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[2].y, 1);
}

TEST(DownsampleTest, PointsWithoutAFiniteValueAreLeftOut) {
  std::vector<XY> curve;
  for (int i = 0; i < 100; ++i)
    curve.push_back({double(i), i % 10 == 0 ? std::numeric_limits<double>::quiet_NaN() : 1.0 * i});
  auto out = Downsample(curve, 10);
  EXPECT_EQ(out.size(), 10u);
  for (const XY& p : out) EXPECT_TRUE(std::isfinite(p.y));
  EXPECT_EQ(Downsample(curve, 1000).size(), 90u);
}

}  // namespace
}  // namespace sweep
