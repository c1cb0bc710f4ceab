// `sweep runner --connect ENDPOINT`: run trials for a tuner; the work is
// trial_runner/runner.h, the key files cli/keys.h.
#include "trial_runner/runner.h"

#include "cli/commands.h"
#include "cli/keys.h"

namespace sweep {

namespace {

class RunnerCommand : public Command {
 public:
  CLI::App* Define(CLI::App* app) override {
    auto* c = app->add_subcommand("runner", "Run trials for a tuner");
    c->add_option("--connect", o_.endpoint, "Tuner endpoint, e.g. tcp://host:5555")->required();
    c->add_option("--name", o_.name, "Runner name (default: host-pid)");
    c->add_option("--heartbeat-ms", o_.heartbeat_ms, "Heartbeat interval")
        ->check(CLI::Range(50, 60000));
    c->add_option("--threads", o_.threads, "CPU threads per trial (default: all cores)")
        ->check(CLI::Range(0, 1024));
    c->add_option("--give-up-after", o_.give_up_after_s,
                  "Exit after this many seconds without a tuner (0: never)");
    c->add_option("--backend", o_.backend, "auto|cpu|cuda (auto: CUDA when visible)")
        ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
        ->capture_default_str();
    c->add_option("--gpus", o_.gpus, "CUDA devices to use, e.g. 0,1 (default: all)")
        ->delimiter(',');
    c->add_option("--server-key", server_key_file_,
                  "The tuner's public key file (tuner.pub from `sweep keys new tuner`)");
    c->add_flag("--allow-commands", o_.allow_commands,
                "Run command trials (the study's own programs), only for a tuner "
                "authenticated by --server-key");
    c->add_option("--work-dir", o_.work_dir,
                  "Folder for command trials' files (default: $TMPDIR or /tmp)");
    c->add_option("--exit-when-idle", o_.exit_when_idle_s,
                  "Leave after this many seconds without a trial (0: never), so that a "
                  "scheduler's allocation is not held idle")
        ->check(CLI::Range(0, 86400 * 365));
    c->add_option("--leave-within", o_.leave_within_s,
                  "After SIGUSR1 (or SIGTERM: 25 s at most), leave once the running trial "
                  "has checkpointed, or after this many seconds")
        ->check(CLI::Range(0, 86400))
        ->capture_default_str();
    c->add_option("--key", key_file_, "This runner's key file (NAME.key, mode 0600)");
    // For the local runners a tuner starts: hidden (no group).
    c->add_option("--key-fd", key_fd_, "Keys on an inherited descriptor (local runners)")
        ->group("");
    c->add_flag("--private-tuner", o_.private_tuner,
                "--connect is the tuner's private ipc:// socket, in a folder only this user may "
                "enter (local runners)")
        ->group("");
    c->add_option("--core-share-fd", o_.core_share_fd,
                  "The host's core share on an inherited descriptor (local runners)")
        ->group("");
    c->add_option("--core-slot", o_.core_slot, "This runner's place in the core share")->group("");
    c->add_option("--core-slots", o_.core_slots, "Runners in the core share")->group("");
    return c;
  }

  int Run(const CommandContext&) override {
    Status st = LoadRunnerKeys(server_key_file_, key_file_, key_fd_, &o_);
    if (!st.ok()) return Fail(st);
    return RunRunner(o_);
  }

 private:
  RunnerOptions o_;
  std::string server_key_file_, key_file_;
  int key_fd_ = -1;
};

}  // namespace

std::unique_ptr<Command> NewRunnerCommand() { return std::make_unique<RunnerCommand>(); }

}  // namespace sweep
