// The private folder where a runner keeps its command attempts' files
// (parameters, checkpoint and resume folders): made at start-up under a base
// folder, locked while the runner lives, and removed when it exits. Folders
// that runners killed earlier left behind (no live holder of their lock) are
// removed when the next runner starts under the same base.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

class WorkFolder {
 public:
  // Makes `base`/sweep-runner-XXXXXX (0700) after removing stale ones.
  static Result<WorkFolder> Open(const std::string& base);
  WorkFolder(WorkFolder&& o) noexcept;
  WorkFolder& operator=(WorkFolder&&) = delete;
  WorkFolder(const WorkFolder&) = delete;
  ~WorkFolder();  // removes the folder
  const std::string& path() const { return path_; }

 private:
  WorkFolder(std::string path, int lock_fd) : path_(std::move(path)), lock_fd_(lock_fd) {}
  std::string path_;
  int lock_fd_ = -1;  // flock'ed: the folder is in use
};

}  // namespace sweep
