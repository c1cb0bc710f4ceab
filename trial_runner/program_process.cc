// The watchdog and the program (program_process.h says why a watchdog).
// Between fork and exec only async-signal-safe calls run: the runner has
// several threads, and the child holds just the forking one.
#include "trial_runner/program_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/posix_error.h"

namespace sweep {

namespace {

// What the watchdog tells the runner, one 8-byte record at a time (atomic on
// a pipe).
struct Record {
  int32_t tag;  // kPid, kExit, kForkFailed
  int32_t value;
};
constexpr int32_t kPid = 1, kExit = 2, kForkFailed = 3;

void WriteRecord(int fd, int32_t tag, int32_t value) {
  Record r{tag, value};
  while (write(fd, &r, sizeof r) < 0 && errno == EINTR) {
  }
}

// Closes every descriptor from 3 up except `keep` (async-signal-safe).
void CloseAllExcept(int* keep, int n, int max_fd) {
  std::sort(keep, keep + n);
  unsigned lo = 3;
  auto close_range_or_loop = [&](unsigned from, unsigned to) {
    if (from > to) return;
    if (close_range(from, to, 0) == 0) return;
    for (unsigned fd = from; fd <= to && fd < static_cast<unsigned>(max_fd); ++fd)
      close(static_cast<int>(fd));
  };
  for (int i = 0; i < n; ++i) {
    unsigned k = static_cast<unsigned>(keep[i]);
    if (k < lo) continue;
    close_range_or_loop(lo, k - 1);
    lo = k + 1;
  }
  close_range_or_loop(lo, ~0U);
}

struct ChildArgs {
  const char* path;
  char* const* argv;
  char* const* envp;
  const char* workdir;
  int control_r, status_w, out_w, err_w, exec_w;
  int max_fd;
};

[[noreturn]] void ProgramMain(const ChildArgs& a, pid_t watchdog) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != watchdog) _exit(127);  // the watchdog died before prctl
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  int in = open("/dev/null", O_RDONLY);
  if (in >= 0 && in != 0) {
    dup2(in, 0);
    close(in);
  }
  dup2(a.out_w, 1);
  dup2(a.err_w, 2);
  int err = 0;
  if (chdir(a.workdir) != 0) {
    err = errno;
  } else {
    int keep[] = {a.exec_w};
    CloseAllExcept(keep, 1, a.max_fd);
    execve(a.path, a.argv, a.envp);
    err = errno;
  }
  while (write(a.exec_w, &err, sizeof err) < 0 && errno == EINTR) {
  }
  _exit(127);
}

[[noreturn]] void WatchdogMain(const ChildArgs& a) {
  // Only the pipe decides: Ctrl-C on the terminal reaches the runner, whose
  // exit closes the pipe.
  struct sigaction ign;
  std::memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  for (int sig : {SIGINT, SIGHUP, SIGTERM, SIGQUIT, SIGPIPE}) sigaction(sig, &ign, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  int keep[] = {a.control_r, a.status_w, a.out_w, a.err_w, a.exec_w};
  CloseAllExcept(keep, 5, a.max_fd);
  // The runner's stdio is not the watchdog's to hold open (every pipe fd
  // is above 2, ProgramProcess::Start sees to it).
  int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    for (int fd = 0; fd < 3; ++fd) dup2(null, fd);
    if (null > 2) close(null);
  }
  pid_t self = getpid();
  // _Fork: no atfork handlers, which could wait on locks of the runner's
  // other threads (this process is a fork of a multi-threaded one).
  pid_t pid = _Fork();
  if (pid == 0) ProgramMain(a, self);
  if (pid < 0) {
    WriteRecord(a.status_w, kForkFailed, errno);
    _exit(1);
  }
  setpgid(pid, pid);  // also in the child: whichever runs first
  close(a.out_w);
  close(a.err_w);
  close(a.exec_w);
  WriteRecord(a.status_w, kPid, pid);
  // A pidfd turns readable the moment the program exits, so its end is
  // seen at once; without one (a kernel before 5.3) the loop polls.
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  bool program_done = false;
  while (true) {
    struct pollfd p[2] = {{a.control_r, POLLIN, 0}, {pidfd, POLLIN, 0}};
    int nfds = pidfd >= 0 && !program_done ? 2 : 1;
    if (poll(p, static_cast<nfds_t>(nfds), 100) > 0 && p[0].revents) {
      char c;
      ssize_t n = read(a.control_r, &c, 1);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        // The runner is gone, or is done with this program. Once the leader
        // is reaped its group id may be reused: signal it only before.
        if (!program_done) {
          kill(-pid, SIGKILL);
          waitpid(pid, nullptr, 0);
        }
        while (waitpid(-1, nullptr, WNOHANG) > 0) {
        }
        _exit(0);
      }
    }
    int st;
    pid_t w;
    while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
      if (w == pid) {
        program_done = true;
        if (pidfd >= 0) close(pidfd);
        kill(-pid, SIGKILL);  // what it left running in its group
        WriteRecord(a.status_w, kExit, st);
      }
    }
  }
}

