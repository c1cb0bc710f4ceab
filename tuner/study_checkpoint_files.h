// A study's checkpoint files in its folder (storage/db_files.h): the folder
// they are written to, the bytes each takes (the ledger its disk budget is checked
// against, without walking the folder), and the files a commit replaced,
// deleted only once that commit is durable. Owned by the StudyRun, whose
// study_checkpoints.cc decides what to keep (caps, budget).
// REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "tuner/checkpoint_ledger.h"

namespace sweep {

class StudyCheckpointFiles {
 public:
  // The study's folder, once its id is known.
  void set_dir(std::string dir) { dir_ = std::move(dir); }

  // A file already on disk (a resumed study's); nothing for "" or a file
  // that is gone.
  void Count(const std::string& path);
  // Writes the checkpoint of `step` of the trial numbered `trial_number`
  // atomically (storage/checkpoint_files.h) and counts it; returns its path.
  Result<std::string> Write(int64_t trial_number, int64_t step, const std::string& data);
  // Gone now: no committed row names it.
  void RemoveNow(const std::string& path);
  // Goes once the commit in progress, which stops naming it, is durable.
  void RemoveAfterCommit(const std::string& path);
  // The commit numbered `ticket` holds the removals asked for since the
  // last one.
  void Committed(uint64_t ticket);
  // Commits up to `ticket` are on disk: the files they replaced go.
  void Durable(uint64_t ticket);
  // Removes the checkpoint files of the folder whose trial (by the number in
  // their name) names another file as its checkpoint (`named` gives a
  // trial's committed path, null for no such trial): left by a crash, no run
  // reads them. Returns how many went.
  int RemoveUnnamed(const std::function<const std::string*(int64_t trial_number)>& named);

  int64_t total() const { return ledger_.total(); }
  int64_t bytes(const std::string& path) const { return ledger_.bytes(path); }

 private:
  std::string dir_;
  CheckpointLedger ledger_;
  std::vector<std::string> obsolete_;  // replaced by the commit in progress
  // Replaced by commits not yet durable, with their tickets, oldest first.
  std::deque<std::pair<uint64_t, std::vector<std::string>>> removable_;
};

}  // namespace sweep
