// The API answers every request shares, until the tuner next commits: the
// dashboard's pool of Readers fills one cache, so a study's page read by
// one Reader is served from memory to the next request whichever Reader
// takes it. Entries belong to one database version (PRAGMA data_version
// on the server's version connection); a new version empties the cache.
// Bounded in bytes: an answer that would pass the budget is not kept.
// One computation per answer: a request for an answer another request (or
// the server's warm-up) is computing waits for it instead of reading the
// database again. Thread-safe.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "common/status.h"

namespace sweep {

class AnswerCache {
 public:
  explicit AnswerCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The answer for `path` at `version`, or null.
  std::shared_ptr<const std::string> Find(int64_t version, const std::string& path);
  // Keeps `json` as the answer for `path` at `version` (read after
  // `version` was seen, so it is at least that new), if it fits.
  std::shared_ptr<const std::string> Put(int64_t version, const std::string& path,
                                         std::string json);
  // The answer for `path` at `version`: kept, being computed by another
  // caller (waited for), or computed here by `compute` and kept if it fits.
  // An error is returned to every caller waiting for it, and not kept.
  Result<std::shared_ptr<const std::string>> GetOrCompute(
      int64_t version, const std::string& path,
      const std::function<Result<std::string>()>& compute);
  size_t bytes() const;

 private:
  struct Flight {
    int64_t version = 0;
    bool done = false;
    std::shared_ptr<const std::string> answer;
    Status error = Status::Ok();
    std::condition_variable landed;
  };
  void MoveTo(int64_t version);  // REQUIRES: mu_ held
  // REQUIRES: mu_ held.
  void Keep(int64_t version, const std::string& path, std::shared_ptr<const std::string> answer);

  const size_t max_bytes_;
  mutable std::mutex mu_;
  int64_t version_ = -1;                                               // guarded by mu_
  size_t bytes_ = 0;                                                   // guarded by mu_
  std::map<std::string, std::shared_ptr<const std::string>> answers_;  // guarded by mu_
  std::map<std::string, std::shared_ptr<Flight>> flights_;             // guarded by mu_
};

}  // namespace sweep
