// A study's checkpoint files: each one a runner sends is capped in size
// (resources.max_checkpoint_mb), written atomically, recorded with its
// step's report, and counted against the study's disk budget
// (resources.checkpoint_budget_mb), which removes those no decision can
// need before it refuses a new one.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"
#include "common/values.h"
#include "storage/checkpoint_files.h"
#include "tuner/study_run.h"

namespace sweep {

namespace {

constexpr double kMiB = 1 << 20;

}  // namespace

int64_t StudyRun::MaxCheckpointBytes() const {
  return static_cast<int64_t>(study_.resources().max_checkpoint_mb() * kMiB);
}

void StudyRun::RemoveUnnamedCheckpoints() {
  // Left by a crash: a checkpoint whose report never came, or one replaced
  // or removed (budget) whose file outlived the commit. No row names them,
  // so no run will read them; they would count against nothing and stay.
  int removed = checkpoint_files_.RemoveUnnamed([&](int64_t number) -> const std::string* {
    const Trial* t = table_.FindNumber(number);
    return t ? &t->checkpoint_path : nullptr;
  });
  if (removed > 0)
    LOG_INFO << "removed " << removed << " checkpoint files of study '" << study_.name()
             << "' that no committed row names (left by an earlier run)";
}

void StudyRun::OnCheckpoint(const pb::Checkpoint& ckpt) {
  Trial* t = Running(ckpt.trial_id(), ckpt.lease());
  if (!t) return;
  int64_t bytes = static_cast<int64_t>(ckpt.data().size());
  std::string refused;
  if (bytes > MaxCheckpointBytes()) {
    // An honest runner fails such a trial itself and never sends it.
    refused = FormatMiB(bytes) + ", over the study's resources.max_checkpoint_mb (" +
              FormatDouble(study_.resources().max_checkpoint_mb()) + ")";
  } else if (!MakeRoom(bytes - checkpoint_files_.bytes(t->unreported ? t->unreported->path
                                                                     : t->checkpoint_path))) {
    // (It takes the place of the trial's own latest checkpoint.)
    refused = FormatMiB(bytes) + ": the study's checkpoints already take " +
              FormatMiB(KeptCheckpointBytes()) + ", and none that is left may be removed, so it " +
              "would pass resources.checkpoint_budget_mb (" +
              FormatDouble(study_.resources().checkpoint_budget_mb()) + ")";
  }
  if (!refused.empty()) {
    // The trial goes on; a re-run would start from the previous checkpoint.
    if (checkpoints_refused_++ == 0)
      LOG_WARN << "trial " << t->number << ": checkpoint after step " << ckpt.step()
               << " refused: " << refused;
    Event(t->id, "checkpoint_refused",
          "after step " + std::to_string(ckpt.step()) + ": " + refused);
    return;
  }
  auto path = checkpoint_files_.Write(t->number, ckpt.step(), ckpt.data());
  if (!path.ok()) {
    LOG_WARN << "trial " << t->number << ": " << path.status().message();
    Event(t->id, "checkpoint_failed", path.status().message());
    return;
  }
  if (auto orphan = t->DropUnreported(); orphan && *orphan != *path)
    checkpoint_files_.RemoveNow(*orphan);
  t->unreported = Trial::Unreported{*path, ckpt.step(), bytes, Checksum(ckpt.data())};
}

void StudyRun::CommitCheckpoint(Trial* t, int64_t step, double now) {
  if (!t->unreported || t->unreported->step != step) return;
  Trial::Unreported c = *std::exchange(t->unreported, std::nullopt);
  Write(store_->Begin());
  Write(store_->RecordCheckpoint(t->id, step, c.path, c.bytes, c.checksum, now));
  // The previous file goes once the new row is committed.
  if (!t->checkpoint_path.empty() && t->checkpoint_path != c.path) {
    checkpoint_files_.RemoveAfterCommit(t->checkpoint_path);
  }
  t->checkpoint_path = c.path;
  t->checkpoint_step = step;
  t->checkpoint_checksum = c.checksum;
  scheduler_->OnCheckpoint(t->number, step);
}

int64_t StudyRun::KeptCheckpointBytes() const {
  // A checkpoint on its way (written, its report not in yet) takes the
  // place of the trial's committed one, which goes with that commit.
  int64_t kept = checkpoint_files_.total();
  for (const auto& [id, t] : table_.all())
    if (t.unreported && !t.checkpoint_path.empty() && t.checkpoint_path != t.unreported->path)
      kept -= checkpoint_files_.bytes(t.checkpoint_path);
  return kept;
}

bool StudyRun::MakeRoom(int64_t bytes) {
  const int64_t budget = static_cast<int64_t>(study_.resources().checkpoint_budget_mb() * kMiB);
  if (budget <= 0 || checkpoint_files_.total() + bytes <= budget) return true;
  int64_t kept = KeptCheckpointBytes();
  if (kept + bytes <= budget) return true;
  // What no decision can need: a failed trial never runs again, nor does a
  // stopped one (Hyperband, ASHA and the median rule never resume a stopped
  // trial; PBT copies a parent's checkpoint when it exploits). A completed
  // trial's last checkpoint is its model (`sweep predict`): the best one is
  // kept, and under PBT every completed member may still be a parent.
  const Trial* best = table_.best();
  const bool parents = scheduler_->ReadsFinishedCheckpoints();
  std::vector<Trial*> removable;
  for (const auto& [id, trial] : table_.all()) {
    if (trial.checkpoint_path.empty()) continue;
    bool ended = trial.status == TrialStatus::kFailed || trial.status == TrialStatus::kStopped ||
                 (trial.status == TrialStatus::kCompleted && !parents && &trial != best);
    if (ended) removable.push_back(table_.Find(id));
  }
  auto rank = [](const Trial* t) {
    return t->status == TrialStatus::kFailed ? 0 : t->status == TrialStatus::kStopped ? 1 : 2;
  };
  std::sort(removable.begin(), removable.end(), [&](const Trial* a, const Trial* b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a->id < b->id;
  });
  // Nothing goes unless enough can go for this one to fit.
  int64_t could_free = 0;
  for (const Trial* t : removable) could_free += checkpoint_files_.bytes(t->checkpoint_path);
  if (kept - could_free + bytes > budget) return false;
  for (Trial* t : removable) {
    if (kept + bytes <= budget) break;
    int64_t freed = checkpoint_files_.bytes(t->checkpoint_path);
    kept -= freed;
    checkpoint_files_.RemoveAfterCommit(t->checkpoint_path);  // once the row's removal is durable
    Write(store_->Begin());
    Write(store_->DropCheckpoint(t->id));
    Event(t->id, "checkpoint_removed",
          "its checkpoint at step " + std::to_string(t->checkpoint_step) + " (" + FormatMiB(freed) +
              ") was removed to keep the study's checkpoints within "
              "resources.checkpoint_budget_mb (" +
              FormatDouble(study_.resources().checkpoint_budget_mb()) + ")");
    t->checkpoint_path.clear();
    t->checkpoint_step = 0;
    t->checkpoint_checksum = 0;
  }
  return kept + bytes <= budget;
}

}  // namespace sweep
