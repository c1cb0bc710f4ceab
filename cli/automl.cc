// `sweep automl TABLE.csv --label COL`: a model for a table in one command.
// Writes the study file it runs (automl_study.h), enqueues known-good first
// configurations (`sweep enqueue`), runs the study here with local runners
// (the same tuner as `sweep run`), prints the best trial's test score and
// exports it (`sweep export-model`). Run again, it resumes the same study
// (the time limit counts the earlier runs).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/automl_study.h"
#include "cli/commands.h"
#include "common/duration.h"
#include "common/json.h"
#include "common/small_file.h"
#include "common/subprocess.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/tuner.h"

namespace sweep {

namespace {

// "wine" for data/wine.csv: the study's and the files' name, in the
// characters a study name takes.
std::string Stem(const std::string& table) {
  std::string stem = std::filesystem::path(table).stem().string(), out;
  for (char c : stem)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
  return out.empty() ? "table" : out.substr(0, 100);  // a study name has at most 200
}

class AutomlCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "automl",
        "Find a model for a table: trees, networks and linear models within a time limit");
    c->add_option("table", r_.table, "The training table (CSV with a header row)")->required();
    c->add_option("--label", r_.label, "The column to predict")->required();
    c->add_option("--test", r_.test,
                  "A test table with the same columns (default: a seeded fifth of the table)");
    c->add_option("--problem", r_.problem,
                  "classification|regression (default: read off the label column)")
        ->check(CLI::IsMember({"classification", "regression"}));
    c->add_option("--time-limit", r_.time_limit, "How long the search runs: 90s, 10m, 1h")
        ->capture_default_str();
    c->add_option("--metric", r_.metric,
                  "The validation metric to optimise (default val_loss, or val_r2)");
    c->add_option("--seed", r_.seed, "The study's seed")->capture_default_str();
    c->add_option("--db", db_, "Results database (default: TABLE-automl.db here)")
        ->envname("SWEEP_DB");
    c->add_option("--study", study_, "The study file to write (default: TABLE-automl.yaml here)");
    c->add_option("-o,--output", output_, "The exported model (default: TABLE-automl.onnx here)");
    c->add_option("--local-runners", runners_, "Trials at once (default: one per core)")
        ->check(CLI::Range(1, 4096));
    c->add_option("--progress", progress_, "auto|live|plain")
        ->check(CLI::IsMember({"auto", "live", "plain"}));
    return c;
  }

  int Run(const CommandContext& context) override {
    auto limit = ParseDuration(r_.time_limit);
    if (!limit.ok()) return Error("--time-limit: " + limit.status().message());
    // Named after the study file where one is given (a second study of the
    // same table), else after the table.
    const std::string stem = !study_.empty() ? Stem(study_) : Stem(r_.table) + "-automl";
    r_.name = stem;
    if (db_.empty()) db_ = stem + ".db";
    if (study_.empty()) study_ = stem + ".yaml";
    if (output_.empty()) output_ = stem + ".onnx";
    auto plan = PlanAutoml(r_);
    if (!plan.ok()) return Fail(plan.status());
    printf("%s: %s, so %s; the search %s %s%s for %s\n", r_.table.c_str(),
           plan->problem_why.c_str(), plan->problem.c_str(),
           plan->minimize ? "minimises" : "maximises", plan->metric.c_str(),
           plan->folds > 0 ? (" over " + std::to_string(plan->folds) + " folds").c_str() : "",
           r_.time_limit.c_str());
    // Checked before it is written: a mistake leaves no file behind.
    auto parsed = ParseStudyYaml(plan->text, study_);
    Status valid = parsed.ok() ? ValidateStudy(&*parsed) : parsed.status();
    if (!valid.ok()) return Fail(valid);
    Status written = WriteStudy(plan->text);
    if (!written.ok()) return Fail(written);
    // The first configurations, once: a rerun resumes the study as it is.
    if (!StudyExists()) {
      std::vector<std::string> argv = {context.self_exe, "enqueue", study_, "--db", db_};
      for (const std::string& s : plan->starts) argv.insert(argv.end(), {"--params", s});
      auto r = RunSubprocess(argv, {}, 60000);
      if (!r.ok()) return Error("enqueue of the first configurations: " + r.status().message());
      if (r->exit_code != 0)
        return Error("enqueue of the first configurations: " +
                     (r->err.empty() ? "exit " + std::to_string(r->exit_code) : r->err));
    }
    TunerOptions o;
    o.study_path = study_;
    o.db_path = db_;
    o.exe = context.self_exe;
    o.local_runners = runners_;
    o.progress = progress_ == "live" ? 1 : progress_ == "plain" ? 0 : -1;
    const int rc = RunTuner(o);
    if (rc != 0) return rc;  // interrupted (the resume command was printed) or failed
    return Finish(context, *plan);
  }

 private:
  // The study file, written where it is new, or where the one there differs
  // only in its time limit (a rerun with a longer --time-limit: a study
  // resumes with a changed limit). Any other difference is the user's edit
  // (or other options) and is never overwritten.
  Status WriteStudy(const std::string& text) const {
    std::error_code ec;
    const bool there = std::filesystem::exists(study_, ec);
    if (ec) return Status::IOError(study_ + ": " + ec.message());
    if (there) {
      ASSIGN_OR_RETURN(std::string old, ReadSmallFile(study_, {.what = "study file"}));
      if (old == text) {
        printf("%s: the study file of an earlier run; resuming it\n", study_.c_str());
        return Status::Ok();
      }
      if (WithoutTimeLimit(old) != WithoutTimeLimit(text))
        return Status::FailedPrecondition(
            study_ +
            " exists and differs from the study this command writes (edited, or "
            "other options): run it with `sweep run " +
            study_ + " --db " + db_ + "`, or remove it (and " + db_ + ") to start afresh");
      printf("%s: the study of an earlier run, with the time limit now %s\n", study_.c_str(),
             r_.time_limit.c_str());
    }
    // A file of its own beside the target, then moved in place: a new study
    // file only where none has appeared meanwhile (link), the time limit's
    // change over the old one (rename).
    const std::string tmp = study_ + ".tmp." + std::to_string(getpid());
    {
      std::ofstream out(tmp, std::ios::trunc);
      out << text;
      out.close();
      if (!out) {
        std::remove(tmp.c_str());
        return Status::IOError(study_ + ": cannot write the study file");
      }
    }
    const int moved =
        there ? std::rename(tmp.c_str(), study_.c_str()) : link(tmp.c_str(), study_.c_str());
    const int error = errno;
    std::remove(tmp.c_str());
    if (moved != 0)
      return Status::IOError(
          study_ + ": cannot write the study file (" +
          std::string(error == EEXIST ? "another run wrote it meanwhile" : std::strerror(error)) +
          ")");
    if (!there)
      printf("wrote %s (the study this runs: read it, edit it, run it with `sweep run`)\n",
             study_.c_str());
    return Status::Ok();
  }

  static std::string WithoutTimeLimit(const std::string& text) {
    std::istringstream in(text);
    std::string line, out;
    while (std::getline(in, line))
      if (line.rfind("  time_limit:", 0) != 0) out += line + "\n";
    return out;
  }

  bool StudyExists() const {
    std::error_code ec;
    if (!std::filesystem::exists(db_, ec)) return false;
    auto reader = Reader::Open(db_);
    return reader.ok() && (*reader)->ResolveStudy(r_.name).ok();
  }

  // The best trial's test score, and its model exported.
  int Finish(const CommandContext& context, const AutomlStudy& plan) {
    auto reader = Reader::Open(db_);
    if (!reader.ok()) return Fail(reader.status());
    auto study = (*reader)->ResolveStudy(r_.name);
    if (!study.ok()) return Fail(study.status());
    auto best = (*reader)->Trials(*study, std::nullopt, 1);
    if (!best.ok()) return Fail(best.status());
    if (best->empty())
      return Error(
          "no trial completed within the time limit: run the same command with a "
          "longer --time-limit (the study goes on)");
    const TrialView& t = (*best)[0];
    std::string model = "?";
    for (const auto& p : t.params.params())
      if (p.name() == "model") model = p.value().text();
    std::optional<double> test;
    for (const auto& [name, value] : t.metrics)
      if (name == plan.test_metric) test = value;
    printf("best: trial %lld (%s), %s %s; %s %s on the test rows\n",
           static_cast<long long>(t.number), model.c_str(), plan.metric.c_str(),
           t.value ? FormatDouble(*t.value).c_str() : "-", plan.test_metric.c_str(),
           test ? FormatDouble(*test).c_str() : "- (not reported)");
    auto r = RunSubprocess({context.self_exe, "export-model", r_.name, "--db", db_, "-o", output_},
                           {}, 600000);
    if (!r.ok()) return Fail(r.status());
    fputs(r->err.c_str(), stderr);
    if (r->exit_code != 0) return 1;
    printf(
        "predict: sweep predict %s --db %s --input NEW.csv   (or load %s with any ONNX "
        "runtime)\n",
        r_.name.c_str(), db_.c_str(), output_.c_str());
    return 0;
  }

  AutomlRequest r_;
  std::string db_, study_, output_, progress_ = "auto";
  int runners_ = -1;
};

}  // namespace

std::unique_ptr<Command> NewAutomlCommand() { return std::make_unique<AutomlCommand>(); }

}  // namespace sweep
