// Study deletion and renaming (see study_admin.h).
#include "storage/study_admin.h"

#include <dirent.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <set>

#include "common/clock.h"
#include "storage/checkpoint_files.h"
#include "storage/log_files.h"
#include "storage/sqlite_util.h"

namespace sweep {
namespace {

Result<int64_t> Count(sqlite3* db, const std::string& sql, int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db, sql));
  s.Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Status Run(sqlite3* db, const std::string& sql, int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt s, Stmt::Prepare(db, sql));
  s.Bind(1, study_id);
  return s.Run();
}

// The trial whose file `name` is, by the name its module gives it
// (`prefix_of`, e.g. CheckpointFilePrefix), or false.
bool TrialFile(const std::string& name, std::string (*prefix_of)(int64_t), int64_t* id) {
  if (name.rfind("trial-", 0) != 0) return false;
  size_t end = 6;
  while (end < name.size() && name[end] >= '0' && name[end] <= '9') ++end;
  if (end == 6 || end > 24) return false;
  *id = std::stoll(name.substr(6, end - 6));
  return name.rfind(prefix_of(*id), 0) == 0;
}

}  // namespace

Result<DeletedStudy> DeleteStudy(Store& store, int64_t study_id) {
  sqlite3* db = store.db();
  const std::string trials = "(SELECT id FROM trials WHERE study_id=?1)";
  DeletedStudy out;
  ASSIGN_OR_RETURN(out.trials,
                   Count(db, "SELECT count(*) FROM trials WHERE study_id=?1", study_id));
  ASSIGN_OR_RETURN(out.reports,
                   Count(db, "SELECT count(*) FROM reports WHERE trial_id IN " + trials, study_id));
  ASSIGN_OR_RETURN(
      out.decisions,
      Count(db, "SELECT count(*) FROM decisions WHERE trial_id IN " + trials, study_id));
  {
    ASSIGN_OR_RETURN(Stmt ids,
                     Stmt::Prepare(db, "SELECT id FROM trials WHERE study_id=?1 ORDER BY id"));
    ids.Bind(1, study_id);
    while (true) {
      ASSIGN_OR_RETURN(bool row, ids.Step());
      if (!row) break;
      out.trial_ids.push_back(ids.Int(0));
    }
  }
  RETURN_IF_ERROR(store.Begin());
  Status st = Status::Ok();
  for (const char* table :
       {"reports", "decisions", "checkpoints", "checkpoint_history", "trial_logs"}) {
    st = Run(db, std::string("DELETE FROM ") + table + " WHERE trial_id IN " + trials, study_id);
    if (!st.ok()) break;
  }
  if (st.ok()) st = Run(db, "DELETE FROM events WHERE study_id=?1", study_id);
  // PBT parents are trials of the same study: the links go with them.
  if (st.ok()) st = Run(db, "DELETE FROM trials WHERE study_id=?1", study_id);
  if (st.ok()) st = Run(db, "DELETE FROM studies WHERE id=?1", study_id);
  if (!st.ok()) {
    store.Rollback();
    return st;
  }
  RETURN_IF_ERROR(store.Commit());
  return out;
}

Status RenameStudy(Store& store, int64_t study_id, const std::string& name) {
  sqlite3* db = store.db();
  ASSIGN_OR_RETURN(Stmt taken, Stmt::Prepare(db, "SELECT count(*) FROM studies WHERE name=?1"));
  taken.Bind(1, name);
  ASSIGN_OR_RETURN(bool row, taken.Step());
  if (row && taken.Int(0) > 0)
    return Status::FailedPrecondition("a study named '" + name + "' is already in " + store.path());
  ASSIGN_OR_RETURN(Stmt get, Stmt::Prepare(db, "SELECT spec FROM studies WHERE id=?1"));
  get.Bind(1, study_id);
  ASSIGN_OR_RETURN(row, get.Step());
  if (!row) return Status::NotFound("no study " + std::to_string(study_id) + " in " + store.path());
  pb::Study spec;
  if (!spec.ParseFromArray(sqlite3_column_blob(get.raw(), 0), sqlite3_column_bytes(get.raw(), 0)))
    return Status::Corruption(store.path() + ": study " + std::to_string(study_id) +
                              ": column studies.spec is corrupt (not a Study)");
  spec.set_name(name);
  std::string json, blob = spec.SerializeAsString();
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(spec, &json, opts);
  ASSIGN_OR_RETURN(Stmt set, Stmt::Prepare(db,
                                           "UPDATE studies SET name=?1, spec=?2, spec_json=?3, "
                                           "updated_at=?4 WHERE id=?5"));
  set.Bind(1, name).BindBlob(2, blob).Bind(3, json).Bind(4, WallSeconds()).Bind(5, study_id);
  RETURN_IF_ERROR(store.Begin());
  Status st = set.Run();
  if (!st.ok()) {
    store.Rollback();
    return st;
  }
  return store.Commit();
}

int RemoveTrialFiles(const std::string& db, const std::vector<int64_t>& trial_ids) {
  const std::set<int64_t> ids(trial_ids.begin(), trial_ids.end());
  int removed = 0;
  const std::pair<std::string, std::string (*)(int64_t)> folders[] = {
      {db + ".checkpoints", CheckpointFilePrefix}, {db + ".logs", LogFilePrefix}};
  for (const auto& [dir, prefix_of] : folders) {
    DIR* d = opendir(dir.c_str());
    if (!d) continue;
    std::vector<std::string> doomed;
    while (dirent* e = readdir(d)) {
      int64_t id = 0;
      if (TrialFile(e->d_name, prefix_of, &id) && ids.count(id)) doomed.push_back(e->d_name);
    }
    closedir(d);
    for (const std::string& name : doomed)
      if (unlink((dir + "/" + name).c_str()) == 0) ++removed;
  }
  return removed;
}

}  // namespace sweep
