// Local runner supervision: the restart back-off for runners that keep dying.
#include "tuner/local_runners.h"

#include <gtest/gtest.h>

namespace sweep {
namespace {

TEST(LocalRunnersTest, RestartBackOffDoublesWithQuickDeathsUpToThirtySeconds) {
  EXPECT_EQ(RestartDelayMs(0), 1000);
  EXPECT_EQ(RestartDelayMs(1), 1000);
  EXPECT_EQ(RestartDelayMs(2), 2000);
  EXPECT_EQ(RestartDelayMs(3), 4000);
  EXPECT_EQ(RestartDelayMs(5), 16000);
  EXPECT_EQ(RestartDelayMs(6), 30000);
  EXPECT_EQ(RestartDelayMs(100), 30000);
}

}  // namespace
}  // namespace sweep
