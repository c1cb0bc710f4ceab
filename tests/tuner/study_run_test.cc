// StudyRun driven directly as the dispatcher would (no socket): what each
// message does to the trial table and the database. A real SQLite file.
#include "tuner/study_run.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include "e2e/harness.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"

namespace sweep {
namespace {

using e2e::QueryInt;

class StudyRunTest : public ::testing::Test {
 protected:
  void Open(const std::string& algorithm, const std::string& task) {
    auto parsed =
        ParseStudyYaml("name: unit\nobjective: {metric: value, goal: minimize}\ntask: " + task +
                           "\nalgorithm: " + algorithm +
                           "\nseed: 3\nparameters:\n  x1: {type: float, min: 0, max: 1}\n"
                           "  x2: {type: float, min: 0, max: 1}\n",
                       "unit.yaml");
    ASSERT_TRUE(parsed.ok()) << parsed.status().message();
    ASSERT_TRUE(ValidateStudy(&*parsed).ok());
    auto store = Store::Open(db_);
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
    auto run = StudyRun::Open(store_.get(), parsed->study, db_ + ".sweep");
    ASSERT_TRUE(run.ok()) << run.status().message();
    run_ = std::move(*run);
    Commit();
  }
  // The tuner dies here: nothing more is written (no Interrupt).
  void Close() {
    run_.reset();
    store_.reset();
  }
  void Commit() {
    ASSERT_TRUE(run_->write_error().ok()) << run_->write_error().message();
    ASSERT_TRUE(store_->Commit().ok());
  }
  pb::Assign Assign() {
    auto a = run_->NextAssign("r0", ++lease_);
    EXPECT_TRUE(a.has_value());
    return a.value_or(pb::Assign{});
  }
  void Report(const pb::Assign& a, int64_t step, double value) {
    pb::Report r;
    r.set_trial_id(a.trial_id());
    r.set_lease(a.lease());
    r.set_step(step);
    pb::Metric* m = r.add_metrics();
    m->set_name("value");
    m->set_value(value);
    run_->OnReport("r0-id", r);
  }
  void Final(const pb::Assign& a, pb::TrialOutcome outcome, int64_t step) {
    pb::Final f;
    f.set_trial_id(a.trial_id());
    f.set_lease(a.lease());
    f.set_outcome(outcome);
    f.set_step(step);
    run_->OnFinal(f);
  }
  std::string Status(int64_t id) {
    auto rows = e2e::Query(db_, "SELECT status FROM trials WHERE id=" + std::to_string(id));
    return rows.empty() ? "" : std::get<std::string>(rows[0][0]);
  }

