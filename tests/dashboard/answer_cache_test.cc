// The shared cache of API answers: kept for one database version, emptied
// by another, and never past its byte budget.
#include "dashboard/answer_cache.h"

#include <gtest/gtest.h>

#include <string>

namespace sweep {
namespace {

TEST(AnswerCacheTest, AnswersHoldForTheirVersionOnly) {
  AnswerCache cache(1 << 20);
  cache.Put(7, "/api/studies/1/trials", "[1]");
  ASSERT_NE(cache.Find(7, "/api/studies/1/trials"), nullptr);
  EXPECT_EQ(*cache.Find(7, "/api/studies/1/trials"), "[1]");
  EXPECT_EQ(cache.Find(7, "/api/studies/2/trials"), nullptr);
  EXPECT_EQ(cache.Find(8, "/api/studies/1/trials"), nullptr);
  // A new version starts over: the old answer is gone for good.
  cache.Put(8, "/api/studies/1/curves", "[2]");
  EXPECT_EQ(cache.Find(7, "/api/studies/1/trials"), nullptr);
  EXPECT_EQ(cache.Find(8, "/api/studies/1/trials"), nullptr);
  EXPECT_EQ(*cache.Find(8, "/api/studies/1/curves"), "[2]");
}

TEST(AnswerCacheTest, AnAnswerPastTheBudgetIsServedButNotKept) {
  AnswerCache cache(100);
  auto kept = cache.Put(1, "/a", std::string(50, 'x'));
  auto big = cache.Put(1, "/b", std::string(60, 'y'));
  EXPECT_EQ(kept->size(), 50u);
  EXPECT_EQ(big->size(), 60u);  // the caller still has it to send
  EXPECT_NE(cache.Find(1, "/a"), nullptr);
  EXPECT_EQ(cache.Find(1, "/b"), nullptr);
  EXPECT_LE(cache.bytes(), 100u);
}

TEST(AnswerCacheTest, TheFirstAnswerForAPathStays) {
  AnswerCache cache(1 << 20);
  cache.Put(3, "/a", "first");
  auto second = cache.Put(3, "/a", "second");
  EXPECT_EQ(*second, "second");
  EXPECT_EQ(*cache.Find(3, "/a"), "first");
}

}  // namespace
}  // namespace sweep
