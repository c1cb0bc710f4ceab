// What `sweep validate` says of a study file.
#include "cli/validate.h"

#include <google/protobuf/text_format.h>

#include <cctype>
#include <cstdio>

#include "cli/commands.h"
#include "cli/format.h"
#include "common/objectives.h"
#include "search_spaces/space.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/algorithms/hyperband.h"
#include "tuner/study_data.h"

namespace sweep {

Result<std::string> ValidateReport(const std::string& path, bool print) {
  ASSIGN_OR_RETURN(ParsedStudy parsed, LoadStudyFile(path));
  RETURN_IF_ERROR(ValidateStudy(&parsed));
  RETURN_IF_ERROR(CheckPlan(parsed.study));
  ASSIGN_OR_RETURN(StudyData data, CheckStudyData(parsed.study, /*required=*/false));
  const pb::Study& s = parsed.study;
  if (print) {
    // The study as it will run, every default filled in, as a protobuf text
    // study file (save it as .textproto to run it).
    std::string text;
    if (!google::protobuf::TextFormat::PrintToString(s, &text))
      return Status::Internal("could not print the study");
    return text;
  }
  ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::Create(s));
  std::string algo = pb::AlgorithmType_Name(s.algorithm().type()).substr(15);
  for (char& c : algo) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string out = "study '" + EscapeControl(s.name()) + "' is valid\n";
  std::string goals;
  for (const pb::Objective& o : ObjectivesOf(s))
    goals += (goals.empty() ? "" : ", ") +
             std::string(o.goal() == pb::GOAL_MAXIMIZE ? "maximize " : "minimize ") +
             EscapeControl(o.metric());
  out += (HasSeveralObjectives(s) ? "objectives: " : "objective: ") + goals + "\n";
  for (const pb::OutcomeConstraint& k : s.constraints())
    out += "constraint: " + EscapeControl(ConstraintText(k)) + "\n";
  for (const std::string& e : s.parameter_constraints())
    out += "parameter constraint: " + EscapeControl(e) + "\n";
  if (!data.summary.empty()) out += "data: " + EscapeControl(data.summary) + "\n";
  for (const std::string& hint : data.hints) out += "hint: " + EscapeControl(hint) + "\n";
  out += "algorithm: " + algo;
  if (s.algorithm().has_max_trials())
    out += ", max_trials " + std::to_string(s.algorithm().max_trials());
  // One line per parameter; the values in them come from the study file.
  out += "\nparameters:\n";
  std::string all = space.Describe();
  for (size_t start = 0; start < all.size();) {
    size_t end = std::min(all.find('\n', start), all.size());
    out += EscapeControl(std::string_view(all).substr(start, end - start)) + "\n";
    start = end + 1;
  }
  std::string continuous;
  for (int i = 0; i < space.size(); ++i) {
    if (!space.GridCount(i)) continuous += (continuous.empty() ? "" : ", ") + space.param(i).name();
  }
  auto size = space.GridSize(1000000);
  if (!continuous.empty()) {
    out += "grid points: none (" + EscapeControl(continuous) +
           ": a float without a step is continuous)\n";
  } else if (size.ok()) {
    out += "grid points: " + std::to_string(*size) + "\n";
  } else {
    out += "grid points: more than 1000000\n";
  }
  return out;
}

namespace {

class ValidateCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("validate", "Check a study file and print its search space");
    c->add_option("study", path_, "Study file")->required();
    c->add_flag("--print", print_,
                "Print the study as it will run, every default filled in (protobuf text)");
    return c;
  }
  int Run(const CommandContext&) override {
    auto out = ValidateReport(path_, print_);
    if (!out.ok()) return Fail(out.status());
    fputs(out->c_str(), stdout);
    return 0;
  }

 private:
  std::string path_;
  bool print_ = false;
};

}  // namespace

std::unique_ptr<Command> NewValidateCommand() { return std::make_unique<ValidateCommand>(); }

}  // namespace sweep