  e2e::TempDir dir_;
  std::string db_ = dir_.File("u.db");
  std::unique_ptr<Store> store_;
  std::unique_ptr<StudyRun> run_;
  uint64_t lease_ = 0;
};

TEST_F(StudyRunTest, ALostRunnerCostsAnAttemptOnlyOfATrialItHadStarted) {
  Open("{type: random, max_trials: 2, max_retries: 1}",
       "{synthetic: {function: branin, steps: 3}}");
  pb::Assign a = Assign();
  EXPECT_EQ(a.attempt(), 1);
  // Queued at the runner, never begun: back to the queue, attempt not counted.
  run_->OnReleased(a.trial_id(), /*started=*/false, "killed by signal 9", true);
  Commit();
  EXPECT_EQ(Status(a.trial_id()), "queued");
  EXPECT_EQ(QueryInt(db_, "SELECT attempts FROM trials WHERE id=" + std::to_string(a.trial_id())),
            0);
  // Begun (Started, no report yet), then lost twice: failed with the reason.
  for (int attempt = 1; attempt <= 2; ++attempt) {
    pb::Assign again = Assign();
    ASSERT_EQ(again.trial_id(), a.trial_id());
    EXPECT_EQ(again.attempt(), attempt);
    run_->OnStarted(again.trial_id());
    run_->OnReleased(again.trial_id(), /*started=*/true, "killed by signal 9", true);
    Commit();
  }
  EXPECT_EQ(Status(a.trial_id()), "failed");
  auto failure =
      e2e::Query(db_, "SELECT failure FROM trials WHERE id=" + std::to_string(a.trial_id()));
  ASSERT_EQ(failure.size(), 1u);
  EXPECT_EQ(std::get<std::string>(failure[0][0]),
            "its runner died 2 times while running it (last: killed by signal 9)");
  EXPECT_EQ(run_->Counts().failed, 1);
  EXPECT_EQ(run_->Counts().running, 0);
}

TEST_F(StudyRunTest, AStalledTrialGivesUpWithItsOwnReason) {
  Open("{type: random, max_trials: 1, max_retries: 0}",
       "{synthetic: {function: branin, steps: 3}}");
  pb::Assign a = Assign();
  run_->OnReleased(a.trial_id(), true, "no report for 5 s (task.stall_timeout_s)", false);
  Commit();
  auto failure =
      e2e::Query(db_, "SELECT failure FROM trials WHERE id=" + std::to_string(a.trial_id()));
  EXPECT_EQ(std::get<std::string>(failure[0][0]),
            "gave up after 1 attempts; last: no report for 5 s (task.stall_timeout_s)");
}

TEST_F(StudyRunTest, MaxConcurrentIsTheOwnersLimitAndQueueAheadFollowsIt) {
  Open("{type: random, max_trials: 5, max_concurrent: 1}",
       "{synthetic: {function: branin, steps: 1}}");
  EXPECT_EQ(run_->MaxConcurrent(), 1);
  EXPECT_FALSE(run_->QueueAhead());
}

TEST_F(StudyRunTest, CompletedFailedAndNaNResultsAreRecordedAndCounted) {
  Open("{type: random, max_trials: 3}", "{synthetic: {function: branin, steps: 2}}");
  pb::Assign a = Assign(), b = Assign(), c = Assign();
  EXPECT_EQ(run_->Counts().running, 3);
  Report(a, 1, 2.0);
  Report(a, 2, 1.5);
  Final(a, pb::TRIAL_OUTCOME_COMPLETED, 2);
  Report(b, 1, std::nan(""));
  Final(b, pb::TRIAL_OUTCOME_COMPLETED, 1);
  Final(c, pb::TRIAL_OUTCOME_FAILED, 0);
  Commit();
  EXPECT_EQ(Status(a.trial_id()), "completed");
  EXPECT_EQ(Status(b.trial_id()), "failed");
  EXPECT_EQ(Status(c.trial_id()), "failed");
  ProgressCounts n = run_->Counts();
  EXPECT_EQ(n.completed, 1);
  EXPECT_EQ(n.failed, 2);
  ASSERT_TRUE(n.best.has_value());
  EXPECT_EQ(*n.best, 1.5);
  EXPECT_TRUE(run_->Done());
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM reports"), 3);
}

TEST_F(StudyRunTest, HyperbandPausesAtARungAndResumesFromTheQueue) {
  // R = 3, eta = 3: the first bracket runs 3 trials to step 1, then one on.
  Open("{type: hyperband, hyperband: {reduction_factor: 3}}",
       "{synthetic: {function: curve, steps: 3}}");
  std::vector<pb::Assign> rung;
  for (int i = 0; i < 3; ++i) rung.push_back(Assign());
  ASSERT_EQ(rung[0].decision_steps_size(), 1);
  EXPECT_EQ(rung[0].decision_steps(0), 1);
  double values[] = {0.9, 0.2, 0.5};
  for (int i = 0; i < 3; ++i) {
    Report(rung[i], 1, values[i]);
    Commit();
    // The runner ends the segment it was told to pause.
    Final(rung[i], pb::TRIAL_OUTCOME_CANCELLED, 1);
    run_->ApplyDirectives();
    Commit();
  }
  // The best (0.2) is promoted: queued again; the others stopped.
  EXPECT_EQ(Status(rung[1].trial_id()), "queued");
  EXPECT_EQ(Status(rung[0].trial_id()), "stopped");
  EXPECT_EQ(Status(rung[2].trial_id()), "stopped");
  EXPECT_EQ(run_->Counts().paused, 0);
  // Its next segment is the same attempt, not a retry.
  auto next = run_->NextAssign("r0", ++lease_);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->trial_id(), rung[1].trial_id());
  EXPECT_EQ(next->attempt(), 1);
}

TEST_F(StudyRunTest, ARunnerThatRanToTheEndBeforeItHeardAPauseEndsWhereItWasDecided) {
  // As above, but each runner finished all 3 steps before the pause at
  // step 1 reached it: its later reports and its completed result came
  // anyway. The decision stands, at step 1, as if the runner had heard it
  // in time: the same trials are promoted and stopped, at the same step.
  Open("{type: hyperband, hyperband: {reduction_factor: 3}}",
       "{synthetic: {function: curve, steps: 3}}");
  std::vector<pb::Assign> rung;
  for (int i = 0; i < 3; ++i) rung.push_back(Assign());
  double values[] = {0.9, 0.2, 0.5};
  for (int i = 0; i < 3; ++i) {
    Report(rung[i], 1, values[i]);
    Report(rung[i], 2, 0.01);
    Report(rung[i], 3, 0.001);
    Final(rung[i], pb::TRIAL_OUTCOME_COMPLETED, 3);
    run_->ApplyDirectives();
    Commit();
  }
  EXPECT_EQ(Status(rung[1].trial_id()), "queued");
  EXPECT_EQ(Status(rung[0].trial_id()), "stopped");
  EXPECT_EQ(Status(rung[2].trial_id()), "stopped");
  for (const auto& a : rung) {
    std::string id = std::to_string(a.trial_id());
    EXPECT_EQ(QueryInt(db_, "SELECT max(step) FROM reports WHERE trial_id=" + id), 1);
    EXPECT_EQ(QueryInt(db_, "SELECT step FROM trials WHERE id=" + id), 1);
  }
  EXPECT_EQ(run_->Counts().completed, 0);
}

// A tuner killed after deciding a pause, before the runner carried it out:
// the restarted tuner re-runs the trial in the same attempt, and its step
// 1 runs again with another value. The decision in force (the pause) holds,
// and the trial's value is the report the rung judged, which the database
// keeps, not the re-run's.
TEST_F(StudyRunTest, AStepRunAgainKeepsTheDecisionAndTheValueItWasJudgedBy) {
  const std::string alg = "{type: hyperband, hyperband: {reduction_factor: 3}}";
  const std::string task = "{synthetic: {function: curve, steps: 3}}";
  Open(alg, task);
  pb::Assign a = Assign();
  Report(a, 1, 0.9);
  Commit();
  Close();
  Open(alg, task);
  pb::Assign again = Assign();
  ASSERT_EQ(again.trial_id(), a.trial_id());
  EXPECT_EQ(again.attempt(), 1);
  Report(again, 1, 0.1);
  Commit();
  Final(again, pb::TRIAL_OUTCOME_CANCELLED, 1);
  run_->ApplyDirectives();
  Commit();
  std::string id = std::to_string(a.trial_id());
  EXPECT_EQ(Status(a.trial_id()), "paused");
  EXPECT_EQ(QueryInt(db_, "SELECT CAST(value * 10 AS INTEGER) FROM trials WHERE id=" + id), 9);
  EXPECT_EQ(QueryInt(db_, "SELECT CAST(value * 10 AS INTEGER) FROM reports WHERE trial_id=" + id),
            9);
}

// A checkpoint is committed with its report and stored at the report's
// time, so the replay meets it first, as the algorithm did (PBT copies only
// from members whose checkpoint it knows). A report naming the objective
// twice counts its first value, the one the database keeps.
TEST_F(StudyRunTest, TheReplayMeetsACheckpointBeforeItsReportAndTheFirstOfTwoValues) {
  Open("{type: random, max_trials: 1}", "{synthetic: {function: curve, steps: 3}}");
  pb::Assign a = Assign();
  for (int64_t step = 1; step <= 3; ++step) {
    pb::Checkpoint c;
    c.set_trial_id(a.trial_id());
    c.set_lease(a.lease());
    c.set_step(step);
    c.set_data("state " + std::to_string(step));
    run_->OnCheckpoint(c);
    pb::Report r;
    r.set_trial_id(a.trial_id());
    r.set_lease(a.lease());
    r.set_step(step);
    for (double v : {0.5 / step, 9.0}) {
      pb::Metric* m = r.add_metrics();
      m->set_name("value");
      m->set_value(v);
    }
    run_->OnReport("r0-id", r);
    Commit();
  }
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM checkpoint_history"), 3);
  auto history = store_->LoadHistory(1, "value");
  ASSERT_TRUE(history.ok()) << history.status().message();
  std::vector<std::string> order;
  for (const auto& e : *history) {
    order.push_back((e.kind == Store::HistoryEvent::kCheckpoint ? "checkpoint " : "report ") +
                    std::to_string(e.step));
    if (e.kind == Store::HistoryEvent::kReport) EXPECT_DOUBLE_EQ(e.value, 0.5 / e.step);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"checkpoint 1", "report 1", "checkpoint 2", "report 2",
                                             "checkpoint 3", "report 3"}));
  ASSERT_TRUE(store_->Begin().ok());
  run_->WriteProgress();
  Commit();
  EXPECT_EQ(QueryInt(db_, "SELECT CAST(value * 6 AS INTEGER) FROM trials"), 1);  // 0.5 / 3
}

