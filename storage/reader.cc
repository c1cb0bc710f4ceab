// Read-only queries over the results database.
#include "storage/reader.h"

#include <sys/stat.h>

#include <cctype>

#include "common/json_reader.h"
#include "storage/schema.h"
#include "storage/sqlite_util.h"

namespace sweep {

Result<std::unique_ptr<Reader>> Reader::Open(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return Status::NotFound(path + ": no such database (run a study first, or pass --db FILE)");
  }
  std::unique_ptr<Reader> r(new Reader());
  r->path_ = path;
  // One thread uses a Reader (see reader.h): no mutex on every column read.
  ASSIGN_OR_RETURN(r->db_, Connection::Open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX));
  sqlite3_busy_timeout(r->db_.get(), 5000);
  RETURN_IF_ERROR(Exec(r->db_.get(), "PRAGMA query_only=ON").Wrap(path));
  ASSIGN_OR_RETURN(int version, InspectDatabase(r->db_.get(), path));
  int latest = static_cast<int>(SchemaMigrations().size());
  if (version == 0)
    return Status::Corruption(path + ": not a sweep results database (it is empty)");
  if (version < latest) {
    // The typed reads need the current schema; only the tuner migrates.
    return Status::FailedPrecondition(path + ": database schema version " +
                                      std::to_string(version) + " is older than this sweep's (" +
                                      std::to_string(latest) +
                                      "); to upgrade it, resume a study in it once with this "
                                      "sweep's `sweep run`, or start this sweep's `sweep serve` "
                                      "on it");
  }
  return r;
}

namespace {

std::vector<Cell> RowCells(Stmt* s) {
  std::vector<Cell> cells;
  for (int i = 0; i < s->columns(); ++i) {
    switch (s->ColumnType(i)) {
      case SQLITE_INTEGER:
        cells.emplace_back(s->Int(i));
        break;
      case SQLITE_FLOAT:
        cells.emplace_back(s->Double(i));
        break;
      case SQLITE_NULL:
        cells.emplace_back(std::monostate());
        break;
      case SQLITE_BLOB:
        cells.emplace_back("<blob " + std::to_string(sqlite3_column_bytes(s->raw(), i)) +
                           " bytes>");
        break;
      default:
        cells.emplace_back(s->Text(i));
    }
  }
  return cells;
}

}  // namespace

Result<bool> Reader::QueryRows(const std::string& sql, size_t limit,
                               const std::function<Status(const std::vector<std::string>&)>& header,
                               const std::function<Status(std::vector<Cell>)>& row) {
  const char* tail = nullptr;
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(), sql, &tail));
  if (s.raw() == nullptr) return Status::InvalidArgument("empty query");
  for (const char* p = tail; p && *p; ++p) {
    if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';') {
      return Status::InvalidArgument(
          "sweep query runs one statement at a time; found more after the first");
    }
  }
  if (!s.readonly()) {
    return Status::InvalidArgument(
        "sweep query is read-only: this statement would modify the database, so it was not run");
  }
  std::vector<std::string> columns;
  for (int i = 0; i < s.columns(); ++i) columns.push_back(s.ColumnName(i));
  RETURN_IF_ERROR(header(columns));
  for (size_t n = 0;; ++n) {
    ASSIGN_OR_RETURN(bool more, s.Step());
    if (!more) return false;
    if (limit > 0 && n == limit) return true;
    RETURN_IF_ERROR(row(RowCells(&s)));
  }
}

Result<Table> Reader::Query(const std::string& sql, size_t limit) {
  Table t;
  ASSIGN_OR_RETURN(t.truncated, QueryRows(
                                    sql, limit,
                                    [&](const std::vector<std::string>& columns) {
                                      t.columns = columns;
                                      return Status::Ok();
                                    },
                                    [&](std::vector<Cell> cells) {
                                      t.rows.push_back(std::move(cells));
                                      return Status::Ok();
                                    }));
  return t;
}

Result<StudyRef> Reader::ResolveStudy(const std::string& name) {
  ASSIGN_OR_RETURN(
      Stmt s,
      Stmt::Prepare(db_.get(), "SELECT id, name, objective_metric, goal FROM studies ORDER BY id"));
  std::vector<StudyRef> all;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    all.push_back(StudyRef{s.Int(0), s.Text(1), s.Text(2), s.Text(3) == "maximize"});
  }
  std::string names;
  for (const auto& r : all) {
    if (!name.empty() && r.name == name) return r;
    names += (names.empty() ? "" : ", ") + r.name;
  }
  if (all.empty()) return Status::NotFound(path_ + " holds no studies yet");
  if (!name.empty())
    return Status::NotFound("no study named '" + name + "' in " + path_ + " (studies: " + names +
                            ")");
  if (all.size() > 1)
    return Status::InvalidArgument(path_ + " holds several studies; name one of: " + names);
  return all[0];
}

