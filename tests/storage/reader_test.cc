// Reader's typed reads for `sweep why`: one trial with its study and lineage,
// its children, decisions and events; codes for missing and corrupt data.
#include "storage/reader.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "tests/storage/store_fixture.h"

namespace sweep {
namespace {

class ReaderTest : public StoreFixture {
 protected:
  // Trial `a` (number 0) ran to its end; `b` (number 1) and `c` (number 2)
  // were copied from it at steps 3 and 5; `b` failed.
  void Build() {
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    Store* st = s->get();
    auto id = st->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    study_id_ = *id;
    ASSERT_NO_FATAL_FAILURE(Insert(st, study_id_, 0, 0.25, &a_));
    ASSERT_NO_FATAL_FAILURE(Insert(st, study_id_, 1, 0.5, &b_, a_, 3));
    ASSERT_NO_FATAL_FAILURE(Insert(st, study_id_, 2, 0.75, &c_, a_, 5));
    ASSERT_TRUE(st->Begin().ok());
    ASSERT_TRUE(st->MarkRunning(a_, "r1", 1, 1, 2.0).ok());
    ASSERT_TRUE(st->AddDecision(a_, 1, "continue", "top half at rung 0", 2.5).ok());
    ASSERT_TRUE(st->AddEvent(study_id_, a_, "attempt_lost", "runner r1 went silent", 2.6).ok());
    ASSERT_TRUE(st->AddDecision(a_, 3, "pause", "end of rung 1", 3.0).ok());
    ASSERT_TRUE(st->AddEvent(study_id_, a_, "resumed", "from its checkpoint at step 3", 3.5).ok());
    ASSERT_TRUE(
        st->FinishTrial(a_, TrialStatus::kCompleted, 0.125, 9, "{\"value\": 0.125}", "", 4.0).ok());
    ASSERT_TRUE(st->MarkRunning(b_, "r2", 2, 2, 4.0).ok());
    ASSERT_TRUE(
        st->FinishTrial(b_, TrialStatus::kFailed, std::nullopt, 4, "", "diverged", 5.0).ok());
    ASSERT_TRUE(st->Commit().ok());
  }

  std::unique_ptr<Reader> Open() {
    auto r = Reader::Open(db_);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  int64_t study_id_ = 0, a_ = 0, b_ = 0, c_ = 0;
};

TEST_F(ReaderTest, TrialHasItsStudyFieldsAndLineage) {
  ASSERT_NO_FATAL_FAILURE(Build());
  auto r = Open();
  ASSERT_NE(r, nullptr);
  auto a = r->Trial(a_);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->study.id, study_id_);
  EXPECT_EQ(a->study.name, "s");
  EXPECT_EQ(a->study.metric, "value");
  EXPECT_FALSE(a->study.maximize);
  EXPECT_EQ(a->trial.id, a_);
  EXPECT_EQ(a->trial.number, 0);
  EXPECT_EQ(a->trial.status, TrialStatus::kCompleted);
  EXPECT_EQ(a->trial.step, 9);
  EXPECT_EQ(a->trial.value, 0.125);
  EXPECT_EQ(a->trial.attempts, 1);
  EXPECT_EQ(a->trial.runner, "r1");
  EXPECT_EQ(a->trial.failure, "");
  EXPECT_EQ(a->trial.metrics_json, "{\"value\": 0.125}");
  ASSERT_EQ(a->trial.metrics.size(), 1u);
  EXPECT_EQ(a->trial.metrics[0].first, "value");
  EXPECT_EQ(a->trial.metrics[0].second, 0.125);
  ASSERT_EQ(a->trial.params.params_size(), 1);
  EXPECT_EQ(a->trial.params.params(0).name(), "x1");
  EXPECT_EQ(a->params_json, "{\"x1\": 0.25}");
  EXPECT_FALSE(a->trial.parent);
  EXPECT_FALSE(a->trial.parent_step);
  EXPECT_FALSE(a->trial.parent_number);

  auto b = r->Trial(b_);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->trial.status, TrialStatus::kFailed);
  EXPECT_EQ(b->trial.failure, "diverged");
  EXPECT_FALSE(b->trial.value);
  EXPECT_EQ(b->trial.step, 4);
  EXPECT_EQ(b->trial.attempts, 2);
  EXPECT_EQ(b->trial.parent, a_);
  EXPECT_EQ(b->trial.parent_step, 3);
  EXPECT_EQ(b->trial.parent_number, 0);

  auto c = r->Trial(c_);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->trial.status, TrialStatus::kQueued);
  EXPECT_FALSE(c->trial.step);
  EXPECT_FALSE(c->trial.value);
  EXPECT_EQ(c->trial.attempts, 0);
  EXPECT_TRUE(c->trial.metrics.empty());
}