// The status line's time left knows each running trial's own pace: none
// before its second report, then its time a step over the steps it has left.
TEST_F(StudyRunTest, ARunningTrialsOwnPaceGivesItsTimeLeft) {
  Open("{type: random, max_trials: 1}", "{synthetic: {function: curve, steps: 1000}}");
  pb::Assign a = Assign();
  EXPECT_FALSE(run_->Counts().running_left_s.has_value());
  Report(a, 1, 0.5);
  Commit();
  EXPECT_FALSE(run_->Counts().running_left_s.has_value());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Report(a, 2, 0.4);
  Commit();
  // At least 20 ms a step (the test's own delay) for 998 more steps, less
  // the moment since the report (far under 5 s).
  auto left = run_->Counts().running_left_s;
  ASSERT_TRUE(left.has_value());
  EXPECT_GT(*left, 0.02 * 998 - 5);
  Report(a, 1000, 0.1);
  EXPECT_EQ(run_->Counts().running_left_s.value_or(-1), 0.0);
}

// Under Hyperband a trial's time left runs to its next rung, where it may
// end, not to the task's last step; once told to pause it has none.
TEST_F(StudyRunTest, ATrialsTimeLeftRunsToItsNextRungAndEndsWithItsSegment) {
  Open("{type: hyperband, hyperband: {min_resource: 9, max_resource: 27, reduction_factor: 3}}",
       "{synthetic: {function: curve, steps: 27}}");
  pb::Assign a = Assign();
  ASSERT_GE(a.decision_steps_size(), 1);
  ASSERT_EQ(a.decision_steps(0), 9);
  Report(a, 1, 0.9);
  Report(a, 2, 0.8);
  Commit();
  ProgressCounts c = run_->Counts();
  ASSERT_TRUE(c.left_share.has_value());
  EXPECT_DOUBLE_EQ(*c.left_share, 7.0 / 27);
  EXPECT_TRUE(c.running_left_s.has_value());
  for (int64_t step = 3; step <= 9; ++step) Report(a, step, 0.5);
  Commit();
  // Paused at the rung (the others have not reached it): still running
  // until its runner ends the segment, with nothing left to time.
  EXPECT_EQ(Status(a.trial_id()), "running");
  c = run_->Counts();
  EXPECT_FALSE(c.left_share.has_value());
  EXPECT_FALSE(c.running_left_s.has_value());
}

