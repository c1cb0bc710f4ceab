// Carrying out an algorithm's decisions beyond continue/stop: pausing a
// trial (Hyperband rungs, PBT generations), resuming or stopping paused
// trials by directive, and creating the trials that replace PBT's exploited
// ones from verified copies of their parents' checkpoints.
#include "common/json.h"
#include "common/log.h"
#include "common/values.h"
#include "storage/checkpoint_files.h"
#include "tuner/study_run.h"

namespace sweep {

void StudyRun::Pause(Trial* t) {
  Write(store_->Begin());
  t->attempt_open = true;  // a pause is not the end of the attempt
  // The run on its runner ends here: kept for the timelines.
  Write(store_->AddPreemptedRun(t->id, Stamp(), "paused"));
  Write(store_->Pause(t->id, t->attempts, t->last_step, t->last_objective, true));
  std::optional<Decision> pending = t->pending;
  Move(t, TrialStatus::kPaused);
  if (pending && EndsTrial(*pending)) {
    Finish(t, TrialStatus::kStopped, t->last_objective, t->last_step, "{}", "");
  } else if (pending == Decision::kContinue) {
    Resume(t);
  }
}

// A paused trial goes back to the queue. Its next segment is not another
// attempt (nothing went wrong): its attempt stays open.
void StudyRun::Resume(Trial* t) { Requeue(t, t->attempts, TrialTable::Where::kFront); }

void StudyRun::RecordDecision(Trial* t, int64_t step, Decision d, const std::string& reason) {
  if (reason.empty()) return;
  if (d != Decision::kPause) {
    if (t->decided_step == step) return;
    t->decided_step = step;
  }
  Write(store_->Begin());
  Write(store_->AddDecision(t->id, step, DecisionName(d), reason, Stamp()));
}

void StudyRun::ApplyDirectives() {
  for (const Directive& d : scheduler_->TakeDirectives()) {
    if (d.action.replacement) Replace(*d.action.replacement);
    Trial* t = table_.FindNumber(d.number);
    if (!t) continue;
    bool paused = t->status == TrialStatus::kPaused;
    // It applies to a trial paused (or pausing) at that step, nothing else:
    // a replay after a restart repeats decisions already carried out.
    if (t->last_step != d.step || (!paused && !(t->status == TrialStatus::kRunning && t->pausing)))
      continue;
    RecordDecision(t, t->last_step, d.action.decision, d.action.reason);
    if (!paused) {
      t->pending = d.action.decision;
    } else if (EndsTrial(d.action.decision)) {
      Finish(t, TrialStatus::kStopped, t->last_objective, t->last_step, "{}", "");
    } else {
      Resume(t);
    }
  }
}

void StudyRun::Replace(const Replacement& r) {
  const TrialSpec& spec = r.trial;
  if (table_.FindNumber(spec.number)) return;  // created before a restart
  const Trial* parent = table_.FindNumber(spec.parent);
  Write(store_->Begin());
  auto id =
      store_->InsertTrial(study_id_, spec.number, spec.params, ParamsToJson(spec.params.params()),
                          Stamp(), parent ? parent->id : 0, spec.parent_step);
  if (!id.ok()) {
    Write(id.status());
    return;
  }
  Trial t;
  t.id = *id;
  t.number = spec.number;
  t.params = spec.params;
  t.status = TrialStatus::kPaused;  // not queued until its checkpoint is in place
  t.parent_id = parent ? parent->id : 0;
  Trial& child = table_.Insert(std::move(t));
  Write(store_->AddDecision(child.id, spec.parent_step, kExploitRow, r.reason, Stamp()));
  std::string problem;
  Result<std::string> data = Status::NotFound("no checkpoint");
  if (!parent || parent->checkpoint_step != spec.parent_step || parent->checkpoint_path.empty()) {
    problem = "trial #" + std::to_string(spec.parent) + " has no committed checkpoint at step " +
              std::to_string(spec.parent_step);
  } else if (!(data = ReadCheckpointFile(parent->checkpoint_path)).ok()) {
    problem = data.status().message();
  } else if (Checksum(*data) != parent->checkpoint_checksum) {
    problem =
        "checkpoint " + parent->checkpoint_path + " does not match the checksum committed for it";
  }
  if (problem.empty() && !MakeRoom(static_cast<int64_t>(data->size()))) {
    problem = "the study's checkpoints would pass resources.checkpoint_budget_mb (" +
              FormatDouble(study_.resources().checkpoint_budget_mb()) + " MiB)";
  }
  if (problem.empty()) {
    auto path = checkpoint_files_.Write(child.number, spec.parent_step, *data);
    if (!path.ok()) {
      problem = path.status().message();
    } else {
      Write(store_->RecordCheckpoint(child.id, spec.parent_step, *path,
                                     static_cast<int64_t>(data->size()),
                                     parent->checkpoint_checksum, Stamp()));
      child.checkpoint_path = *path;
      child.checkpoint_step = spec.parent_step;
      child.checkpoint_checksum = parent->checkpoint_checksum;
      child.last_step = spec.parent_step;
    }
  }
  if (!problem.empty()) {
    LOG_WARN << "trial " << child.number << " cannot start from its parent: " << problem;
    Finish(&child, TrialStatus::kFailed, std::nullopt, spec.parent_step, "{}",
           "cannot copy the parent's checkpoint: " + problem);
    return;
  }
  Move(&child, TrialStatus::kQueued);
}

}  // namespace sweep
