// The local runners' private socket folder: made 0700, trusted by a runner
// only when it is this user's and closed to others, and a killed tuner's
// folder removed by the next one. Real folders and sockets.
#include "common/private_endpoint.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <utime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace sweep {
namespace {

struct TmpBase {
  std::string path;
  TmpBase() {
    char t[] = "/tmp/sweep_pe_XXXXXX";
    path = mkdtemp(t);
    setenv("TMPDIR", path.c_str(), 1);
    unsetenv("XDG_RUNTIME_DIR");
  }
  ~TmpBase() { std::system(("rm -rf " + path).c_str()); }
};

int BindSocket(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0) << strerror(errno);
  return fd;
}

TEST(PrivateEndpointTest, TheFolderIsOnlyThisUsersAndARunnerChecksIt) {
  TmpBase base;
  auto dir = MakePrivateSocketDir();
  ASSERT_TRUE(dir.ok()) << dir.status().message();
  EXPECT_EQ(dir->rfind(base.path + "/sweep-", 0), 0u) << *dir;
  struct stat st;
  ASSERT_EQ(lstat(dir->c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_TRUE(CheckPrivateEndpoint(PrivateEndpoint(*dir)).ok());
  // Opened to others, it is not private any more.
  chmod(dir->c_str(), 0755);
  Status open = CheckPrivateEndpoint(PrivateEndpoint(*dir));
  EXPECT_FALSE(open.ok());
  EXPECT_NE(open.message().find("closed to others (0700)"), std::string::npos) << open.message();
  chmod(dir->c_str(), 0700);
  // A symlink to a private folder is refused, and so is TCP.
  std::string link = base.path + "/link";
  ASSERT_EQ(symlink(dir->c_str(), link.c_str()), 0);
  EXPECT_FALSE(CheckPrivateEndpoint("ipc://" + link + "/tuner.sock").ok());
  EXPECT_FALSE(CheckPrivateEndpoint("tcp://127.0.0.1:5555").ok());
  EXPECT_FALSE(CheckPrivateEndpoint("ipc://" + base.path + "/missing/tuner.sock").ok());
}

TEST(PrivateEndpointTest, AKilledTunersFolderIsRemovedByTheNextButALiveOneIsNot) {
  TmpBase base;
  auto dead = MakePrivateSocketDir();
  auto live = MakePrivateSocketDir();
  ASSERT_TRUE(dead.ok() && live.ok());
  // The dead tuner's socket file stays after its process; the live one listens.
  int gone = BindSocket(*dead + "/tuner.sock");
  close(gone);
  int alive = BindSocket(*live + "/tuner.sock");
  ASSERT_EQ(listen(alive, 4), 0);
  // Both are older than a minute.
  utimbuf old{time(nullptr) - 120, time(nullptr) - 120};
  utime(dead->c_str(), &old);
  utime(live->c_str(), &old);
  // A dead one that is young (its tuner may not have bound yet), and an old
  // one holding a file of someone's, stay.
  auto young = MakePrivateSocketDir();
  auto busy = MakePrivateSocketDir();
  ASSERT_TRUE(young.ok() && busy.ok());
  close(BindSocket(*young + "/tuner.sock"));
  close(BindSocket(*busy + "/tuner.sock"));
  FILE* f = fopen((*busy + "/notes").c_str(), "w");
  ASSERT_NE(f, nullptr);
  fclose(f);
  utime(busy->c_str(), &old);
  auto next = MakePrivateSocketDir();
  ASSERT_TRUE(next.ok());
  struct stat st;
  EXPECT_NE(lstat(dead->c_str(), &st), 0) << *dead << " should be gone";
  EXPECT_EQ(lstat(live->c_str(), &st), 0) << *live << " is in use";
  EXPECT_EQ(lstat(young->c_str(), &st), 0) << *young << " is too young to judge";
  EXPECT_EQ(lstat((*busy + "/notes").c_str(), &st), 0) << "a file not ours was removed";
  EXPECT_EQ(lstat(next->c_str(), &st), 0);
  close(alive);
}

}  // namespace
}  // namespace sweep
