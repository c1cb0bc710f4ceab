// `sweep studies`: the studies of a database, and which one its tuner runs.
#include "cli/studies.h"

#include "cli/commands.h"
#include "common/clock.h"
#include "storage/db_lock.h"

namespace sweep {

Result<std::string> FormatStudies(Reader& reader, const std::string& db, Format format) {
  ASSIGN_OR_RETURN(std::vector<StudySummary> studies, reader.StudySummaries(WallSeconds()));
  auto holder = DbLock::Holder(db);
  std::optional<int64_t> pid = holder.ok() ? *holder : std::nullopt;
  using S = TrialStatus;
  constexpr S kShown[] = {S::kCompleted, S::kFailed, S::kRunning,
                          S::kQueued,    S::kPaused, S::kStopped};
  // After status: the pid of the tuner that runs the study, if one does.
  Table t;
  t.columns = {"id", "name", "status", "tuner", "algorithm", "metric", "goal", "trials"};
  for (S s : kShown) t.columns.push_back(TrialStatusName(s));
  t.columns.push_back("best");
  std::string hints;
  for (const StudySummary& s : studies) {
    const StudyStatus shown = ShownStudyStatus(s.status, pid.has_value());
    if (shown != s.status) {
      hints += "study '" + s.ref.name +
               "' was interrupted (its tuner is gone): `sweep run STUDY_FILE --db " + db +
               "` resumes it\n";
    }
    std::vector<Cell>& row = t.rows.emplace_back();
    row = {s.ref.id,
           s.ref.name,
           std::string(StudyStatusName(shown)),
           shown == StudyStatus::kRunning && pid ? Cell(*pid) : Cell(std::monostate{}),
           s.algorithm,
           s.ref.metric,
           std::string(s.ref.maximize ? "maximize" : "minimize"),
           s.counts.Total()};
    for (S st : kShown) row.push_back(s.counts[st]);
    row.push_back(s.best ? Cell(*s.best) : Cell(std::monostate{}));
  }
  std::string out = FormatRows(t, format);
  if (format == Format::kTable) out += EscapeControl(hints);
  return out;
}

Result<std::string> StudyNames(Reader& reader) {
  ASSIGN_OR_RETURN(std::vector<StudySummary> studies, reader.StudySummaries(WallSeconds()));
  std::string out;
  for (const StudySummary& s : studies) out += EscapeControl(s.ref.name) + "\n";
  return out;
}

namespace {

class StudiesCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("studies", "List the studies in a database");
    AddDbOption(c, &db_);
    AddFormatOption(c, &format_, {"table", "csv", "json"});
    // For the shell completions (cli/shell_help.cc): hidden.
    c->add_flag("--names", names_, "Only the names, one per line")->group("");
    return c;
  }
  int Run(const CommandContext&) override {
    return WithReader(db_, format_, [&](Reader& r, Format f) -> Result<std::string> {
      return names_ ? StudyNames(r) : FormatStudies(r, db_, f);
    });
  }

 private:
  std::string db_ = "sweep.db", format_ = "table";
  bool names_ = false;
};

}  // namespace

std::unique_ptr<Command> NewStudiesCommand() { return std::make_unique<StudiesCommand>(); }

}  // namespace sweep
