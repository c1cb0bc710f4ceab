// `sweep pause|resume|cancel STUDY` and `sweep set STUDY`: a study owner's
// requests to the service holding the database (tuner/service.h).
#include "cli/commands.h"
#include "cli/service_client.h"

namespace sweep {

namespace {

// Sends `request` and prints the service's answer; the exit status.
int Call(const ServiceAddress& address, pb::ControlRequest request) {
  auto reply = CallService(address, std::move(request));
  if (!reply.ok()) return Fail(reply.status());
  printf("%s\n", EscapeControl(reply->message()).c_str());
  return 0;
}

// pause, resume and cancel: a study name, nothing more.
class StudyActionCommand : public Command {
 public:
  enum class Kind { kPause, kResume, kCancel };
  explicit StudyActionCommand(Kind kind) : kind_(kind) {}
  CLI::App* Define(CLI::App* app) override {
    static const char* const kNames[] = {"pause", "resume", "cancel"};
    static const char* const kHelp[] = {
        "Pause a service's study: its running trials go back to its queue, its runners to "
        "other studies",
        "Resume a paused or cancelled study of a service",
        "Cancel a service's study: its trials stop, every result is kept"};
    const int k = static_cast<int>(kind_);
    auto* c = app->add_subcommand(kNames[k], kHelp[k]);
    c->add_option("study", study_, "The study's name")->required();
    AddServiceOptions(c, &address_);
    return c;
  }
  int Run(const CommandContext&) override {
    pb::ControlRequest request;
    pb::StudyAction* a = kind_ == Kind::kPause    ? request.mutable_pause()
                         : kind_ == Kind::kResume ? request.mutable_resume()
                                                  : request.mutable_cancel();
    a->set_study(study_);
    return Call(address_, std::move(request));
  }

 private:
  Kind kind_;
  std::string study_;
  ServiceAddress address_;
};

class SetCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("set", "Change a service study's priority or runner cap");
    c->add_option("study", study_, "The study's name")->required();
    AddServiceOptions(c, &address_);
    priority_opt_ = c->add_option("--priority", priority_, "Its weight in the fair share")
                        ->check(CLI::Range(1e-6, 1e6));
    max_runners_opt_ =
        c->add_option("--max-runners", max_runners_, "Runners its trials hold at most (0: no cap)")
            ->check(CLI::Range(0, 1000000));
    return c;
  }
  int Run(const CommandContext&) override {
    if (priority_opt_->count() == 0 && max_runners_opt_->count() == 0) {
      fprintf(stderr, "sweep: set what? give --priority P and/or --max-runners K\n");
      return kExitUsage;
    }
    pb::ControlRequest request;
    pb::SetStudy* s = request.mutable_set();
    s->set_study(study_);
    if (priority_opt_->count()) s->set_priority(priority_);
    if (max_runners_opt_->count()) s->set_max_runners(max_runners_);
    return Call(address_, std::move(request));
  }

 private:
  std::string study_;
  ServiceAddress address_;
  double priority_ = 1;
  int64_t max_runners_ = 0;
  CLI::Option* priority_opt_ = nullptr;
  CLI::Option* max_runners_opt_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> NewPauseCommand() {
  return std::make_unique<StudyActionCommand>(StudyActionCommand::Kind::kPause);
}
std::unique_ptr<Command> NewResumeCommand() {
  return std::make_unique<StudyActionCommand>(StudyActionCommand::Kind::kResume);
}
std::unique_ptr<Command> NewCancelCommand() {
  return std::make_unique<StudyActionCommand>(StudyActionCommand::Kind::kCancel);
}
std::unique_ptr<Command> NewSetCommand() { return std::make_unique<SetCommand>(); }

}  // namespace sweep
