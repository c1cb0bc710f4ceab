// `sweep why`: the exact explanation of trials with and without lineage,
// failures, decisions and events.
#include "cli/why.h"

#include <gtest/gtest.h>

#include "tests/storage/store_fixture.h"

namespace sweep {
namespace {

class WhyTest : public StoreFixture {};

TEST_F(WhyTest, ExplainsStatusLineageDecisionsAndEvents) {
  int64_t a, b, c;
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Store* st = s->get();
    auto id = st->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    ASSERT_NO_FATAL_FAILURE(Insert(st, *id, 0, 0.25, &a));
    ASSERT_NO_FATAL_FAILURE(Insert(st, *id, 1, 0.5, &b, a, 3));
    ASSERT_NO_FATAL_FAILURE(Insert(st, *id, 2, 0.75, &c, a, 5));
    ASSERT_TRUE(st->Begin().ok());
    ASSERT_TRUE(st->MarkRunning(a, "r1", 1, 1, 2.0).ok());
    ASSERT_TRUE(st->AddDecision(a, 1, "continue", "top half at rung 0", 2.5).ok());
    ASSERT_TRUE(st->AddEvent(*id, a, "attempt_lost", "runner r1 went silent", 2.6).ok());
    ASSERT_TRUE(st->AddDecision(a, 3, "pause", "end of rung 1", 3.0).ok());
    ASSERT_TRUE(
        st->FinishTrial(a, TrialStatus::kCompleted, 0.125, 9, "{\"value\": 0.125}", "", 4.0).ok());
    ASSERT_TRUE(st->MarkRunning(b, "r2", 2, 2, 4.0).ok());
    ASSERT_TRUE(
        st->FinishTrial(b, TrialStatus::kFailed, std::nullopt, 4, "", "diverged", 5.0).ok());
    ASSERT_TRUE(st->Commit().ok());
  }
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string A = std::to_string(a), B = std::to_string(b), C = std::to_string(c);
  auto out = ExplainTrial(**r, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "trial 0 of study 's': completed at step 9 after 1 attempt(s); value = "
            "0.125\n"
            "params {\"x1\": 0.25}\n"
            "child: trial 1, copied at step 3\nchild: trial 2, copied at step 5\n"
            "decisions:\n"
            "  step 1  continue: top half at rung 0\n"
            "  step 3  pause: end of rung 1\n"
            "events:\n"
            "  attempt_lost: runner r1 went silent\n");
  out = ExplainTrial(**r, b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "trial 1 of study 's': failed at step 4 after 2 attempt(s); value = -\n"
            "params {\"x1\": 0.5}\n"
            "failure: diverged\n"
            "parent: trial 0, copied at step 3\n"
            "decisions: none (the algorithm let it run to its end)\n");
  out = ExplainTrial(**r, c);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "trial 2 of study 's': queued at step - after 0 attempt(s); value = -\n"
            "params {\"x1\": 0.75}\n"
            "parent: trial 0, copied at step 5\n"
            "decisions: none (the algorithm let it run to its end)\n");
}

TEST_F(WhyTest, TheSameExplanationAsJson) {
  int64_t a, b;
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Store* st = s->get();
    auto id = st->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    ASSERT_NO_FATAL_FAILURE(Insert(st, *id, 0, 0.25, &a));
    ASSERT_NO_FATAL_FAILURE(Insert(st, *id, 1, 0.5, &b, a, 3));
    ASSERT_TRUE(st->Begin().ok());
    ASSERT_TRUE(st->MarkRunning(a, "r1", 1, 1, 2.0).ok());
    ASSERT_TRUE(st->AddDecision(a, 3, "pause", "end of \"rung\" 1", 3.0).ok());
    ASSERT_TRUE(st->AddEvent(*id, a, "attempt_lost", "runner r1 went silent", 2.5).ok());
    ASSERT_TRUE(
        st->FinishTrial(a, TrialStatus::kCompleted, 0.125, 9, "{\"value\": 0.125}", "", 4.0).ok());
    ASSERT_TRUE(st->MarkRunning(b, "r2", 2, 2, 4.0).ok());
    ASSERT_TRUE(
        st->FinishTrial(b, TrialStatus::kFailed, std::nullopt, 4, "", "diverged", 5.0).ok());
    ASSERT_TRUE(st->Commit().ok());
  }
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::string A = std::to_string(a), B = std::to_string(b);
  auto out = ExplainTrialJson(**r, a);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "{\"id\":" + A +
                      ",\"number\":0,\"study\":\"s\",\"status\":\"completed\",\"step\":9,"
                      "\"attempts\":1,\"metric\":\"value\",\"value\":0.125,\"params\":{\"x1\": "
                      "0.25},\"failure\":null,\"parent\":null,\"children\":[{\"id\":" +
                      B +
                      ",\"number\":1,\"step\":3}],\"decisions\":[{\"step\":3,\"decision\":"
                      "\"pause\",\"reason\":\"end of \\\"rung\\\" 1\",\"at\":3}],\"events\":[{"
                      "\"kind\":\"attempt_lost\",\"detail\":\"runner r1 went silent\",\"at\":2.5}]}"
                      "\n");
  out = ExplainTrialJson(**r, b);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_NE(out->find("\"failure\":\"diverged\",\"parent\":{\"id\":" + A +
                      ",\"number\":0,\"step\":3},\"children\":[],\"decisions\":[]"),
            std::string::npos)
      << *out;
  EXPECT_TRUE(ExplainTrialJson(**r, 999).status().IsNotFound());
}

TEST_F(WhyTest, AMissingTrialIsNotFound) {
  {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    ASSERT_TRUE((*s)->OpenStudy(study_).ok());
  }
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto out = ExplainTrial(**r, 42);
  ASSERT_FALSE(out.ok());
  EXPECT_TRUE(out.status().IsNotFound());
  EXPECT_EQ(out.status().message(), "no trial 42 in this database");
}

}  // namespace
}  // namespace sweep
