// Thin RAII wrappers over the SQLite C API. SQLite errors become Status here,
// and nowhere else. Not thread-safe: one connection per thread.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/status.h"
#include "common/trial_status.h"

namespace sweep {

// A status as an SQL literal ('completed'), for the statements that name
// one: the word itself is common/trial_status.cc's.
inline std::string Sql(TrialStatus s) { return std::string("'") + TrialStatusName(s) + "'"; }
inline std::string Sql(StudyStatus s) { return std::string("'") + StudyStatusName(s) + "'"; }
// "('completed', 'failed', 'stopped')": the statuses IsFinished names.
inline std::string SqlFinishedStatuses() {
  std::string out;
  for (int i = 0; i < kTrialStatusCount; ++i) {
    const auto s = static_cast<TrialStatus>(i);
    if (IsFinished(s)) out += (out.empty() ? "(" : ", ") + Sql(s);
  }
  return out + ")";
}

Status SqliteError(sqlite3* db, int rc, const std::string& what);

// Owns a database connection and closes it with a checked sqlite3_close. A
// close fails (SQLITE_BUSY) while any statement prepared on the connection is
// unfinalized, so declare a Connection before the Stmts that use it: members
// are destroyed in reverse order, so the statements finalize first. A failed
// close is logged with the SQL of each statement still open.
class Connection {
 public:
  Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  Connection(Connection&& o) noexcept : db_(o.db_), path_(std::move(o.path_)) { o.db_ = nullptr; }
  Connection& operator=(Connection&& o) noexcept;
  ~Connection() { (void)Close(); }

  // `flags` as for sqlite3_open_v2.
  static Result<Connection> Open(const std::string& path, int flags);
  // Closes the connection (idempotent); an error leaves it open.
  Status Close();

  sqlite3* get() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// A prepared statement: bind by 1-based index, Step, read columns.
class Stmt {
 public:
  Stmt() = default;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  Stmt(Stmt&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }
  Stmt& operator=(Stmt&& o) noexcept;
  ~Stmt();

  static Result<Stmt> Prepare(sqlite3* db, std::string_view sql, const char** tail = nullptr);

  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, int v) { return Bind(i, static_cast<int64_t>(v)); }
  Stmt& Bind(int i, uint64_t v) { return Bind(i, static_cast<int64_t>(v)); }
  Stmt& Bind(int i, const char* v) { return Bind(i, std::string_view(v)); }
  Stmt& Bind(int i, const std::string& v) { return Bind(i, std::string_view(v)); }
  Stmt& Bind(int i, double v);  // NaN/inf bind as NULL
  Stmt& Bind(int i, std::string_view v);
  Stmt& BindBlob(int i, std::string_view v);
  Stmt& BindNull(int i);
  Stmt& Bind(int i, std::optional<double> v) { return v ? Bind(i, *v) : BindNull(i); }

  // Returns true when a row is available, false when done.
  Result<bool> Step();
  // Runs to completion, then resets for reuse.
  Status Run();
  void Reset();

  int columns() const { return sqlite3_column_count(stmt_); }
  std::string ColumnName(int i) const { return sqlite3_column_name(stmt_, i); }
  int ColumnType(int i) const { return sqlite3_column_type(stmt_, i); }
  bool IsNull(int i) const { return ColumnType(i) == SQLITE_NULL; }
  int64_t Int(int i) const { return sqlite3_column_int64(stmt_, i); }
  double Double(int i) const { return sqlite3_column_double(stmt_, i); }
  std::string Text(int i) const;
  bool readonly() const { return sqlite3_stmt_readonly(stmt_) != 0; }
  sqlite3_stmt* raw() const { return stmt_; }

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

// Runs one or more statements with no results.
Status Exec(sqlite3* db, const std::string& sql);

}  // namespace sweep
