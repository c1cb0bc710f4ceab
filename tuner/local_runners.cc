// Spawning and supervising local runner processes.
#include "tuner/local_runners.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>

#include "common/clock.h"
#include "common/log.h"
#include "common/openmp_wait.h"
#include "common/posix_error.h"

namespace sweep {

namespace {
// Where a local runner finds its keys (--key-fd) and the host's core share
// (--core-share-fd, trial_runner/core_share.h).
constexpr int kKeyFd = 3;
constexpr int kCoreShareFd = 4;
}  // namespace

int64_t RestartDelayMs(int quick_deaths) {
  int64_t delay = 1000;
  for (int i = 1; i < quick_deaths && delay < 30000; ++i) delay *= 2;
  return std::min<int64_t>(delay, 30000);
}

LocalRunners::LocalRunners(std::string exe, std::string endpoint, int count, int heartbeat_ms)
    : exe_(std::move(exe)),
      endpoint_(std::move(endpoint)),
      heartbeat_ms_(heartbeat_ms),
      slots_(static_cast<size_t>(count)) {
  // One anonymous file for all of them: no name to plant or race, and gone
  // with the last process that holds it.
  core_share_fd_ = memfd_create("sweep-core-share", MFD_CLOEXEC);
  if (core_share_fd_ < 0) {
    // The Status is made first: the log line's own calls may change errno.
    Status st = PosixError("cannot make the local runners' core share", errno,
                           "idle runners will not lend their cores");
    LOG_WARN << st.message();
  }
}

LocalRunners::~LocalRunners() {
  StopAll(2000);
  if (core_share_fd_ >= 0) close(core_share_fd_);
}

pid_t LocalRunners::Spawn(int index) {
  std::string name = "local-" + std::to_string(index);
  const std::string& keys = slots_[static_cast<size_t>(index)].keys;
  // The keys go through a pipe the child inherits as descriptor 3: written
  // in full before the fork (far below a pipe's capacity), read by the child.
  int key_pipe[2] = {-1, -1};
  if (!keys.empty()) {
    if (pipe2(key_pipe, O_CLOEXEC) != 0 ||
        write(key_pipe[1], keys.data(), keys.size()) != static_cast<ssize_t>(keys.size())) {
      Status st = PosixError("cannot hand a local runner its keys", errno);
      LOG_ERROR << st.message();
      for (int fd : key_pipe)
        if (fd >= 0) close(fd);
      return -1;
    }
    close(key_pipe[1]);
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid == 0) {
    // Each source first goes above the targets, so that neither can land
    // on the other's target before it has moved.
    auto high = [](int fd) {
      int h = fd >= 0 ? fcntl(fd, F_DUPFD_CLOEXEC, 10) : -1;
      if (fd >= 0 && h < 0) _exit(127);
      return h;
    };
    int key_high = high(key_pipe[0]), share_high = high(core_share_fd_);
    // dup2 leaves the new descriptor open across exec.
    if (key_high >= 0 && dup2(key_high, kKeyFd) < 0) _exit(127);
    if (share_high >= 0 && dup2(share_high, kCoreShareFd) < 0) _exit(127);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(0);
    signal(SIGINT, SIG_IGN);
    SetOpenMpWaitDefaults();  // as `sweep runner` would set it, without its re-exec
    std::string threads =
        std::to_string(std::max<size_t>(1, std::thread::hardware_concurrency() / slots_.size()));
    // OpenBLAS starts its thread pool when it loads: size it to what a trial may use.
    setenv("OPENBLAS_NUM_THREADS", threads.c_str(), 0);
    std::vector<std::string> args = {exe_,
                                     "runner",
                                     "--connect",
                                     endpoint_,
                                     "--name",
                                     name,
                                     "--give-up-after",
                                     "60",
                                     "--heartbeat-ms",
                                     std::to_string(heartbeat_ms_),
                                     "--threads",
                                     threads,
                                     "--allow-commands"};
    const auto& extra = slots_[static_cast<size_t>(index)].args;
    args.insert(args.end(), extra.begin(), extra.end());
    if (key_pipe[0] >= 0) {
      args.push_back("--key-fd");
      args.push_back(std::to_string(kKeyFd));
    }
    if (core_share_fd_ >= 0) {
      for (const std::string& a : {std::string("--core-share-fd"), std::to_string(kCoreShareFd),
                                   std::string("--core-slot"), std::to_string(index),
                                   std::string("--core-slots"), std::to_string(slots_.size())})
        args.push_back(a);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe_.c_str(), argv.data());
    _exit(127);
  }
  if (pid < 0) {
    Status st = PosixError("cannot start a local runner", errno);
    LOG_ERROR << st.message();
  }
  if (key_pipe[0] >= 0) close(key_pipe[0]);
  return pid;
}

void LocalRunners::StartAll() {
  for (size_t i = 0; i < slots_.size(); ++i) {
    slots_[i].pid = Spawn(static_cast<int>(i));
    slots_[i].started_ms = NowMs();
  }
}

int LocalRunners::Supervise(bool restart, std::vector<Death>* died) {
  int restarted = 0;
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    if (s.pid > 0) {
      int status = 0;
      pid_t r = waitpid(s.pid, &status, WNOHANG);
      if (r == s.pid) {
        std::string how = WIFSIGNALED(status)
                              ? "killed by signal " + std::to_string(WTERMSIG(status))
                              : "exited with code " + std::to_string(WEXITSTATUS(status));
        int64_t now = NowMs();
        s.quick_deaths = now - s.started_ms < kQuickDeathMs ? s.quick_deaths + 1 : 0;
        s.died_ms = now;
        if (WIFSIGNALED(status)) {
          LOG_WARN << "local runner " << i << " (pid " << s.pid << ") was " << how;
        } else if (WEXITSTATUS(status) == 2) {
          LOG_ERROR << "local runner " << i << " (pid " << s.pid
                    << ") cannot start (see its message above); not restarting it";
          s.refused = true;
        } else {
          LOG_WARN << "local runner " << i << " (pid " << s.pid << ") exited with code "
                   << WEXITSTATUS(status);
        }
        if (died) died->push_back({s.pid, how});
        s.pid = -1;
        if (!s.refused && s.quick_deaths > 1)
          LOG_WARN << "local runner " << i << " died " << s.quick_deaths
                   << " times in a row soon after starting; next start in "
                   << RestartDelayMs(s.quick_deaths) / 1000 << " s";
      }
    }
    if (s.pid < 0 && !s.refused && restart &&
        NowMs() - s.died_ms >= RestartDelayMs(s.quick_deaths)) {
      s.pid = Spawn(static_cast<int>(i));
      s.started_ms = NowMs();
      ++s.restarts;
      ++restarted;
    }
  }
  return restarted;
}

int LocalRunners::refused() const {
  int n = 0;
  for (const auto& s : slots_) n += s.refused;
  return n;
}

void LocalRunners::SignalAll() {
  for (auto& s : slots_) {
    if (s.pid > 0) kill(s.pid, SIGTERM);
  }
}

void LocalRunners::StopAll(int grace_ms) {
  SignalAll();
  int64_t deadline = NowMs() + grace_ms;
  for (auto& s : slots_) {
    while (s.pid > 0) {
      int status;
      pid_t r = waitpid(s.pid, &status, WNOHANG);
      if (r == s.pid || r < 0) {
        s.pid = -1;
        break;
      }
      if (NowMs() > deadline) {
        kill(s.pid, SIGKILL);
        waitpid(s.pid, &status, 0);
        s.pid = -1;
        break;
      }
      usleep(1000);
    }
  }
}

}  // namespace sweep
