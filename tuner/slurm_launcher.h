// The service's Slurm launcher (`sweep serve --launcher slurm`,
// docs/slurm.md): it submits runner jobs with sbatch when the studies have
// trials that no connected runner can take, one runner a job, up to
// --launch-max jobs at once, with the GPUs the studies' trials need
// (--gres=gpu:G unless --launch-args says otherwise), and cancels the jobs
// still pending once the work is covered. Runners leave by themselves once
// idle (--launch-idle: their --exit-when-idle), so allocations go back to
// the cluster. sbatch, squeue and scancel run on a thread of its own, so a
// slow slurmctld never holds up the service's turns; the service tells it
// what is wanted (SetDemand) and collects what it did (TakeEvents).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "storage/launch_record.h"
#include "tuner/launch_folder.h"

namespace sweep {

struct LaunchOptions {
  std::string launcher;         // --launcher: "slurm", or "" for none
  int max_runners = 0;          // --launch-max: runner jobs at once
  std::string sbatch_args;      // --launch-args: more sbatch options, e.g. "-p gpu -t 4:00:00"
  int idle_s = 300;             // --launch-idle: a runner leaves after this long without a trial
  bool allow_commands = false;  // --launch-allow-commands: runners run command trials
  std::string dir;              // --launch-dir ("": DefaultLaunchFolder)
};

// What the service wants now: runners beyond those connected, by the GPUs a
// trial needs (0: a CPU runner), and the jobs whose runners have joined.
struct LaunchDemand {
  std::map<int, int64_t> short_by_gpus;
  std::set<std::string> joined_jobs;
};

// A runner job the launcher keeps track of, as `sweep runners --jobs` shows.
struct LaunchedJob {
  std::string job;
  int gpus = 0;
  std::string state;   // Slurm's: PENDING, RUNNING, ...
  std::string reason;  // why it is pending, as squeue says
  double submitted_at = 0;
};

// Where the launched runners connect, and what they run.
struct LaunchTarget {
  std::string connect;  // the service's endpoint, as the compute nodes reach it
  std::string exe;      // the sweep binary, as the compute nodes see it
  std::string job_name;
  int heartbeat_ms = 1000;  // the service's: its runners must beat as often
};

class SlurmLauncher {
 public:
  // Starts the thread; `folder` is ready (PrepareLaunchFolder).
  static Result<std::unique_ptr<SlurmLauncher>> Start(const LaunchOptions& o,
                                                      const LaunchTarget& target,
                                                      const LaunchFolder& folder);
  ~SlurmLauncher();
  void SetDemand(LaunchDemand demand);
  std::vector<LaunchRecord> TakeEvents();
  std::vector<LaunchedJob> Jobs() const;
  // Cancels the jobs whose runners have not started (a pending job would
  // start for nobody) and ends the thread. Running jobs end as their
  // runners leave (the service tells them to).
  void Stop();

 private:
  SlurmLauncher(const LaunchOptions& o, const LaunchTarget& t, const LaunchFolder& f)
      : o_(o), target_(t), folder_(f) {}
  void Loop();
  // squeue: the jobs' states; a job gone from the queue has ended.
  void Refresh(double now);
  // Submits or cancels for what `demand` says.
  void Act(const LaunchDemand& demand, double now);
  bool Submit(int gpus, double now);
  // Cancels `jobs` while they are still pending (one scancel).
  void Cancel(const std::vector<std::string>& jobs, const std::string& why, double now);
  bool Stopping() const;
  void Note(LaunchRecord e);

  struct Job {
    int gpus = 0;
    std::string state = "PENDING";
    std::string reason;
    double submitted_at = 0;
    bool joined = false;  // its runner joined the service at some time
  };

  const LaunchOptions o_;
  const LaunchTarget target_;
  const LaunchFolder folder_;
  std::vector<std::string> extra_args_;  // o_.sbatch_args, split
  // The thread's own.
  std::map<std::string, Job> jobs_;      // by job id
  std::map<int, double> refused_until_;  // by GPUs: sbatch refused; try again then
  std::map<int, double> excess_since_;   // by GPUs: more coming than wanted since
  // Shared with the service's thread.
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  bool demand_changed_ = false;
  LaunchDemand demand_;
  std::vector<LaunchRecord> events_;
  std::vector<LaunchedJob> view_;
  std::thread thread_;
};

// Splits sbatch options as a shell would split words: on blanks, with '...'
// and "..." quoting (no expansion). An unclosed quote is an error.
Result<std::vector<std::string>> SplitShellWords(const std::string& text);

// One line of `squeue --format=%i|%T|%r|%b|%N`.
struct SqueueJob {
  std::string job, state, reason;
  int gpus = 0;  // from its GRES ("gpu:2", "gres/gpu:a100:2"; none: 0)
  std::string nodes;
};
// squeue's output, lines that are not a job of ours (a pending array's
// "12_[1-4]", garbage) left out.
std::vector<SqueueJob> ParseSqueue(const std::string& text);
// The GPUs a GRES string asks for: "gpu:2", "gres:gpu:2", "gres/gpu:a100:2"
// (2), "gpu" (1), "N/A" (0).
int GpusOfGres(const std::string& gres);

}  // namespace sweep