// A restarted tuner replays the history in time order, so what happened
// after a restart sorts after what happened before it even when the clock
// has gone back since (here the database holds times an hour ahead), and
// two commits never share a time.
TEST_F(StudyRunTest, TheReplayKeepsTheOrderOfEventsWhenTheClockStepsBack) {
  const std::string alg = "{type: random, max_trials: 2}";
  const std::string task = "{synthetic: {function: branin, steps: 2}}";
  Open(alg, task);
  pb::Assign a = Assign();
  Report(a, 1, 3.0);
  Report(a, 2, 2.5);
  Final(a, pb::TRIAL_OUTCOME_COMPLETED, 2);
  Commit();
  Close();
  e2e::ExecSql(db_, "UPDATE reports SET at = at + 3600");
  e2e::ExecSql(db_, "UPDATE trials SET ended_at = ended_at + 3600");
  Open(alg, task);
  pb::Assign b = Assign();
  Report(b, 1, 2.0);
  Report(b, 2, 1.0);
  Final(b, pb::TRIAL_OUTCOME_COMPLETED, 2);
  Commit();
  auto history = store_->LoadHistory(1, "value");
  ASSERT_TRUE(history.ok()) << history.status().message();
  std::vector<std::string> order;
  for (const auto& e : *history) {
    order.push_back((e.kind == Store::HistoryEvent::kEnd ? "end " : "report ") +
                    std::to_string(e.number) + "." + std::to_string(e.step));
  }
  EXPECT_EQ(order, (std::vector<std::string>{"report 0.1", "report 0.2", "end 0.2", "report 1.1",
                                             "report 1.2", "end 1.2"}));
  for (size_t i = 1; i < history->size(); ++i)
    EXPECT_LT((*history)[i - 1].at, (*history)[i].at) << order[i];
}

