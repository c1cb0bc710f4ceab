// SQLite wrappers.
#include "storage/sqlite_util.h"

#include <cmath>

#include "common/log.h"

namespace sweep {

Status SqliteError(sqlite3* db, int rc, const std::string& what) {
  std::string msg = what + ": " + (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
  if (rc == SQLITE_FULL) msg += " (the disk is full; committed results are safe)";
  if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
    msg += " (another process holds a lock on the database)";
  switch (rc & 0xff) {  // the primary code of an extended one
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(msg);
    case SQLITE_FULL:
    case SQLITE_NOMEM:
      return Status::ResourceExhausted(msg);
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(msg);
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_PROTOCOL:
      return Status::IOError(msg);
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
      return Status::Internal(msg);  // our SQL broke an invariant
    default:
      return Status::Unknown(msg);
  }
}

Connection& Connection::operator=(Connection&& o) noexcept {
  if (this != &o) {
    (void)Close();
    db_ = o.db_;
    path_ = std::move(o.path_);
    o.db_ = nullptr;
  }
  return *this;
}

Result<Connection> Connection::Open(const std::string& path, int flags) {
  Connection c;
  c.path_ = path;
  // Even a failed open may allocate a handle; `c` owns it either way.
  int rc = sqlite3_open_v2(path.c_str(), &c.db_, flags, nullptr);
  if (rc != SQLITE_OK) return SqliteError(c.db_, rc, "opening database " + path);
  return c;
}

Status Connection::Close() {
  if (!db_) return Status::Ok();
  int rc = sqlite3_close(db_);
  if (rc == SQLITE_OK) {
    db_ = nullptr;
    return Status::Ok();
  }
  std::string open;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db_, nullptr); s; s = sqlite3_next_stmt(db_, s)) {
    open += std::string(open.empty() ? "" : "; ") + sqlite3_sql(s);
  }
  // Not SqliteError: its SQLITE_BUSY hint (another process) does not apply.
  std::string msg = "closing database " + path_ + ": " + sqlite3_errmsg(db_);
  if (!open.empty()) msg += "; statements still open: " + open;
  LOG_ERROR << msg;
  return Status::Internal(msg);
}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
  if (this != &o) {
    if (stmt_) sqlite3_finalize(stmt_);
    db_ = o.db_;
    stmt_ = o.stmt_;
    o.stmt_ = nullptr;
  }
  return *this;
}

Stmt::~Stmt() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Result<Stmt> Stmt::Prepare(sqlite3* db, std::string_view sql, const char** tail) {
  Stmt s;
  s.db_ = db;
  int rc = sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &s.stmt_, tail);
  if (rc != SQLITE_OK) return SqliteError(db, rc, "preparing SQL");
  return s;
}

Stmt& Stmt::Bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}
Stmt& Stmt::Bind(int i, double v) {
  if (std::isfinite(v))
    sqlite3_bind_double(stmt_, i, v);
  else
    sqlite3_bind_null(stmt_, i);
  return *this;
}
Stmt& Stmt::Bind(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::BindBlob(int i, std::string_view v) {
  sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}
Stmt& Stmt::BindNull(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

Result<bool> Stmt::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Status st = SqliteError(db_, rc, "running SQL");
  sqlite3_reset(stmt_);
  return st;
}

Status Stmt::Run() {
  while (true) {
    auto r = Step();
    if (!r.ok()) return r.status();
    if (!*r) break;
  }
  Reset();
  return Status::Ok();
}

void Stmt::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string Stmt::Text(int i) const {
  const unsigned char* p = sqlite3_column_text(stmt_, i);
  if (!p) return "";
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, i)));
}

Status Exec(sqlite3* db, const std::string& sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    sqlite3_free(err);  // sqlite3_errmsg(db) holds the same text
    return SqliteError(db, rc, "SQL failed");
  }
  return Status::Ok();
}

}  // namespace sweep
