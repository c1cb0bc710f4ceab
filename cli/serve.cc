// `sweep serve`: the service that runs many studies on one pool of runners
// until Ctrl-C or `sweep stop`; the work is tuner/service.h.
#include "cli/commands.h"
#include "common/zmq_socket.h"
#include "tuner/service.h"

namespace sweep {

namespace {

class ServeCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand(
        "serve", "Run a service: many studies at once on one pool of runners (docs/service.md)");
    ServerOptions& s = o_.server;
    AddDbOption(c, &s.db_path);
    c->add_option("--bind", s.bind, "Endpoint runners join at")->capture_default_str();
    c->add_option("--local-runners", s.local_runners,
                  "Local runner processes (default: one per core)")
        ->check(CLI::Range(0, 4096));
    c->add_option("--gpus", s.gpus, "Start local runners on these CUDA devices, e.g. 0,1")
        ->delimiter(',');
    trials_per_gpu_ = c->add_option("--trials-per-gpu", s.trials_per_gpu,
                                    "With --gpus: local runners (separate processes) per GPU")
                          ->check(CLI::Range(1, 64))
                          ->capture_default_str();
    c->add_option("--keys", s.keys_dir,
                  "Folder with tuner.key and the *.pub keys of the runners it admits");
    c->add_option("--control", o_.control,
                  "Also take requests from other machines here (tcp://HOST:PORT), from the "
                  "keys in --keys DIR's clients/ and admins/");
    c->add_flag("--insecure", s.insecure,
                "No runner authentication: anyone who reaches --bind may join");
    c->add_option("--max-connections", s.max_connections, "Connections held open at most")
        ->check(CLI::Range(1, 1000000));
    LaunchOptions& l = o_.launch;
    c->add_option("--launcher", l.launcher,
                  "Ask the cluster for runners as the studies need them (docs/slurm.md)")
        ->check(CLI::IsMember({"slurm"}));
    c->add_option("--launch-max", l.max_runners, "With --launcher: runner jobs at once, at most")
        ->check(CLI::Range(1, 100000));
    c->add_option("--launch-args", l.sbatch_args,
                  "With --launcher: more sbatch options, e.g. \"-p gpu -t 4:00:00\"");
    c->add_option("--launch-idle", l.idle_s,
                  "With --launcher: a runner leaves after this many seconds without a trial")
        ->check(CLI::Range(1, 86400 * 7))
        ->capture_default_str();
    c->add_option("--launch-dir", l.dir,
                  "With --launcher: the runners' key and output, on a file system the nodes see "
                  "(default: ~/.sweep/slurm/DB-HASH)");
    c->add_flag("--launch-allow-commands", l.allow_commands,
                "With --launcher: its runners run command trials (--allow-commands)");
    c->add_option("--heartbeat-ms", s.heartbeat_ms, "Heartbeat interval")
        ->check(CLI::Range(50, 60000))
        ->capture_default_str();
    return c;
  }

  int Run(const CommandContext& context) override {
    if (trials_per_gpu_->count() > 0 && o_.server.gpus.empty()) {
      fprintf(stderr, "sweep: --trials-per-gpu does nothing without --gpus; add --gpus LIST\n");
      return kExitUsage;
    }
    if (o_.launch.launcher.empty() &&
        (o_.launch.max_runners > 0 || !o_.launch.sbatch_args.empty() || !o_.launch.dir.empty() ||
         o_.launch.allow_commands)) {
      fprintf(stderr, "sweep: the --launch-* options need --launcher slurm\n");
      return kExitUsage;
    }
    Status st = CheckEndpoint(o_.server.bind).Wrap("--bind");
    if (!st.ok()) return Fail(st);
    o_.server.exe = context.self_exe;
    return RunService(o_);
  }

 private:
  ServiceOptions o_;
  CLI::Option* trials_per_gpu_ = nullptr;
};

}  // namespace

std::unique_ptr<Command> NewServeCommand() { return std::make_unique<ServeCommand>(); }

}  // namespace sweep
