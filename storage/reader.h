// Read-only access to a results database, for `sweep studies|trials|best|
// query|export` and tests. Opens the file read-only, so it can never block or
// corrupt a running sweep (WAL readers do not block the writer).
// REQUIRES: external synchronization (one thread uses a Reader).
#pragma once

#include <sqlite3.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "storage/sqlite_util.h"

namespace sweep {

using Cell = std::variant<std::monostate, int64_t, double, std::string>;

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Cell>> rows;
};

struct StudyRef {
  int64_t id = 0;
  std::string name;
  std::string metric;
  bool maximize = false;
};

struct TrialView {
  int64_t id = 0;
  int64_t number = 0;
  std::string status;
  pb::ParamSet params;
  std::optional<double> value;
  std::optional<int64_t> step;
  int attempts = 0;
  std::string runner;
  std::string failure;
  std::string metrics_json;       // final metrics as a JSON object, or empty
  std::optional<int64_t> parent;  // PBT: id of the trial it was copied from
  std::optional<int64_t> parent_step;
  std::vector<std::pair<std::string, std::optional<double>>> metrics;  // the same, parsed
};

class Reader {
 public:
  static Result<std::unique_ptr<Reader>> Open(const std::string& path);

  // Runs one read-only SQL statement; a statement that would write is refused.
  Result<Table> Query(const std::string& sql);
  Result<Table> Studies();
  // Finds a study by name; an empty name means "the only study".
  Result<StudyRef> ResolveStudy(const std::string& name);
  // Trials of a study by id, or the `top` best completed ones by objective.
  Result<std::vector<TrialView>> Trials(const StudyRef& study, const std::string& status, int top);

 private:
  Reader() = default;
  Connection db_;  // the queries' statements are locals: gone before it closes
  std::string path_;
};

}  // namespace sweep