// A restarted tuner reads back which attempts go on: after Ctrl-C (the
// trial's `interrupted` event) and after a killed tuner (trials it left
// running), twice in a row without running them changes nothing.
TEST_F(StudyRunTest, ARestartedTunerGoesOnWithInterruptedAttempts) {
  const std::string alg = "{type: random, max_trials: 2}";
  const std::string task = "{synthetic: {function: branin, steps: 3}}";
  Open(alg, task);
  pb::Assign a = Assign(), b = Assign();
  Report(a, 1, 3.0);
  Report(b, 2, 2.0);
  ASSERT_TRUE(store_->Begin().ok());
  EXPECT_EQ(run_->Interrupt(), 2);
  Commit();
  // Killed: `b` was running again when the tuner died (no Interrupt).
  Close();
  Open(alg, task);
  pb::Assign a2 = Assign();
  EXPECT_EQ(a2.trial_id(), a.trial_id());
  EXPECT_EQ(a2.attempt(), 1);
  Commit();
  Close();
  for (int restart = 0; restart < 2; ++restart) {
    Open(alg, task);
    Close();
  }
  // Between runs each shows the attempt it was cut short in.
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM trials WHERE status='queued' AND attempts=1"), 2);
  Open(alg, task);
  std::set<int64_t> attempts;
  for (int i = 0; i < 2; ++i) attempts.insert(Assign().attempt());
  EXPECT_EQ(attempts, std::set<int64_t>{1});
  EXPECT_EQ(QueryInt(db_, "SELECT max(attempts) FROM trials"), 1);
}

// From attempt 2 (after a lost runner): interrupted before and after its
// first report, a run its runner never began, and tuner restarts between,
// it stays attempt 2; only the next lost runner makes attempt 3.
TEST_F(StudyRunTest, AnOpenAttemptIsNeitherCountedTwiceNorGivenBack) {
  const std::string alg = "{type: random, max_trials: 1, max_retries: 5}";
  const std::string task = "{synthetic: {function: branin, steps: 3}}";
  Open(alg, task);
  pb::Assign a = Assign();
  run_->OnReleased(a.trial_id(), /*started=*/true, "killed by signal 9", true);
  Commit();
  std::string id = std::to_string(a.trial_id());
  auto attempts = [&] { return QueryInt(db_, "SELECT attempts FROM trials WHERE id=" + id); };
  EXPECT_EQ(Assign().attempt(), 2);
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(store_->Begin().ok());
    EXPECT_EQ(run_->Interrupt(), 1);  // before any report of this run
    Commit();
    EXPECT_EQ(attempts(), 2);
    Close();
    Open(alg, task);
    pb::Assign b = Assign();
    EXPECT_EQ(b.attempt(), 2);
    run_->OnReleased(b.trial_id(), /*started=*/false, "runner gone", true);  // never began
    Commit();
    EXPECT_EQ(attempts(), 2);
    pb::Assign c = Assign();
    EXPECT_EQ(c.attempt(), 2);
    Report(c, 1, 1.0);
  }
  run_->OnReleased(a.trial_id(), /*started=*/true, "killed by signal 9", true);
  Commit();
  EXPECT_EQ(Assign().attempt(), 3);
}