namespace {

// The columns ReadTrial reads, first in every trial query.
constexpr char kTrialColumns[] =
    "t.id, t.number, t.status, t.params_pb, t.value, t.step, t.attempts, t.runner, t.failure, "
    "t.metrics, t.parent_id, t.parent_step, t.created_at, t.started_at, t.ended_at, "
    "(SELECT p.number FROM trials p WHERE p.id = t.parent_id)";
constexpr int kTrialColumnCount = 16;

// Reads kTrialColumns from the current row of `s`.
Status ReadTrial(const Stmt& s, const std::string& path, TrialView* t) {
  t->id = s.Int(0);
  t->number = s.Int(1);
  auto status = ParseTrialStatus(s.Text(2));
  if (!status) {
    return Status::Corruption(path + ": trial " + std::to_string(t->id) + " (number " +
                              std::to_string(t->number) + ") has an unknown status '" + s.Text(2) +
                              "'");
  }
  t->status = *status;
  if (!t->params.ParseFromArray(sqlite3_column_blob(s.raw(), 3),
                                sqlite3_column_bytes(s.raw(), 3))) {
    return Status::Corruption(path + ": trial " + std::to_string(t->id) + " (number " +
                              std::to_string(t->number) +
                              "): column trials.params_pb is corrupt (not a ParamSet)");
  }
  if (!s.IsNull(4)) t->value = s.Double(4);
  if (!s.IsNull(5)) t->step = s.Int(5);
  t->attempts = static_cast<int>(s.Int(6));
  t->runner = s.Text(7);
  t->failure = s.Text(8);
  t->metrics_json = s.Text(9);
  if (!s.IsNull(10)) t->parent = s.Int(10);
  if (!s.IsNull(11)) t->parent_step = s.Int(11);
  t->created_at = s.Double(12);
  if (!s.IsNull(13)) t->started_at = s.Double(13);
  if (!s.IsNull(14)) t->ended_at = s.Double(14);
  if (!s.IsNull(15)) t->parent_number = s.Int(15);
  if (!t->metrics_json.empty()) {
    // Parsed here, not by SQLite's json_each: a query per trial cost more
    // than the trial's own row. Text that is not an object leaves them empty.
    auto fields = ParseJsonObject(t->metrics_json);
    if (fields.ok()) {
      for (JsonField& f : *fields) {
        t->metrics.emplace_back(std::move(f.key), f.kind == JsonField::Kind::kNumber
                                                      ? std::optional<double>(f.number)
                                                      : std::nullopt);
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<TrialView>> Reader::TrialsWhere(const std::string& sql, int64_t arg,
                                                   std::optional<TrialStatus> status) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(), sql));
  s.Bind(1, arg);
  if (status) s.Bind(2, TrialStatusName(*status));
  std::vector<TrialView> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    TrialView t;
    RETURN_IF_ERROR(ReadTrial(s, path_, &t));
    out.push_back(std::move(t));
  }
  return out;
}

Result<std::vector<TrialView>> Reader::Trials(const StudyRef& study,
                                              std::optional<TrialStatus> status, int top) {
  std::string sql = std::string("SELECT ") + kTrialColumns + " FROM trials t WHERE t.study_id=?1";
  if (status) sql += " AND t.status=?2";
  if (top > 0) {
    sql += " AND t.value IS NOT NULL AND t.status=" + Sql(TrialStatus::kCompleted) +
           " ORDER BY t.value " + std::string(study.maximize ? "DESC" : "ASC") + ", t.id LIMIT " +
           std::to_string(top);
  } else {
    sql += " ORDER BY t.id";
  }
  return TrialsWhere(sql, study.id, status);
}

Result<TrialDetail> Reader::Trial(int64_t trial_id) {
  static_assert(kTrialColumnCount == 16);
  ASSIGN_OR_RETURN(
      Stmt s, Stmt::Prepare(db_.get(), std::string("SELECT ") + kTrialColumns +
                                           ", t.params, s.id, s.name, s.objective_metric, s.goal "
                                           "FROM trials t JOIN studies s ON s.id = t.study_id "
                                           "WHERE t.id=?1"));
  s.Bind(1, trial_id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::NotFound("no trial " + std::to_string(trial_id) + " in this database");
  TrialDetail d;
  RETURN_IF_ERROR(ReadTrial(s, path_, &d.trial));
  constexpr int c = kTrialColumnCount;
  d.params_json = s.Text(c);
  d.study = StudyRef{s.Int(c + 1), s.Text(c + 2), s.Text(c + 3), s.Text(c + 4) == "maximize"};
  return d;
}

Result<int64_t> Reader::TrialId(const StudyRef& study, int64_t number) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT (SELECT id FROM trials WHERE study_id=?1 AND "
                                         "number=?2), count(*), min(number), max(number) FROM "
                                         "trials WHERE study_id=?1"));
  s.Bind(1, study.id);
  s.Bind(2, number);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (row && !s.IsNull(0)) return s.Int(0);
  int64_t n = row ? s.Int(1) : 0;
  return Status::NotFound("study '" + study.name + "' has no trial " + std::to_string(number) +
                          (n == 0 ? " (it has no trials yet)"
                                  : " (its trials are " + std::to_string(s.Int(2)) + " to " +
                                        std::to_string(s.Int(3)) + ")"));
}

