// The host's core share: the share rule, and real byte locks on a real memfd
// held by this process and by a child that is then killed with SIGKILL.
#include "trial_runner/core_share.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace sweep {
namespace {

// Past CoreShare's 250 ms between looks.
void WaitForALook() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

TEST(CoreShareTest, ShareRule) {
  EXPECT_EQ(CoreShare::ShareOf(2, 1, 0), 2);
  EXPECT_EQ(CoreShare::ShareOf(2, 2, 0), 1);
  EXPECT_EQ(CoreShare::ShareOf(2, 2, 1), 1);
  EXPECT_EQ(CoreShare::ShareOf(3, 2, 0), 2);  // the remainder to the lowest slot
  EXPECT_EQ(CoreShare::ShareOf(3, 2, 1), 1);
  EXPECT_EQ(CoreShare::ShareOf(2, 4, 3), 1);  // more runners than cores: still one
  EXPECT_EQ(CoreShare::ShareOf(8, 3, 2), 2);
}

TEST(CoreShareTest, IdleRunnersLendTheirCoresUntilTheyAreBusyOrDead) {
  int fd = memfd_create("core-share-test", MFD_CLOEXEC);
  ASSERT_GE(fd, 0);
  // Open() takes over the descriptor it is given, as a runner does.
  auto a = CoreShare::Open(dup(fd), 0, 3, 4);
  auto b = CoreShare::Open(dup(fd), 1, 3, 4);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  (*a)->SetBusy(true);
  EXPECT_EQ((*a)->Threads(), 4);  // the others are idle: all four cores
  (*b)->SetBusy(true);
  WaitForALook();
  EXPECT_EQ((*a)->Threads(), 2);
  EXPECT_EQ((*b)->Threads(), 2);

  // A third runner in another process takes its slot, then dies by SIGKILL.
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  if (child == 0) {
    auto c = CoreShare::Open(dup(fd), 2, 3, 4);
    if (!c.ok()) _exit(1);
    (*c)->SetBusy(true);
    char x = 1;
    if (write(ready[1], &x, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char x = 0;
  ASSERT_EQ(read(ready[0], &x, 1), 1);
  WaitForALook();
  EXPECT_EQ((*a)->Threads(), 2);  // 4 cores over 3 busy: the lowest slot gets the spare
  EXPECT_EQ((*b)->Threads(), 1);
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  WaitForALook();
  EXPECT_EQ((*b)->Threads(), 2);  // its lock died with it

  (*b)->SetBusy(false);
  WaitForALook();
  EXPECT_EQ((*a)->Threads(), 4);
  close(ready[0]);
  close(ready[1]);
  close(fd);
}

TEST(CoreShareTest, BadPlacesAreRefused) {
  EXPECT_FALSE(CoreShare::Open(-1, 0, 1, 1).ok());
  EXPECT_FALSE(CoreShare::Open(0, 2, 2, 1).ok());
  EXPECT_FALSE(CoreShare::Open(0, 0, 1, 0).ok());
}

}  // namespace
}  // namespace sweep
