// `sweep submit STUDY`: validates a study file here, as `sweep validate`
// does, and hands it to the service holding the database; with --wait,
// follows it as `sweep watch` does.
#include "cli/commands.h"
#include "cli/service_client.h"
#include "cli/watch.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/algorithms/hyperband.h"

namespace sweep {

namespace {

class SubmitCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("submit", "Hand a study to the service holding a database");
    c->add_option("study", path_, "Study file (.yaml, .json or .pbtxt)")->required();
    AddServiceOptions(c, &address_);
    c->add_option("--priority", priority_,
                  "Its weight in the fair share of the runners (default 1; a study that exists "
                  "keeps its own)")
        ->check(CLI::Range(1e-6, 1e6));
    c->add_option("--max-runners", max_runners_, "Runners its trials hold at most (0: no cap)")
        ->check(CLI::Range(0, 1000000));
    c->add_flag("--wait", wait_, "Follow it until it stops running, as `sweep watch` does");
    return c;
  }

  int Run(const CommandContext&) override {
    auto parsed = LoadStudyFile(path_);
    if (!parsed.ok()) return Fail(parsed.status());
    Status st = ValidateStudy(&*parsed);
    if (st.ok()) st = CheckPlan(parsed->study);
    if (!st.ok()) return Fail(st);
    pb::ControlRequest request;
    pb::SubmitStudy* s = request.mutable_submit();
    *s->mutable_study() = parsed->study;
    s->set_priority(priority_);
    s->set_max_runners(max_runners_);
    auto reply = CallService(address_, std::move(request));
    if (!reply.ok()) return Fail(reply.status());
    printf("%s\n", EscapeControl(reply->message()).c_str());
    fflush(stdout);
    if (!wait_) return 0;
    if (!address_.server.empty()) {
      fprintf(stderr,
              "sweep: --wait follows the study in the database; on the service's machine "
              "run `sweep watch %s --db FILE`\n",
              parsed->study.name().c_str());
      return 1;
    }
    WatchOptions w;
    w.db = address_.db;
    w.study = parsed->study.name();
    int rc = WatchStudy(w);
    return rc == 0 ? ExitAsRun(parsed->study.name()) : rc;
  }

 private:
  // As `sweep run` would exit: 0 for a completed study with a completed
  // trial, else 1 saying why.
  int ExitAsRun(const std::string& name) {
    auto reader = Reader::Open(address_.db);
    if (!reader.ok()) return Fail(reader.status());
    auto studies = (*reader)->StudySummaries(0);
    if (!studies.ok()) return Fail(studies.status());
    for (const StudySummary& s : *studies) {
      if (s.ref.name != name) continue;
      if (s.status != StudyStatus::kCompleted)
        return Error("study '" + name + "' stopped running: it is " + StudyStatusName(s.status));
      if (!s.best) return Error("study '" + name + "' completed, but no trial completed");
      return 0;
    }
    return Error("study '" + name + "' is gone from " + address_.db);
  }

 public:
 private:
  std::string path_;
  ServiceAddress address_;
  double priority_ = 0;
  int64_t max_runners_ = 0;
  bool wait_ = false;
};

}  // namespace

std::unique_ptr<Command> NewSubmitCommand() { return std::make_unique<SubmitCommand>(); }

}  // namespace sweep
