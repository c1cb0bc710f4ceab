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

void AnswerCache::Keep(int64_t version, const std::string& path,
                       std::shared_ptr<const std::string> answer) {
  MoveTo(version);  // data_version only says "changed", not "newer": the last one wins
  size_t size = answer->size() + path.size();
  if (answers_.count(path) || bytes_ + size > max_bytes_) return;
  answers_[path] = std::move(answer);
  bytes_ += size;
}

std::shared_ptr<const std::string> AnswerCache::Put(int64_t version, const std::string& path,
                                                    std::string json) {
  auto answer = std::make_shared<const std::string>(std::move(json));
  std::lock_guard<std::mutex> lock(mu_);
  Keep(version, path, answer);
  return answer;
}

Result<std::shared_ptr<const std::string>> AnswerCache::GetOrCompute(
    int64_t version, const std::string& path, const std::function<Result<std::string>()>& compute) {
  std::unique_lock<std::mutex> lock(mu_);
  if (version == version_) {
    auto hit = answers_.find(path);
    if (hit != answers_.end()) return hit->second;
  }
  auto busy = flights_.find(path);
  if (busy != flights_.end() && busy->second->version == version) {
    std::shared_ptr<Flight> flight = busy->second;
    flight->landed.wait(lock, [&] { return flight->done; });
    if (flight->answer) return flight->answer;
    return flight->error;
  }
  auto flight = std::make_shared<Flight>();
  flight->version = version;
  flights_[path] = flight;
  lock.unlock();
  // Whatever happens, the waiters are let go: an exception is theirs too.
  auto land = [&](std::shared_ptr<const std::string> answer, Status error) {
    std::lock_guard<std::mutex> relock(mu_);
    flight->done = true;
    flight->answer = answer;
    flight->error = std::move(error);
    if (answer) Keep(version, path, answer);
    auto mine = flights_.find(path);
    if (mine != flights_.end() && mine->second == flight) flights_.erase(mine);
    flight->landed.notify_all();
  };
  Result<std::string> json = Status::Internal("not computed");
  try {
    json = compute();
  } catch (...) {
    land(nullptr, Status::Internal(path + ": the answer could not be made"));
    throw;
  }
  if (!json.ok()) {
    land(nullptr, json.status());
    return json.status();
  }
  auto answer = std::make_shared<const std::string>(std::move(*json));
  land(answer, Status::Ok());
  return answer;
}

size_t AnswerCache::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace sweep
