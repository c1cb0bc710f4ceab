// Store writes that a resumed tuner depends on: LoadHistory's commit order,
// Pause then Requeue, and RequeueRunning after a restart.
#include <gtest/gtest.h>

#include <cmath>

#include "storage/reader.h"
#include "tests/storage/store_fixture.h"

namespace sweep {
namespace {

using Kind = Store::HistoryEvent::Kind;

class HistoryTest : public StoreFixture {
 protected:
  void SetUp() override {
    StoreFixture::SetUp();
    auto s = Store::Open(db_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(s).value();
    auto id = store_->OpenStudy(study_);
    ASSERT_TRUE(id.ok()) << id.status().message();
    study_id_ = *id;
  }
  void TearDown() override {
    store_.reset();
    StoreFixture::TearDown();
  }

  const TrialRecord* Find(const std::vector<TrialRecord>& all, int64_t id) {
    for (const auto& t : all) {
      if (t.id == id) return &t;
    }
    ADD_FAILURE() << "no trial " << id;
    return nullptr;
  }

  std::unique_ptr<Store> store_;
  int64_t study_id_ = 0;
};

TEST_F(HistoryTest, LoadHistoryGivesReportsCheckpointsAndEndsInCommitOrder) {
  pb::Study other = study_;
  other.set_name("other");
  auto other_id = store_->OpenStudy(other);
  ASSERT_TRUE(other_id.ok()) << other_id.status().message();
  int64_t t0, t1, t2, x;
  ASSERT_NO_FATAL_FAILURE(Insert(store_.get(), study_id_, 0, 0.1, &t0));
  ASSERT_NO_FATAL_FAILURE(Insert(store_.get(), study_id_, 1, 0.2, &t1));
  ASSERT_NO_FATAL_FAILURE(Insert(store_.get(), study_id_, 2, 0.3, &t2));
  ASSERT_NO_FATAL_FAILURE(Insert(store_.get(), *other_id, 0, 0.4, &x));
  Store* s = store_.get();
  // One transaction per loop turn, as the tuner writes them.
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->MarkRunning(t0, "r1", 1, 1, 1.0).ok());
  ASSERT_TRUE(s->MarkRunning(t1, "r2", 2, 1, 1.0).ok());
  ASSERT_TRUE(s->MarkRunning(t2, "r3", 3, 1, 1.0).ok());
  ASSERT_TRUE(s->MarkRunning(x, "r4", 4, 1, 1.0).ok());
  ASSERT_TRUE(s->InsertReport(t0, 1, 1, "value", 0.9, 1.0).ok());
  ASSERT_TRUE(s->InsertReport(t0, 1, 1, "loss", 5.0, 1.0).ok());  // not the metric asked for
  ASSERT_TRUE(s->InsertReport(x, 1, 1, "value", 0.0, 1.0).ok());  // another study
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->InsertReport(t1, 1, 1, "value", 0.8, 2.0).ok());
  ASSERT_TRUE(s->RecordCheckpoint(t0, 1, "/ck/0", 10, 77, 2.0).ok());
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->FinishTrial(t1, TrialStatus::kCompleted, 0.8, 1, "{}", "", 3.0).ok());
  ASSERT_TRUE(s->InsertReport(t0, 1, 2, "value", 0.7, 3.0).ok());
  // A step's checkpoint stored again (after an unreadable one) keeps its
  // first time, and so its place in the history.
  ASSERT_TRUE(s->RecordCheckpoint(t0, 1, "/ck/0b", 12, 78, 3.0).ok());
  ASSERT_TRUE(s->Pause(t2, 1, 0, std::nullopt, true).ok());  // a pause is no end
  ASSERT_TRUE(s->Commit().ok());
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->FinishTrial(t0, TrialStatus::kStopped, 0.7, 2, "", "", 4.0).ok());
  ASSERT_TRUE(s->FinishTrial(x, TrialStatus::kFailed, std::nullopt, 1, "", "boom", 4.0).ok());
  ASSERT_TRUE(s->Commit().ok());

  auto h = s->LoadHistory(study_id_, "value");
  ASSERT_TRUE(h.ok()) << h.status().message();
  struct Want {
    Kind kind;
    int64_t number, step;
    double value;  // NaN: none
  };
  const double kNone = std::nan("");
  // Within one commit: checkpoints, then reports, then ends.
  std::vector<Want> want = {{Kind::kReport, 0, 1, 0.9}, {Kind::kCheckpoint, 0, 1, kNone},
                            {Kind::kReport, 1, 1, 0.8}, {Kind::kReport, 0, 2, 0.7},
                            {Kind::kEnd, 1, 1, kNone},  {Kind::kEnd, 0, 2, kNone}};
  ASSERT_EQ(h->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("event " + std::to_string(i));
    EXPECT_EQ((*h)[i].kind, want[i].kind);
    EXPECT_EQ((*h)[i].number, want[i].number);
    EXPECT_EQ((*h)[i].step, want[i].step);
    if (std::isnan(want[i].value)) {
      EXPECT_TRUE(std::isnan((*h)[i].value)) << (*h)[i].value;
    } else {
      EXPECT_DOUBLE_EQ((*h)[i].value, want[i].value);
    }
  }
  // The history survives a reopen unchanged.
  store_.reset();
  auto again = Store::Open(db_);
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto h2 = (*again)->LoadHistory(study_id_, "value");
  ASSERT_TRUE(h2.ok()) << h2.status().message();
  ASSERT_EQ(h2->size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ((*h2)[i].kind, want[i].kind);
}

