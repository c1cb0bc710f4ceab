// The dashboard's JSON API: a GET path to its JSON text, read from the
// database through one read-only Reader. The server caches the answers
// that do not depend on the clock (AnswerCache), so a page that polls
// costs one tiny query per poll while nothing changes.
// REQUIRES: external synchronization (the server gives each request an Api
// of its own, from a pool).
#pragma once

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
  // database; `now` is wall-clock seconds. `*cacheable` says whether the
  // answer holds until the database changes (it does not use `now`).
  Result<std::string> Get(const std::string& path, double now, bool* cacheable = nullptr);

  // Whether Get's answer for `path` holds until the database changes (it
  // does not use the clock): a study's views and a trial's page.
  static bool Cacheable(const std::string& path);

  Reader& reader() { return *reader_; }

 private:
  explicit Api(std::unique_ptr<Reader> reader) : reader_(std::move(reader)) {}

  std::unique_ptr<Reader> reader_;
};

}  // namespace sweep
