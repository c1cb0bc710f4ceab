// A study opened: its folders checked, its definition compared with the
// stored one (the changes a resume accepts), its trials and their values
// loaded, and its algorithm rebuilt by replaying the history the database
// holds.
#include <sys/stat.h>

#include <map>
#include <tuple>

#include "common/log.h"
#include "common/objectives.h"
#include "storage/checkpoint_files.h"
#include "storage/db_files.h"
#include "storage/study_admin.h"
#include "tuner/study_change.h"
#include "tuner/study_run.h"

namespace sweep {

Result<std::unique_ptr<StudyRun>> StudyRun::Open(Store* store, const pb::Study& study,
                                                 std::string db_folder) {
  ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(study));
  // A folder someone else made (or left open to others) is refused now, not
  // at the first checkpoint; a missing one is made when first needed.
  struct stat st;
  if (lstat(db_folder.c_str(), &st) == 0)
    RETURN_IF_ERROR(CheckCheckpointDir(db_folder, /*create=*/false, "database folder", false));
  // A database's old folders, whose files its rows may still name.
  const std::pair<std::string, const char*> old[] = {
      {OldCheckpointDirOf(store->path()), "checkpoint folder"},
      {OldLogDirOf(store->path()), "log folder"}};
  for (const auto& [dir, what] : old)
    if (lstat(dir.c_str(), &st) == 0) RETURN_IF_ERROR(CheckCheckpointDir(dir, false, what, false));
  std::unique_ptr<StudyRun> run(new StudyRun(store, study, std::move(space), std::move(db_folder)));
  RETURN_IF_ERROR(run->Load());
  return run;
}

Status StudyRun::Load() {
  ASSIGN_OR_RETURN(std::optional<Store::StoredStudy> stored, store_->FindStudy(study_.name()));
  std::vector<std::string> changes;
  if (stored) {
    const std::string folder = StudyFolderIn(db_folder_, stored->id);
    struct stat st;
    if (lstat(folder.c_str(), &st) == 0) RETURN_IF_ERROR(CheckCheckpointDir(folder, false));
    // A changed study file resumes only with changes that keep every
    // recorded trial valid (tuner/study_change.h).
    ASSIGN_OR_RETURN(bool results, store_->HasResults(stored->id));
    // It worked before: failures now are not a mistake in its set-up.
    if (results) fail_fast_.Disarm();
    ASSIGN_OR_RETURN(changes, CompareStudies(stored->spec, study_, results));
    study_id_ = stored->id;
    run_base_s_ = stored->run_seconds;
  } else {
    ASSIGN_OR_RETURN(study_id_, store_->CreateStudy(study_));
    // A deleted study's id comes again (SQLite reuses the largest): files
    // its folder kept are not this study's.
    if (int stale = RemoveStudyFolder(StudyFolderIn(db_folder_, study_id_)))
      LOG_INFO << "removed " << stale << " files of a deleted study from "
               << StudyFolderIn(db_folder_, study_id_);
  }
  logs_.set_dir(StudyFolderIn(db_folder_, study_id_));
  checkpoint_files_.set_dir(StudyFolderIn(db_folder_, study_id_));
  writes_.set_study_id(study_id_);
  RETURN_IF_ERROR(store_->Begin());
  if (!changes.empty()) {
    std::string what;
    for (const auto& c : changes) what += (what.empty() ? "" : "; ") + c;
    RETURN_IF_ERROR(store_->ReplaceStudySpec(study_id_, study_));
    RETURN_IF_ERROR(store_->AddEvent(study_id_, 0, "changed", what, Stamp()));
    LOG_INFO << "study '" << study_.name() << "' resumes changed: " << what;
  }
  ASSIGN_OR_RETURN(int requeued, store_->RequeueRunning(study_id_, Stamp()));
  if (requeued > 0) {
    RETURN_IF_ERROR(store_->AddEvent(study_id_, 0, "resumed",
                                     std::to_string(requeued) + " interrupted trials re-queued",
                                     Stamp()));
  }
  RETURN_IF_ERROR(store_->SetStudyStatus(study_id_, StudyStatus::kRunning, Stamp()));
  ASSIGN_OR_RETURN(std::vector<TrialRecord> existing, store_->LoadTrials(study_id_));
  std::map<int64_t, TrialValueSummary> values;
  if (TracksTrialValues(study_)) {
    ASSIGN_OR_RETURN(
        values, store_->LoadTrialValues(study_id_, static_cast<int>(ObjectivesOf(study_).size())));
  }
  for (auto& r : existing) {
    Trial t;
    t.id = r.id;
    t.number = r.number;
    t.status = r.status;
    t.attempts = r.attempts;
    t.params = std::move(r.params);
    t.checkpoint_path = r.checkpoint_path;
    t.checkpoint_step = r.checkpoint_step;
    t.checkpoint_checksum = r.checkpoint_checksum;
    checkpoint_files_.Count(t.checkpoint_path);
    t.parent_id = r.parent_id;
    t.decided_step = r.decided_step;
    t.attempt_open = r.attempt_open && r.attempts > 0;
    t.last_step = r.step;
    t.attempt_reported = r.reported_step;
    t.last_objective = r.last_objective;
    if (t.status == TrialStatus::kCompleted) t.value = r.value;
    if (auto v = values.find(t.id); v != values.end()) {
      t.objectives = std::move(v->second.objectives);
      t.violation = v->second.violation;
    }
    table_.Insert(std::move(t));
  }
  RemoveUnnamedCheckpoints();
  scheduler_ = MakeScheduler(study_, space_, table_.size(), 0, &table_);
  // The algorithm's state is rebuilt by replaying what the database holds;
  // its decisions about other trials that were not yet carried out (none,
  // unless the tuner died between deciding and committing) apply now.
  ASSIGN_OR_RETURN(auto history, store_->LoadHistory(study_id_, PrimaryObjective(study_).metric()));
  // Several objectives: each report's every objective, as OnReport gave them.
  std::map<std::tuple<int64_t, int, int64_t>, std::vector<double>> all;
  if (HasSeveralObjectives(study_)) {
    std::vector<std::string> metrics;
    for (const pb::Objective& o : ObjectivesOf(study_)) metrics.push_back(o.metric());
    ASSIGN_OR_RETURN(all, store_->LoadObjectiveReports(study_id_, metrics));
  }
  std::vector<Replacement> replacements;
  for (const auto& e : history) {
    writes_.RaiseFloor(e.at);
    switch (e.kind) {
      case Store::HistoryEvent::kCheckpoint:
        scheduler_->OnCheckpoint(e.number, e.step);
        break;
      case Store::HistoryEvent::kReport: {
        // A replacement decided here was created then, unless the tuner
        // died before committing it: it is created now.
        auto values = all.find({e.number, e.attempt, e.step});
        Action a = values == all.end() ? scheduler_->OnReport(e.number, e.step, e.value)
                                       : scheduler_->OnReportAll(e.number, e.step, values->second);
        if (a.replacement) replacements.push_back(std::move(*a.replacement));
        break;
      }
      case Store::HistoryEvent::kEnd:
        scheduler_->OnEnd(e.number, e.step);
        break;
    }
  }
  ApplyDirectives();
  for (const Replacement& r : replacements) Replace(r);
  return writes_.error();
}

}  // namespace sweep