TEST_F(HistoryTest, ARetriedStepReportsEachAttempt) {
  int64_t t0;
  ASSERT_NO_FATAL_FAILURE(Insert(store_.get(), study_id_, 0, 0.1, &t0));
  Store* s = store_.get();
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->InsertReport(t0, 2, 1, "value", 0.6, 5.0).ok());
  ASSERT_TRUE(s->InsertReport(t0, 1, 1, "value", 0.5, 5.0).ok());
  ASSERT_TRUE(s->Commit().ok());
  auto h = s->LoadHistory(study_id_, "value");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h->size(), 2u);
  EXPECT_DOUBLE_EQ((*h)[0].value, 0.5);  // attempt 1 first
  EXPECT_DOUBLE_EQ((*h)[1].value, 0.6);
}

TEST_F(HistoryTest, PauseKeepsStepValueAndCheckpointAndRequeueResumesIt) {
  int64_t t0;
  ASSERT_NO_FATAL_FAILURE(Insert(store_.get(), study_id_, 0, 0.1, &t0));
  Store* s = store_.get();
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->MarkRunning(t0, "r1", 7, 1, 1.0).ok());
  ASSERT_TRUE(s->SetProgress(t0, 3, 0.5).ok());
  ASSERT_TRUE(s->RecordCheckpoint(t0, 3, "/ck/t0", 100, 1234, 1.5).ok());
  ASSERT_TRUE(s->Pause(t0, 1, 3, 0.5, true).ok());
  ASSERT_TRUE(s->Commit().ok());
  auto trials = s->LoadTrials(study_id_);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  const TrialRecord* t = Find(*trials, t0);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->status, TrialStatus::kPaused);
  EXPECT_EQ(t->step, 3);
  EXPECT_EQ(t->value, 0.5);
  EXPECT_EQ(t->attempts, 1);
  EXPECT_EQ(t->checkpoint_path, "/ck/t0");
  EXPECT_EQ(t->checkpoint_step, 3);
  EXPECT_EQ(t->checkpoint_checksum, 1234u);
  {
    auto r = Reader::Open(db_);
    ASSERT_TRUE(r.ok()) << r.status().message();
    auto v = (*r)->Trial(t0);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_EQ(v->trial.runner, "");  // a paused trial holds no runner
    auto lease = (*r)->Query("SELECT lease FROM trials WHERE id = " + std::to_string(t0));
    ASSERT_TRUE(lease.ok());
    EXPECT_TRUE(std::holds_alternative<std::monostate>(lease->rows.at(0).at(0)));
  }

  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->Requeue(t0, 1, true).ok());
  ASSERT_TRUE(s->Commit().ok());
  trials = s->LoadTrials(study_id_);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  t = Find(*trials, t0);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->status, TrialStatus::kQueued);
  EXPECT_EQ(t->attempts, 1);
  EXPECT_EQ(t->step, 3);  // where it resumes from
  EXPECT_EQ(t->checkpoint_path, "/ck/t0");
  EXPECT_EQ(t->checkpoint_step, 3);

  // Running again starts a new segment: progress is cleared until it reports.
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->MarkRunning(t0, "r2", 8, 2, 2.0).ok());
  ASSERT_TRUE(s->Commit().ok());
  trials = s->LoadTrials(study_id_);
  ASSERT_TRUE(trials.ok());
  t = Find(*trials, t0);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->status, TrialStatus::kRunning);
  EXPECT_EQ(t->attempts, 2);
  EXPECT_FALSE(t->value);
  EXPECT_EQ(t->checkpoint_step, 3);
}

