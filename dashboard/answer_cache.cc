#include "dashboard/answer_cache.h"

namespace sweep {

void AnswerCache::MoveTo(int64_t version) {
  if (version == version_) return;
  answers_.clear();
  bytes_ = 0;
  version_ = version;
}

std::shared_ptr<const std::string> AnswerCache::Find(int64_t version, const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  if (version != version_) return nullptr;
  auto it = answers_.find(path);
  return it == answers_.end() ? nullptr : it->second;
}

std::shared_ptr<const std::string> AnswerCache::Put(int64_t version, const std::string& path,
                                                    std::string json) {
  auto answer = std::make_shared<const std::string>(std::move(json));
  std::lock_guard<std::mutex> lock(mu_);
  MoveTo(version);  // data_version only says "changed", not "newer": the last one wins
  size_t size = answer->size() + path.size();
  if (answers_.count(path) || bytes_ + size > max_bytes_) return answer;
  answers_[path] = answer;
  bytes_ += size;
  return answer;
}

size_t AnswerCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace sweep