// argv[0] as execve needs it: a path, searched on the program's PATH. A
// relative path, or a relative PATH entry, is taken from the workdir, where
// the program starts, and executed as given.
Result<std::string> ResolveProgram(const ProgramSpec& spec) {
  const std::string& name = spec.argv[0];
  if (name.find('/') != std::string::npos) {
    std::string path = name[0] == '/' ? name : spec.workdir + "/" + name;
    if (access(path.c_str(), X_OK) != 0)
      return PosixError("cannot run", name + " (in " + spec.workdir + ")", errno);
    return name;
  }
  std::string search = "/usr/local/bin:/usr/bin:/bin";
  for (const auto& e : spec.env)
    if (e.rfind("PATH=", 0) == 0) search = e.substr(5);
  size_t start = 0;
  while (start <= search.size()) {
    size_t end = search.find(':', start);
    if (end == std::string::npos) end = search.size();
    std::string dir = search.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string path = dir + "/" + name;
    // A relative entry is relative to the workdir, where execve runs.
    std::string there = path[0] == '/' ? path : spec.workdir + "/" + path;
    struct stat st;
    if (stat(there.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(there.c_str(), X_OK) == 0)
      return path;
    start = end + 1;
  }
  return Status::NotFound("cannot run '" + name + "': not found on PATH (" + search + ")");
}

// A pipe or fork that failed: this runner is out of processes or
// descriptors for now, which says nothing of the program.
Status RunnerShort(const std::string& call, const std::string& what, int err) {
  return Status::Unavailable(PosixError(call, what, err).message());
}

void CloseFd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

}  // namespace

