// The shared cache of API answers: kept for one database version, emptied
// by another, and never past its byte budget.
#include "dashboard/answer_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

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

TEST(AnswerCacheTest, AnAnswerIsComputedOnceHoweverManyAskAtOnce) {
  AnswerCache cache(1 << 20);
  std::atomic<int> computed{0};
  auto slow = [&]() -> Result<std::string> {
    ++computed;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    return std::string("[42]");
  };
  std::vector<std::thread> askers;
  std::atomic<int> right{0}, ready{0};
  for (int i = 0; i < 6; ++i) {
    askers.emplace_back([&] {
      ++ready;
      while (ready < 6) std::this_thread::yield();  // all ask at once
      auto got = cache.GetOrCompute(5, "/api/studies/1/curves", slow);
      if (got.ok() && **got == "[42]") ++right;
    });
  }
  for (auto& t : askers) t.join();
  EXPECT_EQ(computed.load(), 1);
  EXPECT_EQ(right.load(), 6);
  // Kept: the next asker does not compute.
  ASSERT_TRUE(cache.GetOrCompute(5, "/api/studies/1/curves", slow).ok());
  EXPECT_EQ(computed.load(), 1);
  // Another version computes again.
  ASSERT_TRUE(cache.GetOrCompute(6, "/api/studies/1/curves", slow).ok());
  EXPECT_EQ(computed.load(), 2);
}

TEST(AnswerCacheTest, AnErrorReachesEveryWaiterAndIsNotKept) {
  AnswerCache cache(1 << 20);
  std::atomic<int> computed{0};
  auto failing = [&]() -> Result<std::string> {
    ++computed;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    return Status::NotFound("no study 9");
  };
  std::atomic<int> not_found{0}, ready{0};
  std::vector<std::thread> askers;
  for (int i = 0; i < 4; ++i) {
    askers.emplace_back([&] {
      ++ready;
      while (ready < 4) std::this_thread::yield();
      auto got = cache.GetOrCompute(1, "/api/studies/9/trials", failing);
      if (!got.ok() && got.status().IsNotFound()) ++not_found;
    });
  }
  for (auto& t : askers) t.join();
  EXPECT_EQ(not_found.load(), 4);
  EXPECT_EQ(computed.load(), 1);
  EXPECT_EQ(cache.Find(1, "/api/studies/9/trials"), nullptr);
  EXPECT_FALSE(cache.GetOrCompute(1, "/api/studies/9/trials", failing).ok());
  EXPECT_EQ(computed.load(), 2);  // tried again
}

}  // namespace
}  // namespace sweep
