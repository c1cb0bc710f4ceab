// A runner's work folder, and the removal of those dead runners left.
#include "trial_runner/work_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "common/log.h"
#include "common/posix_error.h"
#include "trial_runner/checkpoint_folder.h"

namespace sweep {

namespace {

constexpr char kPrefix[] = "sweep-runner-";
constexpr char kLockName[] = "/.lock";

// Removes base/sweep-runner-* folders of this user whose lock nobody holds.
void RemoveStale(const std::string& base) {
  DIR* d = opendir(base.c_str());
  if (!d) return;
  std::vector<std::string> stale;
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.rfind(kPrefix, 0) != 0) continue;
    std::string dir = base + "/" + name;
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) continue;
    int fd = open((dir + kLockName).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      // Still being made, or its runner died between taking the lock under
      // its first name and renaming it: a minute later, unheld, it is stale.
      std::string making = dir + kLockName + "-new";
      struct stat lst;
      if (lstat(making.c_str(), &lst) != 0 || !S_ISREG(lst.st_mode) ||
          time(nullptr) - lst.st_mtime < 60)
        continue;
      fd = open(making.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      if (fd < 0) continue;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) stale.push_back(dir);
    close(fd);
  }
  closedir(d);
  for (const auto& dir : stale) {
    LOG_INFO << "removing " << dir << ", left by a runner that is gone";
    RemoveTree(dir);
  }
}

}  // namespace

Result<WorkFolder> WorkFolder::Open(const std::string& base) {
  RemoveStale(base);
  std::string tmpl = base + "/" + kPrefix + "XXXXXX";
  if (!mkdtemp(tmpl.data()))
    return PosixError("cannot make a folder for command trials in", base, errno);
  // The lock is taken under another name and then renamed into place, so
  // that no other runner's RemoveStale ever finds a .lock that is not held
  // yet (two runners starting together once removed each other's folder
  // between the open and the flock).
  std::string making = tmpl + kLockName + "-new";
  int fd = open(making.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0 ||
      rename(making.c_str(), (tmpl + kLockName).c_str()) != 0) {
    int err = errno;
    if (fd >= 0) close(fd);
    RemoveTree(tmpl);
    return PosixError("lock", tmpl + kLockName, err);
  }
  return WorkFolder(tmpl, fd);
}

WorkFolder::WorkFolder(WorkFolder&& o) noexcept : path_(std::move(o.path_)), lock_fd_(o.lock_fd_) {
  o.path_.clear();
  o.lock_fd_ = -1;
}

WorkFolder::~WorkFolder() {
  if (!path_.empty()) RemoveTree(path_);
  if (lock_fd_ >= 0) close(lock_fd_);
}

}  // namespace sweep
