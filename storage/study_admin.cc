// Study deletion and renaming (see study_admin.h).
#include "storage/study_admin.h"

#include <dirent.h>
#include <google/protobuf/util/json_util.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "common/clock.h"
#include "common/objectives.h"
#include "common/values.h"
#include "storage/checkpoint_files.h"
#include "storage/db_files.h"
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

// The last part of `path`, and of the folder it is in: how a row's file is
// matched with a file found in a folder, whose path the row may spell
// otherwise (./x.db, x.db).
std::pair<std::string, std::string> FolderAndName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return {"", path};
  const size_t before = slash == 0 ? std::string::npos : path.find_last_of('/', slash - 1);
  const size_t from = before == std::string::npos ? 0 : before + 1;
  return {path.substr(from, slash - from), path.substr(slash + 1)};
}

// The names in `dir` of trial files (storage/db_files.h) whose trial (a
// number or an id, as the folder names them) `mine` accepts.
std::vector<std::string> TrialFiles(const std::string& dir,
                                    const std::function<bool(int64_t)>& mine) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  if (!d) return names;
  while (dirent* e = readdir(d)) {
    int64_t trial = 0;
    if (TrialOfFile(e->d_name, &trial) && mine(trial)) names.push_back(e->d_name);
  }
  closedir(d);
  return names;
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
  for (const char* table : {"reports", "decisions", "checkpoints", "checkpoint_history",
                            "trial_logs", "preempted_runs", "trial_values"}) {
    st = Run(db, std::string("DELETE FROM ") + table + " WHERE trial_id IN " + trials, study_id);
    if (!st.ok()) break;
  }
  if (st.ok()) st = Run(db, "DELETE FROM events WHERE study_id=?1", study_id);
  if (st.ok()) st = Run(db, "DELETE FROM study_tags WHERE study_id=?1", study_id);
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

Result<int64_t> RetryFailedTrials(Store& store, int64_t study_id,
                                  const std::vector<int64_t>& numbers, double now) {
  sqlite3* db = store.db();
  const std::string failed = Sql(TrialStatus::kFailed);
  std::vector<int64_t> ids;
  if (numbers.empty()) {
    ASSIGN_OR_RETURN(Stmt all, Stmt::Prepare(db,
                                             "SELECT id FROM trials WHERE study_id=?1 AND "
                                             "status=" +
                                                 failed + " ORDER BY number"));
    all.Bind(1, study_id);
    while (true) {
      ASSIGN_OR_RETURN(bool row, all.Step());
      if (!row) break;
      ids.push_back(all.Int(0));
    }
  }
  for (int64_t number : std::set<int64_t>(numbers.begin(), numbers.end())) {
    ASSIGN_OR_RETURN(Stmt one, Stmt::Prepare(db,
                                             "SELECT id, status FROM trials WHERE "
                                             "study_id=?1 AND number=?2"));
    one.Bind(1, study_id).Bind(2, number);
    ASSIGN_OR_RETURN(bool row, one.Step());
    if (!row) return Status::NotFound("the study has no trial " + std::to_string(number));
    if (one.Text(1) != TrialStatusName(TrialStatus::kFailed))
      return Status::FailedPrecondition("trial " + std::to_string(number) + " is " + one.Text(1) +
                                        ", not failed: only failed trials run again");
    ids.push_back(one.Int(0));
  }
  ASSIGN_OR_RETURN(Stmt note,
                   Stmt::Prepare(db,
                                 "INSERT INTO events(study_id, trial_id, at, kind, detail) SELECT "
                                 "study_id, id, ?2, 'retry', 'attempt ' || attempts || ' failed (' "
                                 "|| coalesce(failure, 'no reason') || '); it runs again' FROM "
                                 "trials WHERE id=?1"));
  // It starts afresh: its failed attempt's checkpoint row goes (the file,
  // which no row names then, is removed when a tuner opens the study).
  ASSIGN_OR_RETURN(Stmt requeue,
                   Stmt::Prepare(db, "UPDATE trials SET status=" + Sql(TrialStatus::kQueued) +
                                         ", runner=NULL, lease=NULL, value=NULL, failure=NULL, "
                                         "step=NULL, metrics=NULL, ended_at=NULL, attempt_open=0 "
                                         "WHERE id=?1"));
  ASSIGN_OR_RETURN(Stmt forget, Stmt::Prepare(db, "DELETE FROM checkpoints WHERE trial_id=?1"));
  for (int64_t id : ids) {
    note.Reset();
    note.Bind(1, id).Bind(2, now);
    RETURN_IF_ERROR(note.Run());
    requeue.Reset();
    requeue.Bind(1, id);
    RETURN_IF_ERROR(requeue.Run());
    forget.Reset();
    forget.Bind(1, id);
    RETURN_IF_ERROR(forget.Run());
  }
  return static_cast<int64_t>(ids.size());
}

