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

// `sweep run --retry-failed` and `sweep retry`: the study's failed trials
// (those numbered in `numbers`, or all when it is empty) go back to the queue
// with the same parameters, each with a `retry` event that keeps why it
// failed; their attempts count on, so the failed attempts' logs stay. Not
// committed: the caller commits (Begin first). Returns how many; a number
// that is not a failed trial of the study is an error naming it.
Result<int64_t> RetryFailedTrials(Store& store, int64_t study_id,
                                  const std::vector<int64_t>& numbers, double now);

// `sweep enqueue`: a queued trial for each of `points` (checked against the
// study's space by the caller), numbered on from the study's last trial,
// each with an `enqueued` event. Not committed: the caller commits (Begin
// first). Returns their numbers.
Result<std::vector<int64_t>> EnqueueTrials(Store& store, int64_t study_id,
                                           const std::vector<pb::ParamSet>& points, double now);

struct CollectedCheckpoints {
  int64_t removed = 0;  // trials whose checkpoint was removed
  int64_t kept = 0;     // the best completed trials, whose checkpoints stay
  int64_t files = 0;    // files removed (with those no row named)
  int64_t bytes = 0;    // their size
};

// `sweep gc` for a study that has finished (it has no queued, running or
// paused trial, so no decision can need a checkpoint): removes the latest
// checkpoint of each trial but the `keep_best` best completed ones (their
// models, for `sweep predict`), row and file, and any checkpoint file of
// its trials that no row names; checkpoint_history keeps what was there.
// Files are found by their names, never by a path read from the database.
// `dry_run`: counts, changes nothing. kFailedPrecondition if unfinished.
Result<CollectedCheckpoints> CollectCheckpoints(Store& store, int64_t study_id, int keep_best,
                                                bool dry_run);

// Deletes the checkpoint and log files of a deleted study: its folder's
// (storage/db_files.h), and those of its trials (`trial_ids`) in a
// database's old folders, found by their names, never by a path read from
// the database; then its folder, and the database's folder when that is
// empty. Returns how many files were removed.
int RemoveStudyFiles(const std::string& db, int64_t study_id,
                     const std::vector<int64_t>& trial_ids);

// Removes a study's folder (storage/db_files.h) with its trial files; a
// folder that is a link, or in a database folder that is one or open to
// others, is left alone. Returns how many files were removed. Also for a
// new study whose id a deleted one had, when `sweep delete` could not
// finish removing its folder.
int RemoveStudyFolder(const std::string& folder);

}  // namespace sweep
