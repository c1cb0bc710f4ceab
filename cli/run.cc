// `sweep run STUDY`: run (or resume) a study; the work is tuner/tuner.h.
#include <cstdio>

#include "cli/commands.h"
#include "tuner/tuner.h"

namespace sweep {

namespace {

class RunCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("run", "Run (or resume) a study");
    c->add_option("study", o_.study_path, "Study file (.yaml, .json or .pbtxt)")->required();
    AddDbOption(c, &o_.db_path);
    c->add_option("--bind", o_.bind, "Endpoint the tuner listens on")->capture_default_str();
    c->add_option("--local-runners", o_.local_runners,
                  "Local runner processes (default: one per core)")
        ->check(CLI::Range(0, 4096));
    c->add_option("--gpus", o_.gpus,
                  "Start local runners on these CUDA devices, e.g. 0,1 (one set of "
                  "gpus_per_trial devices per runner)")
        ->delimiter(',');
    trials_per_gpu_ = c->add_option("--trials-per-gpu", o_.trials_per_gpu,
                                    "With --gpus: local runners (separate processes) per GPU set")
                          ->check(CLI::Range(1, 64))
                          ->capture_default_str();
    c->add_option("--keys", o_.keys_dir,
                  "Folder with tuner.key and the *.pub keys of the runners it admits");
    c->add_option("--from", o_.from,
                  "Start a new tpe study from another study's finished trials: DB[:STUDY]");
    c->add_flag("--retry-failed", o_.retry_failed,
                "Run the study's failed trials again (same parameters, a new attempt each) "
                "before anything new");
    c->add_flag("--insecure", o_.insecure,
                "No runner authentication: anyone who reaches --bind may join");
    c->add_option("--max-connections", o_.max_connections,
                  "Connections held open at most (default 4096, fewer where the process may "
                  "open fewer files)")
        ->check(CLI::Range(1, 1000000));
    c->add_option("--heartbeat-ms", o_.heartbeat_ms, "Heartbeat interval")
        ->check(CLI::Range(50, 60000))
        ->capture_default_str();
    c->add_option("--progress", progress_, "auto|live|plain")
        ->check(CLI::IsMember({"auto", "live", "plain"}));
    return c;
  }

  int Run(const CommandContext& context) override {
    if (trials_per_gpu_->count() > 0 && o_.gpus.empty()) {  // a usage error
      fprintf(stderr,
              "sweep: --trials-per-gpu does nothing without --gpus (it is how many trials "
              "share each GPU set); add --gpus LIST or drop it\n");
      return kExitUsage;
    }
    o_.exe = context.self_exe;
    o_.progress = progress_ == "live" ? 1 : progress_ == "plain" ? 0 : -1;
    return RunTuner(o_);
  }

 private:
  TunerOptions o_;
  CLI::Option* trials_per_gpu_ = nullptr;
  std::string progress_ = "auto";
};

}  // namespace

std::unique_ptr<Command> NewRunCommand() { return std::make_unique<RunCommand>(); }

}  // namespace sweep