Result<std::vector<std::string>> Reader::RunningStudyNames() {
  ASSIGN_OR_RETURN(
      Stmt s, Stmt::Prepare(db_.get(), "SELECT name FROM studies WHERE status = ?1 ORDER BY id"));
  s.Bind(1, StudyStatusName(StudyStatus::kRunning));
  std::vector<std::string> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(s.Text(0));
  }
  return out;
}

std::optional<std::string> Reader::StudyFile(const std::string& study_name) {
  // (Not there before schema version 10: then unknown.)
  auto s = Stmt::Prepare(db_.get(), "SELECT study_file FROM studies WHERE name=?1");
  if (!s.ok()) return std::nullopt;
  s->Bind(1, study_name);
  auto row = s->Step();
  if (!row.ok() || !*row || s->IsNull(0)) return std::nullopt;
  return s->Text(0);
}

Result<int64_t> Reader::CopiedTrialCount(int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT count(*) FROM trials WHERE study_id=?1 AND "
                                         "attempts = 0 AND status IN " +
                                             SqlFinishedStatuses()));
  s.Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<std::optional<CheckpointView>> Reader::Checkpoint(int64_t trial_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT path, checksum, step FROM checkpoints WHERE "
                                         "trial_id=?1"));
  s.Bind(1, trial_id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<CheckpointView>();
  if (s.IsNull(0) || s.IsNull(1) || s.IsNull(2))
    return Status::Corruption(path_ + ": trial " + std::to_string(trial_id) +
                              ": its checkpoints row is malformed");
  return std::optional<CheckpointView>(CheckpointView{s.Text(0), s.Int(1), s.Int(2)});
}

Result<std::vector<TrialView>> Reader::Children(int64_t trial_id) {
  return TrialsWhere(
      std::string("SELECT ") + kTrialColumns + " FROM trials t WHERE t.parent_id=?1 ORDER BY t.id",
      trial_id);
}

Result<std::vector<DecisionView>> Reader::Decisions(int64_t trial_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT id, step, decision, reason, at FROM decisions "
                                         "WHERE trial_id=?1 ORDER BY id"));
  s.Bind(1, trial_id);
  std::vector<DecisionView> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(DecisionView{s.Int(0), s.Int(1), s.Text(2), s.Text(3), s.Double(4)});
  }
  return out;
}

namespace {

// The events `where` (an SQL condition on ?1 = `id`) selects, in order.
Result<std::vector<EventView>> EventsWhere(sqlite3* db, const char* where, int64_t id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db, std::string("SELECT id, kind, detail, at FROM events "
                                                         "WHERE ") +
                                                 where + " ORDER BY id"));
  s.Bind(1, id);
  std::vector<EventView> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(EventView{s.Int(0), s.Text(1), s.Text(2), s.Double(3)});
  }
  return out;
}

}  // namespace

Result<std::vector<EventView>> Reader::Events(int64_t trial_id) {
  return EventsWhere(db_.get(), "trial_id=?1", trial_id);
}

Result<std::vector<EventView>> Reader::StudyEvents(int64_t study_id) {
  return EventsWhere(db_.get(), "study_id=?1 AND trial_id IS NULL", study_id);
}

}  // namespace sweep

namespace sweep {

Result<std::vector<LogView>> Reader::Logs(int64_t trial_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db_.get(),
                                         "SELECT attempt, path, bytes, dropped, tail FROM "
                                         "trial_logs WHERE trial_id=?1 ORDER BY attempt"));
  s.Bind(1, trial_id);
  std::vector<LogView> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({static_cast<int>(s.Int(0)), s.Text(1), s.Int(2), s.Int(3), s.Text(4)});
  }
  return out;
}

}  // namespace sweep
