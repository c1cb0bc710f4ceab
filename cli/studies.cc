// `sweep studies`: the studies of a database, and which one its tuner runs.
#include "cli/studies.h"

#include <algorithm>
#include <map>

#include "cli/commands.h"
#include "cli/service_client.h"
#include "common/clock.h"
#include "storage/db_lock.h"

namespace sweep {

namespace {

// What the service holding `db` says of its studies now (runners, share),
// by id; empty when none runs or it does not answer.
std::map<int64_t, pb::ServiceStudy> LiveServiceStudies(const std::string& db) {
  std::map<int64_t, pb::ServiceStudy> out;
  pb::ControlRequest request;
  request.set_list_studies(true);
  ServiceAddress address;
  address.db = db;
  auto reply = CallService(address, std::move(request), 5000);
  if (!reply.ok()) return out;
  for (const pb::ServiceStudy& s : reply->studies()) out[s.id()] = s;
  return out;
}

}  // namespace

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
  // A service's database: who submitted each study, its priority and cap,
  // and (while the service runs) the runners it holds and its fair share.
  const bool service_db = std::any_of(studies.begin(), studies.end(),
                                      [](const StudySummary& s) { return s.owner.has_value(); });
  std::map<int64_t, pb::ServiceStudy> live;
  if (service_db) {
    for (const char* c : {"owner", "priority", "max_runners", "runners", "share"})
      t.columns.push_back(c);
    if (format != Format::kTable) t.columns.push_back("waiting");
    if (pid) live = LiveServiceStudies(db);
  }
  // sweep tag's and sweep note's, last (scripts read the columns before
  // them by place): a table has the tags when a study has some, and each
  // note in a line under it; CSV and JSON have both always.
  const bool tagged = std::any_of(studies.begin(), studies.end(),
                                  [](const StudySummary& s) { return !s.tags.empty(); });
  const bool labels = format != Format::kTable || tagged;
  if (labels) t.columns.push_back("tags");
  if (format != Format::kTable) t.columns.push_back("note");
  std::string hints;
  for (const StudySummary& s : studies) {
    const StudyStatus shown = ShownStudyStatus(s.status, pid.has_value());
    if (shown != s.status) {
      hints += EscapeControl("study '" + s.ref.name + "' was interrupted (its tuner is gone): " +
                             (s.owner ? "`sweep serve --db " + db + "` resumes it"
                                      : ResumeCommand(db, s.ref.name) + " resumes it")) +
               "\n";
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
    std::string tags;
    for (const std::string& tag : s.tags) tags += (tags.empty() ? "" : " ") + tag;
    auto add_labels = [&] {
      if (labels) row.push_back(tags);
      if (format != Format::kTable) row.push_back(s.note);
    };
    if (format == Format::kTable && !s.note.empty())
      hints += EscapeControl("study '" + s.ref.name + "': " + s.note) + "\n";
    if (!service_db) {
      // `sweep run`'s study: its tuner's latest word on why it waits.
      if (shown == StudyStatus::kRunning && s.counts[S::kRunning] == 0) {
        ASSIGN_OR_RETURN(std::string waiting, reader.Waiting(s.ref.id));
        if (!waiting.empty())
          hints += EscapeControl("study '" + s.ref.name + "' is " + waiting) + "\n";
      }
      add_labels();
      continue;
    }
    const Cell none = std::monostate{};
    row.push_back(s.owner ? Cell(*s.owner) : none);
    row.push_back(s.owner ? Cell(s.priority) : none);
    row.push_back(s.owner ? Cell(s.max_runners) : none);
    auto l = live.find(s.ref.id);
    const bool in = l != live.end() && l->second.state() == "running";
    row.push_back(in ? Cell(l->second.runners()) : none);
    row.push_back(in ? Cell(l->second.share()) : none);
    // Why it has no runners: a line under the table, or a column.
    const std::string waiting = in ? l->second.waiting() : "";
    if (format != Format::kTable) row.push_back(waiting.empty() ? none : Cell(waiting));
    if (!waiting.empty()) hints += EscapeControl("study '" + s.ref.name + "' is " + waiting) + "\n";
    add_labels();
  }
  std::string out = FormatRows(t, format);
  if (format == Format::kTable) out += hints;
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
    AddServiceOptions(c, &address_);
    AddFormatOption(c, &format_, {"table", "csv", "json"});
    // For the shell completions (cli/shell_help.cc): hidden.
    c->add_flag("--names", names_, "Only the names, one per line")->group("");
    return c;
  }
  int Run(const CommandContext&) override {
    if (!address_.server.empty()) return ServiceStudies();
    return WithReader(address_.db, format_, [&](Reader& r, Format f) -> Result<std::string> {
      return names_ ? StudyNames(r) : FormatStudies(r, address_.db, f);
    });
  }

 private:
  // A service on another machine: what it says of its studies.
  int ServiceStudies() {
    auto format = ParseFormat(format_);
    if (!format.ok()) return Fail(format.status());
    pb::ControlRequest request;
    request.set_list_studies(true);
    auto reply = CallService(address_, std::move(request));
    if (!reply.ok()) return Fail(reply.status());
    Table t;
    t.columns = {"id",      "name",  "status", "owner",   "priority", "max_runners",
                 "runners", "share", "queued", "running", "finished", "waiting"};
    for (const pb::ServiceStudy& s : reply->studies()) {
      t.rows.push_back({s.id(), s.name(), s.state(), s.owner(), s.priority(), s.max_runners(),
                        s.runners(), s.share(), s.queued(), s.running(), s.finished(),
                        s.waiting().empty() ? Cell(std::monostate{}) : Cell(s.waiting())});
    }
    fputs(FormatRows(t, *format).c_str(), stdout);
    return 0;
  }

  ServiceAddress address_;
  std::string format_ = "table";
  bool names_ = false;
};

}  // namespace

std::unique_ptr<Command> NewStudiesCommand() { return std::make_unique<StudiesCommand>(); }

}  // namespace sweep
