// A study's checkpoint files: written, counted, and removed once durable.
#include "tuner/study_checkpoint_files.h"

#include <dirent.h>
#include <sys/stat.h>

#include <cstdio>

#include "storage/checkpoint_files.h"
#include "storage/db_files.h"

namespace sweep {

void StudyCheckpointFiles::Count(const std::string& path) {
  struct stat st;
  if (!path.empty() && stat(path.c_str(), &st) == 0) ledger_.Added(path, st.st_size);
}

Result<std::string> StudyCheckpointFiles::Write(int64_t trial_number, int64_t step,
                                                const std::string& data) {
  ASSIGN_OR_RETURN(std::string path, WriteCheckpointFile(dir_, trial_number, step, data));
  ledger_.Added(path, static_cast<int64_t>(data.size()));
  return path;
}

void StudyCheckpointFiles::RemoveNow(const std::string& path) {
  ledger_.Removed(path);
  std::remove(path.c_str());
}

void StudyCheckpointFiles::RemoveAfterCommit(const std::string& path) {
  ledger_.Removed(path);
  obsolete_.push_back(path);
}

void StudyCheckpointFiles::Committed(uint64_t ticket) {
  if (obsolete_.empty()) return;
  removable_.emplace_back(ticket, std::move(obsolete_));
  obsolete_.clear();
}

void StudyCheckpointFiles::Durable(uint64_t ticket) {
  while (!removable_.empty() && removable_.front().first <= ticket) {
    for (const auto& f : removable_.front().second) std::remove(f.c_str());
    removable_.pop_front();
  }
}

int StudyCheckpointFiles::RemoveUnnamed(
    const std::function<const std::string*(int64_t trial_number)>& named) {
  DIR* d = opendir(dir_.c_str());
  if (!d) return 0;
  std::vector<std::string> doomed;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    int64_t number = 0;
    if (!TrialOfFile(name, &number) || name.rfind(CheckpointFilePrefix(number), 0) != 0) continue;
    const std::string* kept = named(number);
    // By name: the row's path may spell the folder otherwise (./x.db, x.db).
    if (!kept || kept->substr(kept->find_last_of('/') + 1) == name) continue;
    std::string path = dir_ + "/" + name;
    struct stat st;
    if (lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) doomed.push_back(path);
  }
  closedir(d);
  for (const auto& path : doomed) std::remove(path.c_str());
  return static_cast<int>(doomed.size());
}

}  // namespace sweep
