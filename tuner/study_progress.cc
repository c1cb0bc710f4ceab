// What a study's run shows of its progress: the counts of the status line
// (tuner/progress.h), and each running trial's last step and objective,
// written once per commit for the readers (sweep trials, the dashboard).
#include "tuner/study_run.h"

namespace sweep {

ProgressCounts StudyRun::Counts() const {
  ProgressCounts c;
  c.completed = table_.Count(TrialStatus::kCompleted);
  c.failed = table_.Count(TrialStatus::kFailed);
  c.stopped = table_.Count(TrialStatus::kStopped);
  c.running = table_.Count(TrialStatus::kRunning);
  c.queued = static_cast<int64_t>(table_.queued());
  c.paused = table_.Count(TrialStatus::kPaused);
  c.planned = scheduler_->Planned();
  if (const Trial* b = table_.best()) c.best = b->value;
  if (c.running > 0) {
    for (const auto& [id, t] : table_.all()) {
      if (t.status == TrialStatus::kRunning && (!c.slowest_step || t.last_step < *c.slowest_step))
        c.slowest_step = t.last_step;
    }
  }
  return c;
}

void StudyRun::WriteProgress() {
  // Progress (last step and objective) is written once per trial per commit.
  for (int64_t id : progress_dirty_) {
    const Trial* t = table_.Find(id);
    if (t) Write(store_->SetProgress(id, t->last_step, t->last_objective));
  }
  progress_dirty_.clear();
}

}  // namespace sweep