TEST_F(StudyRunTest, InterruptPutsRunningTrialsBackAndTheirAttemptsGoOn) {
  Open("{type: random, max_trials: 4}", "{synthetic: {function: branin, steps: 2}}");
  pb::Assign a = Assign(), b = Assign();
  run_->OnStarted(a.trial_id());
  Report(a, 1, 3.0);
  ASSERT_TRUE(store_->Begin().ok());
  EXPECT_EQ(run_->Interrupt(), 2);
  Commit();
  // Each keeps its attempt, which goes on when resumed (`b` had reported
  // nothing yet).
  std::string ida = std::to_string(a.trial_id()), idb = std::to_string(b.trial_id());
  EXPECT_EQ(QueryInt(db_, "SELECT attempts FROM trials WHERE status='queued' AND id=" + ida), 1);
  EXPECT_EQ(QueryInt(db_, "SELECT attempts FROM trials WHERE status='queued' AND id=" + idb), 1);
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM trials WHERE attempt_open=1"), 2);
  EXPECT_EQ(
      QueryInt(db_, "SELECT count(*) FROM events WHERE kind='interrupted' AND trial_id=" + ida +
                        " AND detail='attempt 1 at step 1: the tuner stopped; it "
                        "resumes as the same attempt'"),
      1);
  EXPECT_EQ(run_->Counts().running, 0);
  EXPECT_EQ(run_->Counts().queued, 2);
  // A runner's late messages on the old lease change nothing.
  Report(a, 2, 1.0);
  Final(a, pb::TRIAL_OUTCOME_COMPLETED, 2);
  Commit();
  EXPECT_EQ(Status(a.trial_id()), "queued");
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM reports"), 1);
  EXPECT_TRUE(run_->Owns(a.trial_id()));
  EXPECT_FALSE(run_->Owns(a.trial_id() + 1000));
  // Run again, each goes on as attempt 1.
  pb::Assign again = Assign(), again2 = Assign();
  EXPECT_EQ(again.attempt(), 1);
  EXPECT_EQ(again2.attempt(), 1);
}

TEST_F(StudyRunTest, StepsOnlyMoveForwardAndACompletedTrialMustHaveReported) {
  Open("{type: random, max_trials: 2, max_retries: 1}",
       "{synthetic: {function: branin, steps: 5}}");
  pb::Assign a = Assign();
  Report(a, 3, 0.5);
  Report(a, 2, 0.1);  // backwards: rejected, nothing recorded
  Report(a, 3, 0.2);  // a repeat: rejected
  Commit();
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM reports"), 1);
  EXPECT_EQ(QueryInt(db_, "SELECT max(step) FROM reports"), 3);
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM events WHERE kind='report_rejected'"), 2);
  // A completed Final without any report costs the attempt instead of
  // recording a result nobody measured.
  pb::Assign b = Assign();
  Final(b, pb::TRIAL_OUTCOME_COMPLETED, 5);
  Commit();
  EXPECT_EQ(Status(b.trial_id()), "queued");
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM events WHERE kind='final_rejected'"), 1);
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM trials WHERE value IS NOT NULL"), 0);
}

TEST_F(StudyRunTest, RejectedMessagesAreRateLimitedInTheEventsTable) {
  Open("{type: random, max_trials: 1}", "{synthetic: {function: branin, steps: 5}}");
  pb::Assign a = Assign();
  Report(a, 4, 0.5);
  for (int i = 0; i < 5000; ++i) Report(a, 1, 0.5);
  Commit();
  // 10 rows in full, then one per thousand (at 1000 .. 5000) with the count.
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM events WHERE kind='report_rejected'"), 15);
  EXPECT_EQ(QueryInt(db_,
                     "SELECT count(*) FROM events WHERE detail LIKE '%5000 report messages "
                     "rejected so far%'"),
            1);
}

TEST_F(StudyRunTest, ATrialResumedAtItsLastCheckpointCompletesWithoutNewReports) {
  // Its last step was reported and checkpointed, then its runner died
  // before the Final: the re-run has nothing left to run and reports none.
  Open("{type: random, max_trials: 1, max_retries: 2}",
       "{synthetic: {function: branin, steps: 3}}");
  pb::Assign a = Assign();
  pb::Checkpoint c;
  c.set_trial_id(a.trial_id());
  c.set_lease(a.lease());
  c.set_step(3);
  c.set_data("state at step 3");
  run_->OnCheckpoint(c);
  Report(a, 3, 0.25);
  Commit();
  run_->OnReleased(a.trial_id(), true, "killed by signal 9", true);
  pb::Assign again = Assign();
  EXPECT_EQ(again.trial_id(), a.trial_id());
  EXPECT_FALSE(again.checkpoint().empty());
  Final(again, pb::TRIAL_OUTCOME_COMPLETED, 0);  // what a resumed train task sent
  Commit();
  EXPECT_EQ(Status(a.trial_id()), "completed");
  EXPECT_EQ(QueryInt(db_, "SELECT count(*) FROM events WHERE kind='final_rejected'"), 0);
}

}  // namespace
}  // namespace sweep
