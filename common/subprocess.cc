// Runs another program to its end (see subprocess.h): posix_spawnp with two
// pipes read under poll, and a deadline.
#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>

#include "common/posix_error.h"

extern char** environ;

namespace sweep {

namespace {

constexpr size_t kMaxOutput = 64 << 10;

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<SubprocessResult> RunSubprocess(const std::vector<std::string>& argv,
                                       const std::map<std::string, std::string>& env,
                                       int timeout_ms) {
  if (argv.empty()) return Status::InvalidArgument("no program to run");
  std::vector<std::string> env_text;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (!env.count(entry.substr(0, entry.find('=')))) env_text.push_back(std::move(entry));
  }
  for (const auto& [name, value] : env) env_text.push_back(name + "=" + value);
  std::vector<char*> envp, args;
  for (auto& e : env_text) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0) return PosixError("pipe", errno);
  if (pipe2(err, O_CLOEXEC) != 0) {
    int e = errno;
    close(out[0]);
    close(out[1]);
    return PosixError("pipe", e);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  close(err[1]);
  if (rc != 0) {
    close(out[0]);
    close(err[0]);
    return PosixError("cannot run " + argv[0], rc);
  }
  SubprocessResult result;
  std::string* sinks[2] = {&result.out, &result.err};
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  const int64_t deadline = SteadyMs() + timeout_ms;
  bool timed_out = false;
  int open_fds = 2;
  while (open_fds > 0) {
    const int64_t left = deadline - SteadyMs();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) < 0 && errno != EINTR) {
      timed_out = true;  // cannot watch it: end it rather than wait blind
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        if (sinks[i]->size() < kMaxOutput)
          sinks[i]->append(buf, std::min(static_cast<size_t>(n), kMaxOutput - sinks[i]->size()));
      } else if (n == 0 || errno != EINTR) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  // Its outputs are closed; it may still run (it handed them to a child):
  // it gets what is left of the deadline too.
  int status = 0;
  while (!timed_out) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (SteadyMs() >= deadline) {
      timed_out = true;
      break;
    }
    usleep(10000);
  }
  if (timed_out) {
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (timed_out)
    return Status::Unavailable(argv[0] + " did not end within " +
                               std::to_string(timeout_ms / 1000) + " s");
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace sweep
