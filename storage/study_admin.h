// Deleting and renaming a study: writes made outside a sweep, through the
// tuner's Store, which holds the database's lock meanwhile (no tuner can
// start, and none may be running: Store::Open refuses then).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "storage/sqlite_store.h"

namespace sweep {

struct DeletedStudy {
  int64_t trials = 0, reports = 0, decisions = 0;
  std::vector<int64_t> trial_ids;
};

// Removes the study and everything of its trials (reports, decisions,
// events, checkpoints and their history, logs) in one transaction.
Result<DeletedStudy> DeleteStudy(Store& store, int64_t study_id);

// Gives the study a new name, in its row and in its stored definition, so
// a study file with `name: NEW` resumes it. NEW must be free.
Status RenameStudy(Store& store, int64_t study_id, const std::string& name);

// Deletes the checkpoint and log files of these trials from the folders
// beside the database (DB.checkpoints, DB.logs), found by their names
// (trial-ID-step-*.ckpt, trial-ID.attempt-*.log), never by a path read from
// the database. Returns how many were removed.
int RemoveTrialFiles(const std::string& db, const std::vector<int64_t>& trial_ids);

}  // namespace sweep
