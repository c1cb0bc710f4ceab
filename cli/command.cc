// The helpers every command shares (cli/command.h).
#include "cli/command.h"

#include <cstdio>

namespace sweep {

int Fail(const Status& st) {
  fprintf(stderr, "sweep: %s\n", EscapeControl(st.message(), /*keep_newlines=*/true).c_str());
  return 1;
}

int Error(const std::string& message) {
  // A message of several lines keeps them; nothing else reaches the terminal raw.
  fprintf(stderr, "sweep: %s\n", EscapeControl(message, /*keep_newlines=*/true).c_str());
  return 1;
}

std::string ResumeCommand(const std::string& db, const std::string& study) {
  std::optional<std::string> file;
  if (auto reader = Reader::Open(db); reader.ok()) file = (*reader)->StudyFile(study);
  return "`sweep run " + (file ? ShellWord(*file) : std::string("STUDY_FILE")) + " --db " +
         ShellWord(db) + "`";
}

CLI::Option* AddTrialArgument(CLI::App* command, std::vector<std::string>* trial) {
  return command
      ->add_option("trial", *trial,
                   "[STUDY] TRIAL: the trial's number (the study's name when there are several)")
      ->required()
      ->expected(1, 2);
}

CLI::Option* AddDbOption(CLI::App* command, std::string* db) {
  return command->add_option("--db", *db, "Results database")
      ->envname("SWEEP_DB")
      ->capture_default_str();
}

CLI::Option* AddFormatOption(CLI::App* command, std::string* format,
                             const std::vector<std::string>& choices) {
  std::string help;
  for (const std::string& c : choices) help += (help.empty() ? "" : "|") + c;
  return command->add_option("--format", *format, help)->check(CLI::IsMember(choices));
}

int WithReader(const std::string& db, const std::string& format,
               const std::function<Result<std::string>(Reader&, Format)>& body) {
  auto f = ParseFormat(format);
  if (!f.ok()) return Fail(f.status());
  auto reader = Reader::Open(db);
  if (!reader.ok()) return Fail(reader.status());
  auto out = body(**reader, *f);
  if (!out.ok()) return Fail(out.status());
  fputs(out->c_str(), stdout);
  return 0;
}

Result<std::vector<std::string>> ParameterOrder(Reader& r, const StudyRef& s) {
  ASSIGN_OR_RETURN(pb::Study spec, r.StudySpec(s.id));
  std::vector<std::string> names;
  for (const pb::Parameter& p : spec.parameters()) names.push_back(p.name());
  return names;
}

}  // namespace sweep
