// The results database's studies: a study's stored definition, found,
// created, compared and replaced (the tuner's accepted changes on resume),
// and a stopped tuner's studies and running trials marked as such.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include "common/clock.h"
#include "common/objectives.h"
#include "common/study_defaults.h"
#include "storage/sqlite_store.h"

namespace sweep {

namespace {

std::string AlgorithmName(pb::AlgorithmType type) {
  std::string name = pb::AlgorithmType_Name(type).substr(sizeof("ALGORITHM_TYPE_") - 1);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

std::string DeterministicBytes(const pb::Study& study) {
  std::string spec;
  {
    // The streams trim `spec` to what was written when they are destroyed.
    google::protobuf::io::StringOutputStream out(&spec);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    study.SerializeToCodedStream(&coded);
  }
  return spec;
}

std::string SpecJson(const pb::Study& study) {
  std::string json;
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(study, &json, opts);
  return json;
}

}  // namespace

Result<std::optional<Store::StoredStudy>> Store::FindStudy(const std::string& name) {
  ASSIGN_OR_RETURN(Stmt find, Stmt::Prepare(db(),
                                            "SELECT id, spec, run_seconds FROM studies "
                                            "WHERE name=?1"));
  find.Bind(1, name);
  ASSIGN_OR_RETURN(bool row, find.Step());
  if (!row) return std::optional<StoredStudy>();
  StoredStudy stored;
  stored.id = find.Int(0);
  stored.run_seconds = sqlite3_column_double(find.raw(), 2);
  std::string blob(static_cast<const char*>(sqlite3_column_blob(find.raw(), 1)),
                   static_cast<size_t>(sqlite3_column_bytes(find.raw(), 1)));
  if (!stored.spec.ParseFromString(blob))
    return Status::Corruption("study '" + name + "': stored spec is unreadable");
  // Specs stored before defaults were resolved at validation carry none.
  ResolveDefaults(&stored.spec);
  return std::optional<StoredStudy>(std::move(stored));
}

Status Store::ReplaceStudySpec(int64_t study_id, const pb::Study& study) {
  ASSIGN_OR_RETURN(Stmt up, Stmt::Prepare(db(),
                                          "UPDATE studies SET spec_json=?2, spec=?3, seed=?4, "
                                          "updated_at=?5 WHERE id=?1"));
  up.Bind(1, study_id)
      .Bind(2, SpecJson(study))
      .BindBlob(3, DeterministicBytes(study))
      .Bind(4, static_cast<int64_t>(study.seed()))
      .Bind(5, WallSeconds());
  return up.Run().Wrap("changing study '" + study.name() + "'");
}

Result<int64_t> Store::CreateStudy(const pb::Study& study) {
  ASSIGN_OR_RETURN(
      Stmt ins, Stmt::Prepare(db(),
                              "INSERT INTO studies(name, objective_metric, goal, algorithm, seed, "
                              "spec_json, spec, status, created_at, updated_at) "
                              "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, " +
                                  Sql(StudyStatus::kRunning) + ", ?8, ?8)"));
  ins.Bind(1, study.name())
      .Bind(2, PrimaryObjective(study).metric())
      .Bind(3, PrimaryObjective(study).goal() == pb::GOAL_MAXIMIZE ? "maximize" : "minimize")
      .Bind(4, AlgorithmName(study.algorithm().type()))
      .Bind(5, static_cast<int64_t>(study.seed()))
      .Bind(6, SpecJson(study))
      .BindBlob(7, DeterministicBytes(study))
      .Bind(8, WallSeconds());
  RETURN_IF_ERROR(ins.Run().Wrap("creating study '" + study.name() + "'"));
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db()));
}

Result<int64_t> Store::OpenStudy(const pb::Study& study) {
  ASSIGN_OR_RETURN(std::optional<StoredStudy> stored, FindStudy(study.name()));
  if (!stored) return CreateStudy(study);
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  if (!diff.Compare(stored->spec, study)) {
    if (report.size() > 600) report = report.substr(0, 600) + "...";
    return Status::FailedPrecondition("study '" + study.name() +
                                      "' already exists in this database with a different "
                                      "definition; resume with the original study file, or use "
                                      "another --db or study name. Differences:\n" +
                                      report);
  }
  return stored->id;
}

Status Store::InterruptRunningStudies(double now) {
  ASSIGN_OR_RETURN(
      Stmt q,
      Stmt::Prepare(db(), "UPDATE studies SET status=" + Sql(StudyStatus::kInterrupted) +
                              ", updated_at=?1 WHERE status=" + Sql(StudyStatus::kRunning)));
  q.Bind(1, now);
  return q.Run();
}

Status Store::SetStudyRunSeconds(int64_t study_id, double seconds) {
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(), "UPDATE studies SET run_seconds=?2 WHERE id=?1"));
  q.Bind(1, study_id).Bind(2, seconds);
  return q.Run();
}

Status Store::SetStudyFile(int64_t study_id, const std::string& path) {
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(), "UPDATE studies SET study_file=?2 WHERE id=?1"));
  q.Bind(1, study_id).Bind(2, path);
  return q.Run();
}

Result<bool> Store::HasResults(int64_t study_id) {
  ASSIGN_OR_RETURN(Stmt q, Stmt::Prepare(db(),
                                         "SELECT count(*) FROM trials WHERE study_id=?1 AND "
                                         "NOT (status=" +
                                             Sql(TrialStatus::kFailed) + " OR (status=" +
                                             Sql(TrialStatus::kQueued) + " AND attempt_open=0))"));
  q.Bind(1, study_id);
  ASSIGN_OR_RETURN(bool row, q.Step());
  return row && q.Int(0) > 0;
}

Result<int> Store::RequeueRunning(int64_t study_id, double now) {
  // Their attempts were cut short by the tuner, not lost: each resumes as
  // the same attempt, which an `interrupted` event of its own says (as
  // StudyRun::Interrupt writes after Ctrl-C).
  ASSIGN_OR_RETURN(Stmt note,
                   Stmt::Prepare(db(),
                                 "INSERT INTO events(study_id, trial_id, at, kind, detail) SELECT "
                                 "study_id, id, ?2, 'interrupted', 'attempt ' || attempts || "
                                 "' at step ' || coalesce(step, 0) || ': the tuner stopped; it "
                                 "resumes as the same attempt' FROM trials WHERE study_id=?1 AND "
                                 "status=" +
                                     Sql(TrialStatus::kRunning)));
  note.Bind(1, study_id).Bind(2, now);
  RETURN_IF_ERROR(note.Run());
  ASSIGN_OR_RETURN(Stmt q,
                   Stmt::Prepare(db(), "UPDATE trials SET status=" + Sql(TrialStatus::kQueued) +
                                           ", runner=NULL, lease=NULL, attempt_open=1 WHERE "
                                           "study_id=?1 AND status=" +
                                           Sql(TrialStatus::kRunning)));
  q.Bind(1, study_id);
  RETURN_IF_ERROR(q.Run());
  return sqlite3_changes(db());
}

}  // namespace sweep
