// `sweep studies`: the studies of a database, and which one its tuner runs.
#include "cli/studies.h"

#include <variant>

#include "cli/commands.h"
#include "storage/db_lock.h"

namespace sweep {

Result<std::string> FormatStudies(Reader& reader, const std::string& db, Format format) {
  ASSIGN_OR_RETURN(Table t, reader.Studies());
  auto holder = DbLock::Holder(db);
  std::optional<int64_t> pid = holder.ok() ? *holder : std::nullopt;
  size_t status_col = 0, name_col = 0;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c] == "status") status_col = c;
    if (t.columns[c] == "name") name_col = c;
  }
  // After status: the pid of the tuner that runs the study, if one does.
  t.columns.insert(t.columns.begin() + static_cast<long>(status_col) + 1, "tuner");
  std::string hints;
  for (auto& row : t.rows) {
    auto* status = std::get_if<std::string>(&row[status_col]);
    bool running = status && *status == "running";
    if (running && !pid) {
      *status = DbLock::ShownStatus(*status, false);
      const auto* name = std::get_if<std::string>(&row[name_col]);
      hints += "study '" + (name ? *name : std::string("?")) +
               "' was interrupted (its tuner is gone): `sweep run STUDY_FILE --db " + db +
               "` resumes it\n";
    }
    row.insert(row.begin() + static_cast<long>(status_col) + 1,
               running && pid ? Cell(*pid) : Cell(std::monostate{}));
  }
  std::string out = FormatRows(t, format);
  if (format == Format::kTable) out += EscapeControl(hints);
  return out;
}

Result<std::string> StudyNames(Reader& reader) {
  ASSIGN_OR_RETURN(Table t, reader.Studies());
  std::string out;
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c] != "name") continue;
    for (const auto& row : t.rows)
      if (const auto* name = std::get_if<std::string>(&row[c])) out += EscapeControl(*name) + "\n";
  }
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
