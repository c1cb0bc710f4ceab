// Writing a study's note and tags beside a running tuner.
#include "storage/study_labels.h"

#include <sqlite3.h>

#include <functional>
#include <utility>

#include "common/bidi_controls.h"
#include "common/json.h"
#include "storage/db_lock.h"
#include "storage/schema.h"
#include "storage/sqlite_store.h"
#include "storage/sqlite_util.h"

namespace sweep {

namespace {

constexpr int kLabelsSchema = 11;  // studies.note and study_tags came in 11

// A write connection to a database at schema 11 or later, and the study's
// id. With no tuner holding an older database, it is migrated first (a
// Store does that); one an older sweep holds cannot take labels yet.
Status WithStudy(const std::string& db, const std::string& study,
                 const std::function<Status(sqlite3*, int64_t)>& write) {
  {
    ASSIGN_OR_RETURN(Connection c, Connection::Open(db, SQLITE_OPEN_READONLY));
    ASSIGN_OR_RETURN(int version, InspectDatabase(c.get(), db));
    if (version < kLabelsSchema) {
      auto holder = DbLock::Holder(db);
      if (holder.ok() && holder->has_value()) {
        return Status::FailedPrecondition(
            db + ": the sweep running it (pid " + std::to_string(**holder) +
            ") is older than this one, and its database has no notes yet; try once it ends");
      }
      ASSIGN_OR_RETURN(auto store, Store::Open(db));  // migrates
    }
  }
  ASSIGN_OR_RETURN(Connection c, Connection::Open(db, SQLITE_OPEN_READWRITE));
  sqlite3_busy_timeout(c.get(), 10000);
  // No sync while holding the write lock, which the tuner's next commit
  // waits for (WAL: the tuner's own syncs make it durable with its next
  // commit; a power cut may lose the note, never the database).
  RETURN_IF_ERROR(Exec(c.get(), "PRAGMA synchronous=NORMAL"));
  int64_t id = 0;
  {
    ASSIGN_OR_RETURN(Stmt find, Stmt::Prepare(c.get(), "SELECT id FROM studies WHERE name = ?1"));
    find.Bind(1, study);
    ASSIGN_OR_RETURN(bool row, find.Step());
    if (!row) return Status::NotFound("no study '" + study + "' in " + db);
    id = find.Int(0);
  }
  Status st = write(c.get(), id);
  if (!st.ok() && st.message().find("locked") != std::string::npos) {
    return Status::Unavailable(db + ": the sweep running it kept the database busy for 10 s (" +
                               st.message() + "); try again");
  }
  return st;
}

Status CheckTag(const std::string& tag) {
  // Printable: no ASCII or C1 controls, no bidirectional-text controls,
  // valid UTF-8.
  bool ok = !tag.empty() && tag.size() <= kMaxTagBytes && ValidUtf8(tag) == tag;
  for (size_t i = 0; ok && i < tag.size(); ++i) {
    const auto ch = static_cast<unsigned char>(tag[i]);
    size_t len = 0;
    ok = ch > ' ' && ch != ',' && ch != 0x7f && BidiControlAt(tag, i, &len) == 0 &&
         !(ch == 0xc2 && i + 1 < tag.size() && static_cast<unsigned char>(tag[i + 1]) < 0xa0);
  }
  if (!ok) {
    return Status::InvalidArgument("tag '" + tag + "': a tag is 1 to " +
                                   std::to_string(kMaxTagBytes) +
                                   " printable characters, without spaces or commas");
  }
  return Status::Ok();
}

}  // namespace

Status SetStudyNote(const std::string& db, const std::string& study, const std::string& note) {
  if (note.size() > kMaxNoteBytes) {
    return Status::InvalidArgument("the note has " + std::to_string(note.size()) +
                                   " bytes; a note takes at most " + std::to_string(kMaxNoteBytes));
  }
  return WithStudy(db, study, [&](sqlite3* c, int64_t id) -> Status {
    ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(c, "UPDATE studies SET note = ?2 WHERE id = ?1"));
    s.Bind(1, id).Bind(2, note);
    return s.Run();
  });
}

Status TagStudy(const std::string& db, const std::string& study,
                const std::vector<std::string>& add, const std::vector<std::string>& remove) {
  for (const auto& t : add) RETURN_IF_ERROR(CheckTag(t));
  return WithStudy(db, study, [&](sqlite3* c, int64_t id) -> Status {
    RETURN_IF_ERROR(Exec(c, "BEGIN IMMEDIATE"));
    auto body = [&]() -> Status {
      // Taken off first, then added: one statement each, run per tag.
      const std::pair<const char*, const std::vector<std::string>*> steps[] = {
          {"DELETE FROM study_tags WHERE study_id = ?1 AND tag = ?2", &remove},
          {"INSERT OR IGNORE INTO study_tags(study_id, tag) VALUES (?1, ?2)", &add}};
      for (const auto& [sql, tags] : steps) {
        ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(c, sql));
        for (const auto& t : *tags) RETURN_IF_ERROR(s.Bind(1, id).Bind(2, t).Run());
      }
      ASSIGN_OR_RETURN(Stmt n, Stmt::Prepare(c,
                                             "SELECT count(*) FROM study_tags WHERE "
                                             "study_id = ?1"));
      n.Bind(1, id);
      ASSIGN_OR_RETURN(bool row, n.Step());
      if (row && n.Int(0) > static_cast<int64_t>(kMaxTags)) {
        return Status::InvalidArgument("study '" + study + "' would have " +
                                       std::to_string(n.Int(0)) + " tags; at most " +
                                       std::to_string(kMaxTags));
      }
      return Status::Ok();
    };
    Status st = body();
    if (!st.ok()) {
      (void)Exec(c, "ROLLBACK");
      return st;
    }
    return Exec(c, "COMMIT");
  });
}

}  // namespace sweep