// A killed tuner's running trials are queued with their attempts kept and
// marked interrupted: each goes on as the same attempt when it runs again.
TEST_F(HistoryTest, RequeueRunningQueuesRunningTrialsAndKeepsTheirAttempt) {
  pb::Study other = study_;
  other.set_name("other");
  auto other_id = store_->OpenStudy(other);
  ASSERT_TRUE(other_id.ok()) << other_id.status().message();
  int64_t twice, once, never, done, queued, paused, elsewhere;
  Store* s = store_.get();
  ASSERT_NO_FATAL_FAILURE(Insert(s, study_id_, 0, 0.1, &twice));
  ASSERT_NO_FATAL_FAILURE(Insert(s, study_id_, 1, 0.2, &once));
  ASSERT_NO_FATAL_FAILURE(Insert(s, study_id_, 2, 0.3, &never));
  ASSERT_NO_FATAL_FAILURE(Insert(s, study_id_, 3, 0.4, &done));
  ASSERT_NO_FATAL_FAILURE(Insert(s, study_id_, 4, 0.5, &queued));
  ASSERT_NO_FATAL_FAILURE(Insert(s, study_id_, 5, 0.6, &paused));
  ASSERT_NO_FATAL_FAILURE(Insert(s, *other_id, 0, 0.7, &elsewhere));
  ASSERT_TRUE(s->Begin().ok());
  ASSERT_TRUE(s->MarkRunning(twice, "r1", 1, 2, 1.0).ok());
  ASSERT_TRUE(s->MarkRunning(once, "r2", 2, 1, 1.0).ok());
  ASSERT_TRUE(s->MarkRunning(never, "r3", 3, 0, 1.0).ok());
  ASSERT_TRUE(s->MarkRunning(done, "r4", 4, 1, 1.0).ok());
  ASSERT_TRUE(s->FinishTrial(done, TrialStatus::kCompleted, 0.4, 9, "{}", "", 2.0).ok());
  ASSERT_TRUE(s->MarkRunning(paused, "r5", 5, 3, 1.0).ok());
  ASSERT_TRUE(s->Pause(paused, 3, 2, 0.6, true).ok());
  ASSERT_TRUE(s->MarkRunning(elsewhere, "r6", 6, 1, 1.0).ok());
  ASSERT_TRUE(s->Commit().ok());

  ASSERT_TRUE(s->Begin().ok());
  auto n = s->RequeueRunning(study_id_, 3.0);
  ASSERT_TRUE(n.ok()) << n.status().message();
  ASSERT_TRUE(s->Commit().ok());
  EXPECT_EQ(*n, 3);

  store_.reset();  // what a restarted tuner sees
  auto again = Store::Open(db_);
  ASSERT_TRUE(again.ok()) << again.status().message();
  auto trials = (*again)->LoadTrials(study_id_);
  ASSERT_TRUE(trials.ok()) << trials.status().message();
  struct Want {
    int64_t id;
    const char* status;
    int attempts;
    bool attempt_open;
  };
  for (const Want& w : {Want{twice, "queued", 2, true}, Want{once, "queued", 1, true},
                        Want{never, "queued", 0, true}, Want{done, "completed", 1, false},
                        Want{queued, "queued", 0, false}, Want{paused, "paused", 3, true}}) {
    SCOPED_TRACE("trial " + std::to_string(w.id));
    const TrialRecord* t = Find(*trials, w.id);
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(TrialStatusName(t->status), std::string(w.status));
    EXPECT_EQ(t->attempts, w.attempts);
    EXPECT_EQ(t->attempt_open, w.attempt_open);
  }
  auto others = (*again)->LoadTrials(*other_id);
  ASSERT_TRUE(others.ok());
  ASSERT_EQ(others->size(), 1u);
  EXPECT_EQ((*others)[0].status, TrialStatus::kRunning);
  EXPECT_EQ((*others)[0].attempts, 1);
  auto r = Reader::Open(db_);
  ASSERT_TRUE(r.ok()) << r.status().message();
  auto held = (*r)->Query(
      "SELECT count(*) FROM trials WHERE status = 'queued' AND (runner IS NOT NULL OR lease IS "
      "NOT NULL)");
  ASSERT_TRUE(held.ok()) << held.status().message();
  EXPECT_EQ(std::get<int64_t>(held->rows.at(0).at(0)), 0);
}

}  // namespace
}  // namespace sweep
