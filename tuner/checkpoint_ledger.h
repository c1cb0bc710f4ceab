// The bytes a study's checkpoint files take on disk, file by file: the
// tuner's one account of them, kept as it writes and removes them, so the
// study's disk budget is checked without walking the folder.
// REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>

namespace sweep {

class CheckpointLedger {
 public:
  // A file was written (or rewritten) with `bytes`.
  void Added(const std::string& path, int64_t bytes) {
    total_ += bytes - std::exchange(files_[path], bytes);
  }
  // A file is gone, or will be once the commit in progress is durable.
  void Removed(const std::string& path) {
    auto it = files_.find(path);
    if (it == files_.end()) return;
    total_ -= it->second;
    files_.erase(it);
  }
  int64_t total() const { return total_; }
  int64_t bytes(const std::string& path) const {
    auto it = files_.find(path);
    return it == files_.end() ? 0 : it->second;
  }

 private:
  std::unordered_map<std::string, int64_t> files_;
  int64_t total_ = 0;
};

}  // namespace sweep
