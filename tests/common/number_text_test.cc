// Numbers on screen: one rule (6 significant digits, every digit before the
// point), reasons that never show different numbers alike, sizes in units.
#include "common/number_text.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace sweep {
namespace {

TEST(NumberTextTest, SixSignificantDigitsAndEveryDigitBeforeThePoint) {
  EXPECT_EQ(ScreenNumber(0.1 + 0.2), "0.3");
  EXPECT_EQ(ScreenNumber(3.14159265358979), "3.14159");
  EXPECT_EQ(ScreenNumber(1234567.891), "1234568");
  EXPECT_EQ(ScreenNumber(0.000123456789), "0.000123457");
  EXPECT_EQ(ScreenNumber(1.5e-7), "1.5e-07");
  EXPECT_EQ(ScreenNumber(2e20), "2e+20");
  EXPECT_EQ(ScreenNumber(0), "0");
  EXPECT_EQ(ScreenNumber(-42.0), "-42");
  EXPECT_EQ(ScreenNumber(std::nan("")), "nan");
  EXPECT_EQ(ScreenNumber(-std::numeric_limits<double>::infinity()), "-inf");
  // A column in scientific notation keeps 6 digits too.
  EXPECT_EQ(ScreenNumber(0.030264, false), "3.0264e-02");
}

TEST(NumberTextTest, NumbersAReasonComparesNeverReadAlike) {
  auto [a, b] = ScreenNumbersApart(0.9123456, 0.9123459);
  EXPECT_EQ(a, "0.9123456");
  EXPECT_EQ(b, "0.9123459");
  auto [c, d] = ScreenNumbersApart(0.5, 0.30000000000000004);
  EXPECT_EQ(c, "0.5");
  EXPECT_EQ(d, "0.3");
  auto [e, f] = ScreenNumbersApart(0.25, 0.25);
  EXPECT_EQ(e, "0.25");
  EXPECT_EQ(f, "0.25");
}

TEST(NumberTextTest, SizesInUnits) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(4 << 20), "4.0 MiB");
  EXPECT_EQ(HumanBytes(int64_t{12} << 20), "12 MiB");
  EXPECT_EQ(HumanBytes(int64_t{1288490189}), "1.2 GiB");
}

}  // namespace
}  // namespace sweep