Result<std::vector<int64_t>> EnqueueTrials(Store& store, int64_t study_id,
                                           const std::vector<pb::ParamSet>& points, double now) {
  ASSIGN_OR_RETURN(Stmt last, Stmt::Prepare(store.db(),
                                            "SELECT coalesce(max(number) + 1, 0) "
                                            "FROM trials WHERE study_id=?1"));
  last.Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, last.Step());
  int64_t number = row ? last.Int(0) : 0;
  std::vector<int64_t> numbers;
  for (const pb::ParamSet& p : points) {
    ASSIGN_OR_RETURN(int64_t id,
                     store.InsertTrial(study_id, number, p, ParamsToJson(p.params()), now));
    RETURN_IF_ERROR(store.AddEvent(study_id, id, "enqueued",
                                   "added by sweep enqueue: it runs before new proposals", now));
    numbers.push_back(number++);
  }
  return numbers;
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

Result<CollectedCheckpoints> CollectCheckpoints(Store& store, int64_t study_id, int keep_best,
                                                bool dry_run) {
  sqlite3* db = store.db();
  ASSIGN_OR_RETURN(int64_t unfinished,
                   Count(db,
                         "SELECT count(*) FROM trials WHERE study_id=?1 AND status NOT IN " +
                             SqlFinishedStatuses(),
                         study_id));
  if (unfinished > 0)
    return Status::FailedPrecondition(
        "it has " + std::to_string(unfinished) +
        " queued, running or paused trials, which need their checkpoints when it resumes");
  ASSIGN_OR_RETURN(Stmt spec_q, Stmt::Prepare(db, "SELECT spec FROM studies WHERE id=?1"));
  spec_q.Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, spec_q.Step());
  pb::Study spec;
  if (!row || !spec.ParseFromArray(sqlite3_column_blob(spec_q.raw(), 0),
                                   sqlite3_column_bytes(spec_q.raw(), 0)))
    return Status::Corruption(store.path() + ": study " + std::to_string(study_id) +
                              ": column studies.spec is corrupt (not a Study)");
  bool maximize = PrimaryObjective(spec).goal() == pb::GOAL_MAXIMIZE;
  // The study's trials (id to number), and the file each kept trial's row names.
  std::map<int64_t, int64_t> number_of;
  std::map<int64_t, std::pair<std::string, std::string>> kept;
  {
    ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db, "SELECT id, number FROM trials WHERE study_id=?1"));
    q.Bind(1, study_id);
    while (true) {
      ASSIGN_OR_RETURN(bool more, q.Step());
      if (!more) break;
      number_of[q.Int(0)] = q.Int(1);
    }
    ASSIGN_OR_RETURN(
        Stmt best,
        Stmt::Prepare(db, std::string("SELECT c.trial_id, c.path FROM checkpoints c JOIN trials t "
                                      "ON t.id = c.trial_id WHERE t.study_id=?1 AND "
                                      "t.status=" +
                                      Sql(TrialStatus::kCompleted) +
                                      " AND t.value IS NOT NULL ORDER BY "
                                      "t.value ") +
                              (maximize ? "DESC" : "ASC") + ", t.id LIMIT ?2"));
    best.Bind(1, study_id).Bind(2, int64_t{std::max(0, keep_best)});
    while (true) {
      ASSIGN_OR_RETURN(bool more, best.Step());
      if (!more) break;
      kept[best.Int(0)] = FolderAndName(best.Text(1));
    }
  }
  CollectedCheckpoints out;
  out.kept = static_cast<int64_t>(kept.size());
  ASSIGN_OR_RETURN(out.removed,
                   Count(db,
                         "SELECT count(*) FROM checkpoints WHERE trial_id IN (SELECT id FROM "
                         "trials WHERE study_id=?1)",
                         study_id));
  out.removed -= out.kept;
  // The files: every checkpoint file of the study's trials but the kept
  // ones, in the study's folder (named by number) and in a database's old
  // folder (by id).
  std::map<int64_t, int64_t> id_of;
  for (const auto& [id, number] : number_of) id_of[number] = id;
  const std::string old_dir = OldCheckpointDirOf(store.path());
  const std::string study_dir = StudyFolderOf(store.path(), study_id);
  std::vector<std::string> doomed;
  for (const std::string& dir : {study_dir, old_dir}) {
    struct stat dir_st;
    // The folder the tuner would use, or none: a symlink or a folder others
    // may write is refused here as there.
    if (lstat(dir.c_str(), &dir_st) != 0) continue;
    RETURN_IF_ERROR(CheckCheckpointDir(dir, false, "checkpoint folder", dir == study_dir));
    const std::string folder = FolderAndName(dir).second;
    const bool by_number = dir == study_dir;
    for (const std::string& name : TrialFiles(dir, [&](int64_t trial) {
           return by_number ? id_of.count(trial) > 0 : number_of.count(trial) > 0;
         })) {
      int64_t trial = 0;
      TrialOfFile(name, &trial);
      if (name.find(".ckpt") == std::string::npos) continue;  // a log stays
      auto k = kept.find(by_number ? id_of[trial] : trial);
      if (k != kept.end() && k->second == std::make_pair(folder, name)) continue;
      doomed.push_back(dir + "/" + name);
    }
  }
  if (!dry_run) {
    RETURN_IF_ERROR(store.Begin());
    std::string keep_list;
    for (const auto& [id, name] : kept)
      keep_list += (keep_list.empty() ? "" : ", ") + std::to_string(id);
    Status st =
        Run(db,
            "DELETE FROM checkpoints WHERE trial_id IN (SELECT id FROM trials WHERE "
            "study_id=?1)" +
                (keep_list.empty() ? std::string() : " AND trial_id NOT IN (" + keep_list + ")"),
            study_id);
    if (st.ok())
      st = store.AddEvent(study_id, 0, "checkpoints_collected",
                          "sweep gc removed the checkpoints of " + std::to_string(out.removed) +
                              " trials (" + std::to_string(doomed.size()) + " files), keeping " +
                              std::to_string(out.kept) + " of the best",
                          WallSeconds());
    if (!st.ok()) {
      store.Rollback();
      return st;
    }
    // The rows go first: a crash between the two leaves files no row names
    // (the next gc removes them), never a row without its file.
    RETURN_IF_ERROR(store.Commit());
  }
  for (const std::string& path : doomed) {
    struct stat st;
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (!dry_run && unlink(path.c_str()) != 0) continue;
    ++out.files;
    out.bytes += st.st_size;
  }
  return out;
}

int RemoveStudyFolder(const std::string& folder) {
  struct stat st;
  // Never through a database folder that is a link or open to others.
  if (lstat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
      !CheckCheckpointDir(folder, false).ok())
    return 0;
  int removed = 0;
  for (const std::string& name : TrialFiles(folder, [](int64_t) { return true; }))
    if (unlink((folder + "/" + name).c_str()) == 0) ++removed;
  rmdir(folder.c_str());  // empty now, unless someone put other files there
  return removed;
}

int RemoveStudyFiles(const std::string& db, int64_t study_id,
                     const std::vector<int64_t>& trial_ids) {
  const std::set<int64_t> ids(trial_ids.begin(), trial_ids.end());
  int removed = RemoveStudyFolder(StudyFolderOf(db, study_id));
  for (const std::string& dir : {OldCheckpointDirOf(db), OldLogDirOf(db)}) {
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    for (const std::string& name :
         TrialFiles(dir, [&](int64_t trial) { return ids.count(trial) > 0; }))
      if (unlink((dir + "/" + name).c_str()) == 0) ++removed;
  }
  rmdir(DbFolderOf(db).c_str());  // when no study has a folder left
  return removed;
}

}  // namespace sweep