Result<std::unique_ptr<ProgramProcess>> ProgramProcess::Start(const ProgramSpec& spec) {
  if (spec.argv.empty() || spec.argv[0].empty())
    return Status::InvalidArgument("the command has no program (argv is empty)");
  struct stat wd;
  if (stat(spec.workdir.c_str(), &wd) != 0) return PosixError("workdir", spec.workdir, errno);
  if (!S_ISDIR(wd.st_mode))
    return Status::InvalidArgument("workdir " + spec.workdir + " is not a folder");
  auto path = ResolveProgram(spec);
  if (!path.ok()) return path.status();

  std::vector<char*> argv, envp;
  for (const auto& s : spec.argv) argv.push_back(const_cast<char*>(s.c_str()));
  argv.push_back(nullptr);
  for (const auto& s : spec.env) envp.push_back(const_cast<char*>(s.c_str()));
  envp.push_back(nullptr);

  int control[2], status[2], out[2], err[2], exec[2];
  int* pipes[] = {control, status, out, err, exec};
  int made = 0;
  for (; made < 5; ++made) {
    if (pipe2(pipes[made], O_CLOEXEC) != 0) {
      int e = errno;
      for (int i = 0; i < made; ++i) {
        close(pipes[i][0]);
        close(pipes[i][1]);
      }
      return RunnerShort("pipe", "for the program", e);
    }
    // A runner started with stdio closed gets pipes at 0-2, which the
    // children's dup2 onto stdio would clobber: move them up.
    for (int end = 0; end < 2; ++end) {
      int& fd = pipes[made][end];
      if (fd > 2) continue;
      int moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
      if (moved >= 0) {
        close(fd);
        fd = moved;
      }
    }
  }
  long max_fd = sysconf(_SC_OPEN_MAX);
  ChildArgs a{path->c_str(), argv.data(),
              envp.data(),   spec.workdir.c_str(),
              control[0],    status[1],
              out[1],        err[1],
              exec[1],       static_cast<int>(std::clamp<long>(max_fd, 256, 1 << 16))};
  pid_t watchdog = fork();
  if (watchdog == 0) WatchdogMain(a);
  int fork_errno = errno;
  close(control[0]);
  close(status[1]);
  close(out[1]);
  close(err[1]);
  close(exec[1]);
  auto p = std::unique_ptr<ProgramProcess>(new ProgramProcess());
  p->control_fd_ = control[1];
  p->status_fd_ = status[0];
  p->out_fd_ = out[0];
  p->err_fd_ = err[0];
  if (watchdog < 0) {
    close(exec[0]);
    return RunnerShort("fork", "the watchdog of " + spec.argv[0], fork_errno);
  }
  p->watchdog_ = watchdog;
  Record r{};
  ssize_t n;
  while ((n = read(p->status_fd_, &r, sizeof r)) < 0 && errno == EINTR) {
  }
  if (n != sizeof r || r.tag != kPid) {
    close(exec[0]);
    return RunnerShort("fork", "the program " + spec.argv[0], r.tag == kForkFailed ? r.value : EIO);
  }
  p->group_ = r.value;
  int exec_errno = 0;
  while ((n = read(exec[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close(exec[0]);
  if (n == sizeof exec_errno)
    return PosixError("cannot run", spec.argv[0] + " (in " + spec.workdir + ")", exec_errno);
  for (int fd : {p->status_fd_, p->out_fd_, p->err_fd_})
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return p;
}

ProgramProcess::~ProgramProcess() {
  if (group_ > 0 && !exited_) kill(-group_, SIGKILL);
  CloseFd(&control_fd_);  // the watchdog kills the rest of the group and exits
  // The status pipe closes when the watchdog exits: wait for that, not by
  // polling waitpid. Bounded: a program stuck in the kernel (D state)
  // survives SIGKILL and its watchdog waits for it; the runner must not.
  // Such a watchdog is reaped when the runner exits.
  int64_t waited_ms = 0;
  while (watchdog_ > 0 && status_fd_ >= 0 && waited_ms < 5000) {
    struct pollfd p = {status_fd_, POLLIN, 0};
    int r = poll(&p, 1, 100);
    waited_ms += 100;
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[64];
    ssize_t n = read(status_fd_, buf, sizeof buf);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) break;
  }
  for (int i = 0; watchdog_ > 0 && i < 100; ++i) {
    pid_t r = waitpid(watchdog_, nullptr, WNOHANG);
    if (r == watchdog_ || (r < 0 && errno != EINTR)) break;
    usleep(1000);
  }
  CloseFd(&status_fd_);
  CloseFd(&out_fd_);
  CloseFd(&err_fd_);
}

void ProgramProcess::CloseOutput(bool is_stdout) { CloseFd(is_stdout ? &out_fd_ : &err_fd_); }

bool ProgramProcess::ReadExit() {
  Record r;
  while (!exited_ && status_fd_ >= 0) {
    ssize_t n = read(status_fd_, &r, sizeof r);
    if (n == sizeof r) {
      if (r.tag == kExit) {
        exited_ = true;
        wait_status_ = r.value;
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) {
      // The watchdog died without a word (killed): the program went with it
      // (PR_SET_PDEATHSIG); what it started may not have, so end the group.
      if (group_ > 0) kill(-group_, SIGKILL);
      exited_ = true;
      wait_status_ = SIGKILL;
    }
    break;
  }
  return exited_;
}

void ProgramProcess::SignalGroup(int sig) {
  if (group_ > 0 && !exited_) kill(-group_, sig);
}

std::string DescribeWaitStatus(int st) {
  if (WIFEXITED(st)) return "exited with code " + std::to_string(WEXITSTATUS(st));
  if (WIFSIGNALED(st)) {
    int sig = WTERMSIG(st);
    const char* abbrev = sigabbrev_np(sig);
    return "was killed by signal " + std::to_string(sig) +
           (abbrev ? std::string(" (SIG") + abbrev + ")" : "");
  }
  return "ended with wait status " + std::to_string(st);
}

}  // namespace sweep
