// Starting a program: what the program's fault is (not found) and what is
// this runner's (no descriptors left for its pipes), which a command trial
// treats as a lost attempt to retry elsewhere; relative PATH entries.
#include "trial_runner/program_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "e2e/harness.h"

namespace sweep {
namespace {

// Waits for the exit record (at most 10 s).
bool WaitExit(ProgramProcess* p) {
  for (int i = 0; i < 100 && !p->exited(); ++i) {
    struct pollfd fd = {p->exit_fd(), POLLIN, 0};
    if (poll(&fd, 1, 100) > 0) p->ReadExit();
  }
  return p->exited();
}

TEST(ProgramProcessTest, NoDescriptorsLeftIsTheRunnersShortageNotTheProgramsFault) {
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
  struct rlimit low = old;
  low.rlim_cur = 64;
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<int> fds;
  for (int fd; (fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0;) fds.push_back(fd);
  auto p = ProgramProcess::Start({{"/bin/true"}, {}, "/"});
  for (int fd : fds) close(fd);
  ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kUnavailable) << p.status().message();
  EXPECT_NE(p.status().message().find("pipe for the program"), std::string::npos)
      << p.status().message();

  // With descriptors again it starts; a missing program is its own error.
  auto ok = ProgramProcess::Start({{"/bin/true"}, {}, "/"});
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  ASSERT_TRUE(WaitExit(ok->get()));
  EXPECT_TRUE(WIFEXITED((*ok)->wait_status()) && WEXITSTATUS((*ok)->wait_status()) == 0);
  auto missing = ProgramProcess::Start({{"no-such-program"}, {"PATH=/usr/bin:/bin"}, "/"});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(ProgramProcessTest, ARelativePathEntryIsTakenFromTheWorkdir) {
  e2e::TempDir dir;
  std::filesystem::create_directories(dir.File("bin"));
  std::string prog = dir.Write("bin/prog", "#!/bin/sh\nexit 7\n");
  ASSERT_EQ(chmod(prog.c_str(), 0755), 0);
  // The test's own folder is not dir: only the workdir has bin/prog.
  ASSERT_NE(std::filesystem::current_path(), std::filesystem::path(dir.path()));
  auto p = ProgramProcess::Start({{"prog"}, {"PATH=bin:/usr/bin:/bin"}, dir.path()});
  ASSERT_TRUE(p.ok()) << p.status().message();
  ASSERT_TRUE(WaitExit(p->get()));
  EXPECT_TRUE(WIFEXITED((*p)->wait_status()) && WEXITSTATUS((*p)->wait_status()) == 7);
}

}  // namespace
}  // namespace sweep
