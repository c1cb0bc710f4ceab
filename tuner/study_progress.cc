// What a study's run shows of its progress: the counts of the status line
// (tuner/progress.h), and each running trial's last step and objective,
// written once per commit for the readers (sweep trials, the dashboard).
#include <algorithm>
#include <limits>
#include <optional>

#include "common/clock.h"
#include "common/duration.h"
#include "common/log.h"
#include "common/objectives.h"
#include "common/pareto.h"
#include "common/study_defaults.h"
#include "tuner/study_run.h"

namespace sweep {

namespace {

// The step a running trial must still reach before its algorithm may end
// it: its next decision step (a rung, a PBT interval) or its last step;
// none where it is ending already, or where its algorithm may stop it at
// any step (the median rule).
std::optional<int64_t> MustReach(const Trial& t, const Scheduler& scheduler, int64_t task_steps) {
  if (t.segment_ended || scheduler.MayStopAtAnyStep()) return {};
  for (int64_t s : scheduler.DecisionSteps(t.number))
    if (s > t.last_step) return s;
  return task_steps;
}

}  // namespace

int64_t StudyRun::FrontSize() const {
  const int64_t completed = table_.Counts()[TrialStatus::kCompleted];
  if (front_size_.first == completed) return front_size_.second;
  std::vector<ParetoPoint> points;
  const std::vector<double> signs = GoalSigns(ObjectivesOf(study_));
  for (const auto& [id, t] : table_.all()) {
    if (t.status != TrialStatus::kCompleted || t.objectives.size() != signs.size()) continue;
    points.push_back({Minimised(t.objectives, signs), t.violation});
  }
  // With no feasible trial there is no front (sweep best says so).
  bool feasible = false;
  for (const ParetoPoint& p : points) feasible = feasible || p.violation <= 0;
  const int64_t n = feasible ? static_cast<int64_t>(NonDominatedFronts(points).front().size()) : 0;
  front_size_ = {completed, n};
  return n;
}

ProgressCounts StudyRun::Counts() const {
  ProgressCounts c;
  c.SetStatuses(table_.Counts());
  c.queued = static_cast<int64_t>(table_.queued());  // those waiting in the queue
  c.planned = scheduler_->Planned();
  if (TracksTrialValues(study_))
    c.front = FrontSize();
  else if (const Trial* b = table_.best())
    c.best = b->value;
  if (time_limit_s_ > 0) c.time_left_s = std::max(0.0, time_limit_s_ - RunSeconds());
  c.waiting = waiting_;
  const int64_t task_steps = TaskResource(study_.task());
  const int64_t now_ms = NowMs();
  const double steps = static_cast<double>(std::max<int64_t>(1, task_steps));
  for (const auto& [id, t] : table_.all()) {
    const double share = t.status == TrialStatus::kCompleted
                             ? 1.0
                             : std::min(1.0, static_cast<double>(t.last_step) / steps);
    c.work += share;
    if (t.status != TrialStatus::kRunning) continue;
    if (!c.slowest_step || t.last_step < *c.slowest_step) c.slowest_step = t.last_step;
    c.running_share += share;
    const std::optional<int64_t> reach = MustReach(t, *scheduler_, task_steps);
    if (!reach) continue;
    const int64_t left = std::max<int64_t>(0, *reach - t.last_step);
    // A trial of one step says nothing of how far it is.
    if (task_steps > 1)
      c.left_share = std::max(c.left_share.value_or(0.0), static_cast<double>(left) / steps);
    // Its own pace in this run, from its first report on.
    if (auto left_ms = paces_.LeftMs(id, t.last_step, left, now_ms))
      c.running_left_s = std::max(c.running_left_s.value_or(0.0), *left_ms / 1000);
  }
  return c;
}

void StudyRun::Tick() {
  const int64_t now = NowMs();
  if (now - run_written_ms_ >= 1000) {
    run_written_ms_ = now;
    Write(store_->Begin());
    Write(store_->SetStudyRunSeconds(study_id_, RunSeconds()));
  }
  if (TimeUp() && !time_up_told_) {
    time_up_told_ = true;
    std::string what = "the study has run " + DurationText(RunSeconds()) +
                       ", its time limit (algorithm.time_limit: " + DurationText(time_limit_s_) +
                       "): no trial starts";
    what += hard_limit_ ? ", and running trials stop now" : "; running trials finish";
    LOG_INFO << "study '" << study_.name() << "': " << what;
    Write(store_->Begin());
    Event(0, "time_limit", what);
  }
}

void StudyRun::WriteProgress() {
  // Progress (last step and objective) is written once per trial per commit.
  for (int64_t id : progress_dirty_) {
    const Trial* t = table_.Find(id);
    if (t) Write(store_->SetProgress(id, t->last_step, t->last_objective));
  }
  progress_dirty_.clear();
}

int64_t StudyRun::RunnersWanted() const {
  // The counts alone (Counts() also walks every trial for the progress line).
  int64_t want = table_.Counts()[TrialStatus::kRunning];
  if (HasWork()) {
    // Without a planned count (a time budget) it could use any number.
    const std::optional<int64_t> planned = scheduler_->Planned();
    want = planned ? want + static_cast<int64_t>(table_.queued()) +
                         std::max<int64_t>(0, *planned - static_cast<int64_t>(table_.all().size()))
                   : std::numeric_limits<int32_t>::max();
  }
  if (const int64_t cap = MaxConcurrent(); cap > 0) want = std::min(want, cap);
  return want;
}

}  // namespace sweep