TEST_F(ReaderTest, ATrialIsFoundByItsNumberInItsStudy) {
  ASSERT_NO_FATAL_FAILURE(Build());
  auto r = Open();
  ASSERT_NE(r, nullptr);
  auto study = r->ResolveStudy("");
  ASSERT_TRUE(study.ok()) << study.status().message();
  auto id = r->TrialId(*study, 2);
  ASSERT_TRUE(id.ok()) << id.status().message();
  EXPECT_EQ(*id, c_);
  auto missing = r->TrialId(*study, 3);
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_NE(missing.status().message().find("no trial 3 (its trials are 0 to 2)"),
            std::string::npos)
      << missing.status().message();
}

TEST_F(ReaderTest, AMissingTrialIsNotFound) {
  ASSERT_NO_FATAL_FAILURE(Build());
  auto r = Open();
  ASSERT_NE(r, nullptr);
  auto t = r->Trial(c_ + 100);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().IsNotFound()) << t.status().message();
  EXPECT_NE(t.status().message().find("trial " + std::to_string(c_ + 100)), std::string::npos);
  // The lists of a missing trial are empty, not errors.
  auto kids = r->Children(c_ + 100);
  ASSERT_TRUE(kids.ok());
  EXPECT_TRUE(kids->empty());
  auto d = r->Decisions(c_ + 100);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(d->empty());
  auto e = r->Events(c_ + 100);
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->empty());
}

TEST_F(ReaderTest, ChildrenComeInIdOrderWithTheirSteps) {
  ASSERT_NO_FATAL_FAILURE(Build());
  auto r = Open();
  ASSERT_NE(r, nullptr);
  auto kids = r->Children(a_);
  ASSERT_TRUE(kids.ok()) << kids.status().message();
  ASSERT_EQ(kids->size(), 2u);
  EXPECT_EQ((*kids)[0].id, b_);
  EXPECT_EQ((*kids)[0].number, 1);
  EXPECT_EQ((*kids)[0].parent_step, 3);
  EXPECT_EQ((*kids)[1].id, c_);
  EXPECT_EQ((*kids)[1].number, 2);
  EXPECT_EQ((*kids)[1].parent_step, 5);
  auto none = r->Children(b_);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(ReaderTest, DecisionsAndEventsComeInTheOrderWritten) {
  ASSERT_NO_FATAL_FAILURE(Build());
  auto r = Open();
  ASSERT_NE(r, nullptr);
  auto d = r->Decisions(a_);
  ASSERT_TRUE(d.ok()) << d.status().message();
  ASSERT_EQ(d->size(), 2u);
  EXPECT_EQ((*d)[0].step, 1);
  EXPECT_EQ((*d)[0].decision, "continue");
  EXPECT_EQ((*d)[0].reason, "top half at rung 0");
  EXPECT_DOUBLE_EQ((*d)[0].at, 2.5);
  EXPECT_EQ((*d)[1].step, 3);
  EXPECT_EQ((*d)[1].decision, "pause");
  EXPECT_LT((*d)[0].id, (*d)[1].id);
  auto e = r->Events(a_);
  ASSERT_TRUE(e.ok()) << e.status().message();
  ASSERT_EQ(e->size(), 2u);
  EXPECT_EQ((*e)[0].kind, "attempt_lost");
  EXPECT_EQ((*e)[0].detail, "runner r1 went silent");
  EXPECT_DOUBLE_EQ((*e)[0].at, 2.6);
  EXPECT_EQ((*e)[1].kind, "resumed");
  EXPECT_EQ((*e)[1].detail, "from its checkpoint at step 3");
  auto none = r->Decisions(b_);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_F(ReaderTest, CorruptParametersAreCorruption) {
  ASSERT_NO_FATAL_FAILURE(Build());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_.c_str(), &raw), SQLITE_OK);
  std::string sql = "UPDATE trials SET params_pb = x'0aff' WHERE id = " + std::to_string(c_);
  ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(raw);
  ASSERT_EQ(sqlite3_close(raw), SQLITE_OK);
  auto r = Open();
  ASSERT_NE(r, nullptr);
  auto t = r->Trial(c_);
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().IsCorruption()) << t.status().message();
  EXPECT_NE(t.status().message().find("trial " + std::to_string(c_)), std::string::npos);
  EXPECT_NE(t.status().message().find("params_pb"), std::string::npos);
  auto kids = r->Children(a_);
  ASSERT_FALSE(kids.ok());
  EXPECT_TRUE(kids.status().IsCorruption());
  // Other trials still read.
  EXPECT_TRUE(r->Trial(a_).ok());
}

}  // namespace
}  // namespace sweep
