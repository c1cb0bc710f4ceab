// The dashboard's JSON API: a GET path to its JSON text, read from the
// database through one read-only Reader. Answers that do not depend on the
// clock are cached until the tuner next commits (PRAGMA data_version), so
// a page that polls costs one tiny query per poll while nothing changes.
// REQUIRES: external synchronization (the server gives each request an Api
// of its own, from a pool).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/status.h"
#include "storage/reader.h"

namespace sweep {

class Api {
 public:
  static Result<std::unique_ptr<Api>> Open(const std::string& db);

  // `path` without its query string, e.g. "/api/studies/1/trials".
  // NotFound for a path that is not in the API or an id that is not in the
  // database; `now` is wall-clock seconds.
  Result<std::string> Get(const std::string& path, double now);

  Reader& reader() { return *reader_; }

 private:
  explicit Api(std::unique_ptr<Reader> reader) : reader_(std::move(reader)) {}
  Result<std::string> Answer(const std::string& path, double now, bool* cacheable);

  std::unique_ptr<Reader> reader_;
  int64_t version_ = -1;  // data_version the cache was filled at
  std::map<std::string, std::string> cache_;
};

}  // namespace sweep
