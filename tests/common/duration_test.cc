#include "common/duration.h"

#include <gtest/gtest.h>

namespace sweep {
namespace {

TEST(DurationTest, ReadsWhatPeopleWrite) {
  EXPECT_EQ(*ParseDuration("90s"), 90);
  EXPECT_EQ(*ParseDuration("30m"), 1800);
  EXPECT_EQ(*ParseDuration("2h"), 7200);
  EXPECT_EQ(*ParseDuration("1h30m"), 5400);
  EXPECT_EQ(*ParseDuration("1.5d"), 129600);
}

TEST(DurationTest, RefusesWhatIsAmbiguousOrOdd) {
  for (const char* bad :
       {"", "90", "2 h", "h", "3w", "0s", "0.5s", "400d", "1h30", "1..5h", "-1h"}) {
    auto d = ParseDuration(bad);
    ASSERT_FALSE(d.ok()) << bad;
    EXPECT_NE(d.status().message().find("write 90s, 30m, 2h or 1h30m"), std::string::npos);
  }
  EXPECT_NE(ParseDuration("90").status().message().find("'90' has no unit"), std::string::npos);
}

TEST(DurationTest, WritesTheShortestSpelling) {
  EXPECT_EQ(DurationText(7200), "2h");
  EXPECT_EQ(DurationText(5400), "1h30m");
  EXPECT_EQ(DurationText(45), "45s");
  EXPECT_EQ(DurationText(0), "0s");
  EXPECT_EQ(DurationText(90061), "1d1h1m1s");
}

}  // namespace
}  // namespace sweep
