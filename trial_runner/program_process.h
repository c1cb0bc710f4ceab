// One run of a user's program, in a process group of its own, watched by a
// small watchdog process so that nothing it starts outlives it.
//
// Why a watchdog: PR_SET_PDEATHSIG reaches only the direct child, and a
// subreaper dies with the runner, so neither survives `kill -9` of the runner
// with grandchildren still running. The watchdog is forked from the runner
// (it runs only async-signal-safe calls, no exec) and holds the read end of
// a pipe whose write end only the runner holds. When the runner dies, however
// it dies, the kernel closes that pipe and the watchdog kills the program's
// whole group. It is also a subreaper, so orphans in the group are reaped, and
// when the program exits it kills what the program left running in its group.
// The program itself gets PR_SET_PDEATHSIG(SIGKILL), in case the watchdog is
// killed. A descendant that leaves the group (setsid) is out of reach.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "common/status.h"

namespace sweep {

struct ProgramSpec {
  std::vector<std::string> argv;  // argv[0] is searched on PATH (from `env`) unless it has a '/'
  std::vector<std::string> env;   // "NAME=value", the whole environment
  std::string workdir;
};

class ProgramProcess {
 public:
  // Starts the program; an error says why it could not start (not found,
  // not executable, a missing workdir). kUnavailable: this runner could not
  // make a pipe or fork (out of descriptors or processes), not the
  // program's fault.
  static Result<std::unique_ptr<ProgramProcess>> Start(const ProgramSpec& spec);
  // Kills whatever is left of the group and reaps the watchdog.
  ~ProgramProcess();
  ProgramProcess(const ProgramProcess&) = delete;
  ProgramProcess& operator=(const ProgramProcess&) = delete;

  // Non-blocking descriptors of the program's stdout and stderr; -1 once
  // closed (CloseOutput).
  int stdout_fd() const { return out_fd_; }
  int stderr_fd() const { return err_fd_; }
  void CloseOutput(bool is_stdout);
  // Readable when the program has exited (call ReadExit then).
  int exit_fd() const { return status_fd_; }
  // True once the exit status arrived; `wait_status` as waitpid gives it.
  bool ReadExit();
  bool exited() const { return exited_; }
  int wait_status() const { return wait_status_; }

  // Sends `sig` to every process of the program's group.
  void SignalGroup(int sig);

 private:
  ProgramProcess() = default;
  pid_t watchdog_ = -1;
  pid_t group_ = -1;     // the program's pid, leader of its process group
  int control_fd_ = -1;  // write end: closing it makes the watchdog kill the group
  int status_fd_ = -1;   // from the watchdog: the exit status
  int out_fd_ = -1;
  int err_fd_ = -1;
  bool exited_ = false;
  int wait_status_ = 0;
};

// "exited with code 3", "was killed by signal 9 (SIGKILL)".
std::string DescribeWaitStatus(int wait_status);

}  // namespace sweep
