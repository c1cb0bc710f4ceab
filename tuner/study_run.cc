// A study being run: what each runner message means for its trials, how
// trials end or lose an attempt, and what runs next (opening and resuming
// it: tuner/study_open.cc).
#include "tuner/study_run.h"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>

#include "common/clock.h"
#include "common/duration.h"
#include "common/json.h"
#include "common/log.h"
#include "common/nearest_word.h"
#include "common/number_text.h"
#include "common/objectives.h"
#include "common/values.h"
#include "storage/checkpoint_files.h"
#include "storage/db_files.h"
#include "storage/log_files.h"
#include "storage/study_admin.h"
#include "tuner/study_change.h"

namespace sweep {

StudyRun::StudyRun(Store* store, const pb::Study& study, SearchSpace space, std::string db_folder)
    : store_(store),
      study_(study),
      space_(std::move(space)),
      table_(PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE),
      writes_(store),
      db_folder_(std::move(db_folder)) {
  max_retries_ = study_.algorithm().max_retries();
  fail_fast_ = FailFast(study_.algorithm().fail_fast());
  if (study_.algorithm().has_time_limit()) {
    // Validated: it parses.
    auto limit = ParseDuration(study_.algorithm().time_limit().after());
    time_limit_s_ = limit.ok() ? *limit : 0;
    hard_limit_ = study_.algorithm().time_limit().hard();
  }
  double stall = study_.task().stall_timeout_s();
  stall_ms_ = static_cast<int64_t>(stall * 1000);
  max_concurrent_ =
      study_.algorithm().has_max_concurrent() ? study_.algorithm().max_concurrent() : 0;
}

bool StudyRun::Done() const {
  return table_.Count(TrialStatus::kRunning) == 0 &&
         (fail_fast_.stopped() || TimeUp() || (scheduler_->Exhausted() && table_.queued() == 0));
}

void StudyRun::AfterCommit(Dispatcher* d, uint64_t ticket) {
  checkpoint_files_.Committed(ticket);
  for (auto& [to, ack] : acks_.Take()) {
    pb::Envelope env;
    *env.mutable_ack() = std::move(ack);
    d->Queue(to, std::move(env));
  }
}

void StudyRun::Durable(uint64_t ticket) { checkpoint_files_.Durable(ticket); }

void StudyRun::Move(Trial* t, TrialStatus to, TrialTable::Where where) {
  progress_dirty_.erase(t->id);
  t->preempting.clear();
  acks_.Cancel(t->id);
  paces_.Forget(t->id);
  if (IsFinished(to)) logs_.Forget(t->id);
  if (auto orphan = table_.Transition(t, to, where)) checkpoint_files_.RemoveNow(*orphan);
}

void StudyRun::OnStarted(int64_t trial_id) { waiting_.clear(); }

Trial* StudyRun::Running(int64_t trial_id, uint64_t lease) {
  Trial* t = table_.Find(trial_id);
  return t && t->status == TrialStatus::kRunning && t->lease == lease ? t : nullptr;
}

void StudyRun::OnRejected(int64_t trial_id, const std::string& what, const std::string& reason) {
  // Rows are rate-limited per kind: the first ten, then one per thousand
  // with the count, so a flood of bad messages cannot fill the disk.
  int64_t n = ++rejected_[what];
  if (n > kRejectedRowsInFull && n % 1000 != 0) return;
  Event(table_.Find(trial_id) ? trial_id : 0, what + "_rejected",
        n <= kRejectedRowsInFull ? reason
                                 : reason + " (" + std::to_string(n) + " " + what +
                                       " messages rejected so far; one row per thousand)");
}

void StudyRun::OnReport(const std::string& runner_id, const pb::Report& report) {
  Trial* t = Running(report.trial_id(), report.lease());
  if (!t) return;
  if (t->segment_ended) {
    LOG_DEBUG << "trial " << t->number << ": dropped step " << report.step()
              << ", sent before its runner heard the decision at step " << t->decided_step;
    return;
  }
  if (report.step() < 1 || report.step() <= t->last_step) {
    // Steps only move forward within an attempt.
    OnRejected(t->id, "report",
               "step " + std::to_string(report.step()) + " after step " +
                   std::to_string(t->last_step) + " (steps must increase)");
    return;
  }
  Write(store_->Begin());
  double now = Stamp();
  std::optional<double> objective;
  for (const auto& m : report.metrics()) {
    if (m.name().empty() || m.name().size() > 256) continue;
    Write(store_->InsertReport(t->id, t->attempts, report.step(), m.name(), m.value(), now));
    // A name given twice: the first value, the one the database keeps.
    if (m.name() == PrimaryObjective(study_).metric() && !objective) objective = m.value();
  }
  const std::vector<double> all = ObjectivesIn(report);
  CommitCheckpoint(t, report.step(), now);
  t->last_step = report.step();
  paces_.Reported(t->id, report.step(), NowMs());
  progress_dirty_.insert(t->id);
  // A step this attempt has reported before runs again (a trial promoted
  // without a checkpoint, a run cut short by a tuner restart): the database
  // keeps the first report, so the algorithm, which a restarted tuner feeds
  // from the database, sees each step once here too, the decision in force
  // stands (a budget does not count the step twice), and the trial's value
  // there is the one judged.
  Action action;
  // A report is judged when it carries the first objective (several are
  // judged together then): a restarted tuner replays those reports.
  const bool judged = objective.has_value();
  if (judged && report.step() <= t->attempt_reported) {
    action = scheduler_->DecisionAt(t->number, report.step()).value_or(Action{});
    auto first =
        store_->ReportedValue(t->id, t->attempts, report.step(), PrimaryObjective(study_).metric());
    if (!first.ok()) Write(first.status());
    if (objective) t->last_objective = first.ok() && *first ? **first : objective;
  } else if (judged) {
    if (objective && std::isfinite(*objective)) fail_fast_.Disarm();  // something works
    if (objective) t->last_objective = objective;
    action = all.empty() ? scheduler_->OnReport(t->number, report.step(), *objective)
                         : scheduler_->OnReportAll(t->number, report.step(), all);
    t->attempt_reported = report.step();
  }
  RecordDecision(t, report.step(), action.decision, action.reason);
  if (action.replacement) Replace(*action.replacement);
  if (action.decision != Decision::kContinue)
    LOG_DEBUG << "trial " << t->number << ": " << action.reason;
  if (action.decision == Decision::kPause) t->pausing = true;
  if (action.decision != Decision::kContinue) t->segment_ended = true;
  pb::Ack& ack = acks_.Owe(t->id, runner_id);
  ack.Clear();
  ack.set_trial_id(t->id);
  ack.set_lease(t->lease);
  ack.set_step(report.step());
  ack.set_decision(ToWire(action.decision));
}

void StudyRun::OnLog(const pb::Log& log) {
  Trial* t = Running(log.trial_id(), log.lease());
  if (!t) return;
  std::optional<LogRow> row = logs_.Append(t->id, t->number, t->attempts, t->lease, log);
  if (!row) return;
  Write(store_->Begin());
  Write(store_->RecordLog(t->id, t->attempts, row->path, row->bytes, row->dropped, row->tail,
                          Stamp()));
}

void StudyRun::OnFinal(const pb::Final& fin) {
  Trial* t = Running(fin.trial_id(), fin.lease());
  if (!t) return;
  const std::string& metric = PrimaryObjective(study_).metric();
  std::optional<double> value = t->last_objective;
  std::map<std::string, double> finals;  // the first of each name
  std::string metrics = "{";
  for (const auto& m : fin.metrics()) {
    finals.emplace(m.name(), m.value());
    if (m.name() == metric) value = m.value();
    metrics +=
        (metrics.size() > 1 ? ", " : "") + JsonString(m.name()) + ": " + JsonNumber(m.value());
  }
  metrics += "}";
  // After a stop or pause, the trial ends where it was decided.
  int64_t step = t->segment_ended ? t->last_step : std::max(fin.step(), t->last_step);
  // A completed trial reported its steps, unless it resumed from a
  // checkpoint taken at its last step and had nothing left to run.
  bool resumed_done = t->checkpoint_step > 0 && fin.step() <= t->checkpoint_step;
  if (fin.outcome() == pb::TRIAL_OUTCOME_COMPLETED && t->last_step == 0 && !resumed_done) {
    OnRejected(t->id, "final", "a completed result with no reports");
    LoseAttempt(t, "its runner sent a completed result without reporting a step", false);
    return;
  }
  // After a stop or pause, an attempt that was lost (a timeout in the grace
  // period, say) or completed anyway (its runner ran to the end before it
  // heard) ends as the algorithm decided, where it decided: the reports and
  // the result past it are dropped, so a run decides the same whichever
  // came first. A failure is still a failure.
  pb::TrialOutcome outcome = fin.outcome();
  if (t->segment_ended &&
      (outcome == pb::TRIAL_OUTCOME_LOST || outcome == pb::TRIAL_OUTCOME_COMPLETED)) {
    if (outcome == pb::TRIAL_OUTCOME_COMPLETED) {
      LOG_DEBUG << "trial " << t->number << ": completed before its runner heard the decision; it "
                << "ends at step " << t->last_step;
      value = t->last_objective;
      metrics = "{}";
      finals.clear();
    }
    outcome = pb::TRIAL_OUTCOME_CANCELLED;
  }
  if (outcome == pb::TRIAL_OUTCOME_LOST) {
    t->last_step = step;
    LoseAttempt(
        t, fin.error().empty() ? "the attempt ended without a result" : fin.error().substr(0, 4096),
        false);
  } else if (outcome == pb::TRIAL_OUTCOME_FAILED) {
    Finish(t, TrialStatus::kFailed, std::nullopt, step, metrics,
           fin.error().empty() ? "the task failed" : fin.error().substr(0, 4096));
  } else if (outcome == pb::TRIAL_OUTCOME_CANCELLED && t->pausing) {
    t->last_step = step;
    Pause(t);
  } else if (outcome == pb::TRIAL_OUTCOME_CANCELLED && t->stops_at_limit) {
    RecordDecision(t, step, Decision::kStop, t->preempting);
    Finish(t, TrialStatus::kStopped, value, step, metrics, "", finals);
  } else if (outcome == pb::TRIAL_OUTCOME_CANCELLED && !t->preempting.empty()) {
    Preempted(t, step);
  } else if (outcome == pb::TRIAL_OUTCOME_CANCELLED) {
    Finish(t, TrialStatus::kStopped, value, step, metrics, "", finals);
  } else if (!value) {
    Finish(t, TrialStatus::kFailed, std::nullopt, step, metrics, MissingMetric(fin));
  } else if (!std::isfinite(*value)) {
    Finish(t, TrialStatus::kFailed, std::nullopt, step, metrics,
           "objective '" + metric + "' is " + ScreenNumber(*value));
  } else if (std::string problem =
                 TracksTrialValues(study_) ? ValuesAt(*t, step, finals).problem : "";
             !problem.empty()) {
    Finish(t, TrialStatus::kFailed, std::nullopt, step, metrics, problem);
  } else {
    Finish(t, TrialStatus::kCompleted, value, step, metrics, "", finals);
  }
}

void StudyRun::Finish(Trial* t, TrialStatus status, std::optional<double> value, int64_t step,
                      const std::string& metrics_json, const std::string& failure,
                      const std::map<std::string, double>& finals) {
  Write(store_->Begin());
  Write(store_->FinishTrial(t->id, status, value, step, metrics_json, failure, Stamp()));
  if (status == TrialStatus::kCompleted || status == TrialStatus::kStopped)
    RecordValues(t, step, finals);
  t->value = status == TrialStatus::kCompleted ? value : std::nullopt;
  // As a restarted tuner loads it (model-based search ranks stopped trials
  // by these).
  t->last_step = step;
  t->last_objective = value;
  Move(t, status);
  scheduler_->OnEnd(t->number, step);
  if (status == TrialStatus::kFailed) LOG_DEBUG << "trial " << t->number << " failed: " << failure;
  const bool was_stopped = fail_fast_.stopped();
  fail_fast_.OnEnd(status, failure);
  if (fail_fast_.stopped() && !was_stopped) {
    LOG_WARN << "study '" << Printable(study_.name())
             << "' starts no more trials: " << Printable(fail_fast_.Reason());
    Event(0, "fail_fast", fail_fast_.Reason());
  } else if (was_stopped && !fail_fast_.stopped()) {
    LOG_INFO << "trial " << t->number << " " << TrialStatusName(status)
             << ": the study starts trials again";
    Event(t->id, "fail_fast_lifted",
          "trial " + std::to_string(t->number) + " " + TrialStatusName(status));
  }
}

Trial* StudyRun::CreateTrial(const std::string& runner_name, uint64_t lease) {
  auto spec = scheduler_->NextTrial();
  if (!spec) return nullptr;
  Write(store_->Begin());
  auto id =
      store_->InsertRunningTrial(study_id_, spec->number, spec->params,
                                 ParamsToJson(spec->params.params()), runner_name, lease, Stamp());
  if (!id.ok()) {
    Write(id.status());
    return nullptr;
  }
  // Where a model-based proposal came from (`sweep why`).
  if (!spec->origin.empty())
    Write(store_->AddEvent(study_id_, *id, "proposed", spec->origin, Stamp()));
  Trial t;
  t.id = *id;
  t.number = spec->number;
  t.params = std::move(spec->params);
  t.status = TrialStatus::kRunning;  // starts at once: never queued
  t.attempts = 1;
  t.new_attempt = true;
  t.lease = lease;
  t.runner = runner_name;
  return &table_.Insert(std::move(t));
}

std::optional<pb::Assign> StudyRun::NextAssign(const std::string& runner_name, uint64_t lease) {
  while (!draining_ && pausing_.empty() && !fail_fast_.stopped() && !TimeUp() &&
         writes_.error().ok()) {
    Trial* t = table_.PopQueued();
    if (t) {
      // Re-run from a checkpoint at a decision step: it will not report that
      // step again, so the decision taken there applies now.
      auto d = t->checkpoint_path.empty() ? std::nullopt
                                          : scheduler_->DecisionAt(t->number, t->checkpoint_step);
      // (Its pause was recorded when it reported; a promotion or stop that
      // found it queued, after its runner was lost, is recorded now.)
      if (d && d->decision != Decision::kPause)
        RecordDecision(t, t->checkpoint_step, d->decision, d->reason);
      if (d && d->decision != Decision::kContinue) {
        t->last_step = t->checkpoint_step;
        if (d->replacement) Replace(*d->replacement);
        if (EndsTrial(d->decision)) {
          Finish(t, TrialStatus::kStopped, t->last_objective, t->last_step, "{}", "");
        } else {
          Write(store_->Begin());
          Write(
              store_->Pause(t->id, t->attempts, t->last_step, t->last_objective, t->attempt_open));
          Move(t, TrialStatus::kPaused);
        }
        continue;
      }
      Move(t, TrialStatus::kRunning);
      // A paused or interrupted attempt goes on; anything else is a new one.
      t->new_attempt = !t->attempt_open;
      if (t->new_attempt) {
        t->attempts += 1;
        t->attempt_reported = 0;
      }
      t->attempt_open = false;
      t->lease = lease;
      t->runner = runner_name;
      t->last_step = 0;
      // Resumed from a checkpoint, it keeps the objective reported up to
      // there: a checkpoint of its last step leaves nothing to report.
      if (t->checkpoint_path.empty()) t->last_objective.reset();
      Write(store_->Begin());
      Write(store_->MarkRunning(t->id, runner_name, lease, t->attempts, Stamp()));
    } else {
      t = CreateTrial(runner_name, lease);
      if (!t) return std::nullopt;
    }
    pb::Assign a;
    a.set_trial_id(t->id);
    a.set_lease(lease);
    a.set_attempt(t->attempts);
    a.set_seed(study_.seed());
    a.set_number(t->number);
    *a.mutable_task() = study_.task();
    *a.mutable_params() = t->params.params();
    for (int64_t s : scheduler_->DecisionSteps(t->number)) a.add_decision_steps(s);
    a.set_gpus_per_trial(study_.resources().gpus_per_trial());
    a.set_max_checkpoint_bytes(MaxCheckpointBytes());
    a.set_checkpoint_every_ms(
        static_cast<int64_t>(std::llround(study_.resources().checkpoint_every_s() * 1000)));
    a.set_objective_metric(PrimaryObjective(study_).metric());
    a.set_study(study_.name());
    if (!t->checkpoint_path.empty()) {
      auto data = ReadCheckpointFile(t->checkpoint_path);
      if (data.ok() && Checksum(*data) != t->checkpoint_checksum) {
        data = Status::Corruption("checkpoint " + t->checkpoint_path +
                                  " does not match the checksum committed for it");
      }
      if (data.ok()) {
        a.set_checkpoint(std::move(data).value());
        a.set_checkpoint_step(t->checkpoint_step);
        Event(t->id, "resumed",
              "from its checkpoint at step " + std::to_string(t->checkpoint_step));
      } else if (t->parent_id > 0) {
        // An exploit child from scratch would be a different trial.
        Finish(t, TrialStatus::kFailed, std::nullopt, t->last_step, "{}",
               "cannot resume: " + data.status().message());
        continue;
      } else {
        LOG_WARN << "trial " << t->number << " restarts from scratch: " << data.status().message();
        Event(t->id, "checkpoint_unreadable", data.status().message());
      }
    }
    return a;
  }
  return std::nullopt;
}

}  // namespace sweep
