// A study's attempts: what a lost runner, a run its runner never began and
// an interrupted tuner do to a trial's attempt count (an attempt stays open
// across a pause or an interruption, and goes on when the trial runs again).
#include "common/log.h"
#include "tuner/study_run.h"

namespace sweep {

void StudyRun::OnReleased(int64_t trial_id, bool started, const std::string& cause,
                          bool runner_died) {
  Trial* t = table_.Find(trial_id);
  if (!t || t->status != TrialStatus::kRunning) return;
  if (started) {
    LoseAttempt(t, cause, runner_died);
  } else {
    // Its runner never began it: a new attempt is given back, a continued
    // one stays open.
    if (t->new_attempt) {
      t->attempts = std::max(0, t->attempts - 1);
      t->attempt_open = false;
    } else {
      t->attempt_open = true;
    }
    Requeue(t, t->attempts, TrialTable::Where::kFront);
  }
}

void StudyRun::OnReattached(int64_t trial_id, const std::string& runner_id) {
  Trial* t = table_.Find(trial_id);
  if (!t || t->status != TrialStatus::kRunning) return;
  // The attempt goes on. The Ack says what is committed, so the runner
  // sends again what came after (a pending Ack already says it, after the
  // commit); a decision taken meanwhile goes with it.
  const bool owed = acks_.Owes(t->id);
  pb::Ack& ack = acks_.Owe(t->id, runner_id);
  if (!owed) {
    ack.set_trial_id(t->id);
    ack.set_lease(t->lease);
    ack.set_step(t->last_step);
    ack.set_decision(ToWire(!t->segment_ended ? Decision::kContinue
                            : t->pausing      ? Decision::kPause
                                              : Decision::kStop));
  }
  Event(t->id, "reattached",
        "attempt " + std::to_string(t->attempts) +
            " goes on: its runner lost the tuner and reconnected, at step " +
            std::to_string(t->last_step));
}

void StudyRun::OnRunnerLeaving(int64_t trial_id, const std::string& why) {
  Trial* t = table_.Find(trial_id);
  // Its Final (CANCELLED, at its next checkpoint) makes it Preempted; a
  // preemption or pause already under way keeps its own reason (and a
  // runner that reconnects says it leaves again: told once).
  if (!t || t->status != TrialStatus::kRunning || t->segment_ended || !t->preempting.empty())
    return;
  t->preempting = why;
  Event(t->id, "runner_leaving",
        why + ": the trial stops at its next checkpoint and goes on on another runner");
}

void StudyRun::OnRunnerLeft(int64_t trial_id, const std::string& why) {
  Trial* t = table_.Find(trial_id);
  if (!t || t->status != TrialStatus::kRunning) return;
  // Not an attempt: the scheduler took the runner, the trial did nothing
  // wrong. It goes on as the same attempt from its last checkpoint.
  const std::string text =
      "paused at step " + std::to_string(t->last_step) + ": " + why +
      " before the trial's next checkpoint; it goes on from " +
      (t->checkpoint_path.empty() ? std::string("its start")
                                  : "its checkpoint at step " + std::to_string(t->checkpoint_step));
  const double at = Stamp();
  Write(store_->AddPreemptedRun(t->id, at));
  Write(store_->AddDecision(t->id, t->last_step, "preempt", text, at));
  Event(t->id, "preempted", text);
  t->attempt_open = true;
  Requeue(t, t->attempts, TrialTable::Where::kFront);
}

void StudyRun::LoseAttempt(Trial* t, const std::string& cause, bool runner_died) {
  std::string reason = runner_died ? "runner lost (" + cause + ")" : cause;
  Event(t->id, "attempt_lost", "attempt " + std::to_string(t->attempts) + ": " + reason);
  if (t->attempts > max_retries_) {
    std::string n = std::to_string(t->attempts);
    Finish(t, TrialStatus::kFailed, std::nullopt, t->last_step, "{}",
           runner_died ? "its runner died " + n + " times while running it (last: " + cause + ")"
                       : "gave up after " + n + " attempts; last: " + cause);
    return;
  }
  LOG_WARN << "trial " << t->number << " (attempt " << t->attempts << ") lost: " << reason
           << "; re-queued";
  t->attempt_open = false;  // the next run is a new attempt
  Requeue(t, t->attempts, TrialTable::Where::kFront);
}

void StudyRun::Requeue(Trial* t, int attempts, TrialTable::Where where) {
  Write(store_->Begin());
  Write(store_->Requeue(t->id, attempts, t->attempt_open));
  t->attempts = attempts;
  Move(t, TrialStatus::kQueued, where);
}

int64_t StudyRun::Interrupt(const std::string& cause) {
  int64_t requeued = 0;
  std::vector<Trial*> running;
  for (const auto& [id, t] : table_.all())
    if (t.status == TrialStatus::kRunning) running.push_back(table_.Find(id));
  for (Trial* t : running) {
    // The attempt is not over: it resumes (from its checkpoint, if any) as
    // the same attempt.
    Event(t->id, "interrupted",
          "attempt " + std::to_string(t->attempts) + " at step " + std::to_string(t->last_step) +
              ": " + cause + "; it resumes as the same attempt");
    t->attempt_open = true;
    Requeue(t, t->attempts, TrialTable::Where::kFront);
    ++requeued;
  }
  return requeued;
}

int64_t StudyRun::Suspend(const std::string& kind, const std::string& cause, StudyStatus stored) {
  const int64_t requeued = Interrupt(cause);
  Write(store_->SetStudyRunSeconds(study_id_, RunSeconds()));
  Event(0, kind, std::to_string(requeued) + " running trials re-queued: " + cause);
  Write(store_->SetStudyStatus(study_id_, stored, Stamp()));
  return requeued;
}

std::optional<bool> StudyRun::Preempt(int64_t trial_id, const std::string& reason) {
  Trial* t = table_.Find(trial_id);
  if (!t || t->status != TrialStatus::kRunning || t->pausing || t->segment_ended ||
      !t->preempting.empty())
    return std::nullopt;
  if (HardStopDue()) {  // the time limit: now, whatever `preemptible` says
    t->preempting = reason;
    t->stops_at_limit = true;
    return true;
  }
  const bool no_checkpoints = study_.task().has_command() && !study_.task().command().checkpoints();
  if (!pausing_.empty()) {  // the user's own pause, whatever `preemptible` says
    t->preempting = pausing_;
    return no_checkpoints;
  }
  const pb::Preemption how = study_.resources().preemptible();
  if (how == pb::PREEMPTION_NEVER) return std::nullopt;
  // A program that writes no checkpoint folders would run to its end with
  // its runner promised away meanwhile: it is not preempted at all.
  if (how == pb::PREEMPTION_CHECKPOINT && no_checkpoints) return std::nullopt;
  t->preempting = reason;
  return how == pb::PREEMPTION_RESTART;
}

void StudyRun::OnWaiting(const std::string& why) {
  LOG_WARN << "study '" << Printable(study_.name()) << "': " << why;
  Event(0, "waiting", why);
  waiting_ = why;
}

void StudyRun::Preempted(Trial* t, int64_t step) {
  // A preemption is not an attempt: the same attempt goes on, from the
  // checkpoint it sent at `step` (or from its start, preemptible: restart).
  const bool from_checkpoint = !t->checkpoint_path.empty() && t->checkpoint_step == step;
  const std::string why = "paused at step " + std::to_string(step) + ": " + t->preempting +
                          (from_checkpoint ? "; it goes on from its checkpoint there"
                                           : "; it runs again from its start");
  const double at = Stamp();
  Write(store_->AddPreemptedRun(t->id, at));
  Write(store_->AddDecision(t->id, step, "preempt", why, at));
  Event(t->id, "preempted", why);
  t->last_step = step;
  t->attempt_open = true;
  Requeue(t, t->attempts, TrialTable::Where::kFront);
}

}  // namespace sweep
