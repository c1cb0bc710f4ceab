// The tuner's private socket for its local runners (see private_endpoint.h).
#include "common/private_endpoint.h"

#include <dirent.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "common/posix_error.h"

namespace sweep {

namespace {

constexpr size_t kMaxSocketPath = 100;  // sun_path holds 108 bytes

bool OwnDir(const char* path) {
  struct stat st;
  return path && *path && lstat(path, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
         (st.st_mode & 022) == 0;
}

// Removes the folders of tuners killed before they could (kill -9): ours,
// 0700, a minute old or more, holding nothing but a socket nobody listens on.
void RemoveStale(const std::string& base) {
  DIR* d = opendir(base.c_str());
  if (!d) return;
  std::vector<std::string> stale;
  time_t now = time(nullptr);
  while (dirent* e = readdir(d)) {
    std::string name = e->d_name;
    if (name.size() != 12 || name.rfind("sweep-", 0) != 0) continue;
    std::string dir = base + "/" + name, sock = dir + "/tuner.sock";
    struct stat st;
    if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
        (st.st_mode & 077) != 0 || now - st.st_mtime < 60)
      continue;
    if (lstat(sock.c_str(), &st) == 0) {
      if (!S_ISSOCK(st.st_mode)) continue;
      // Non-blocking: a frozen tuner with a full backlog must not hang us.
      int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      sockaddr_un a{};
      a.sun_family = AF_UNIX;
      if (fd < 0 || sock.size() >= sizeof a.sun_path) {
        if (fd >= 0) close(fd);
        continue;
      }
      std::memcpy(a.sun_path, sock.c_str(), sock.size() + 1);
      bool listening =
          connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 || errno != ECONNREFUSED;
      close(fd);
      if (listening) continue;
    }
    stale.push_back(dir);
  }
  closedir(d);
  for (const auto& dir : stale) {
    unlink((dir + "/tuner.sock").c_str());
    rmdir(dir.c_str());  // fails, harmlessly, if anything else is in it
  }
}

}  // namespace

Result<std::string> MakePrivateSocketDir() {
  std::vector<std::string> bases;
  if (OwnDir(getenv("XDG_RUNTIME_DIR"))) bases.push_back(getenv("XDG_RUNTIME_DIR"));
  if (getenv("TMPDIR") && *getenv("TMPDIR")) bases.push_back(getenv("TMPDIR"));
  bases.push_back("/tmp");
  Status last = Status::Unknown("no folder for the local runners' socket");
  for (const std::string& base : bases) {
    std::string tmpl = base + "/sweep-XXXXXX";
    if (tmpl.size() + 12 > kMaxSocketPath) continue;  // "/tuner.sock"
    RemoveStale(base);
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {  // mode 0700
      last = PosixError("mkdtemp", tmpl, errno);
      continue;
    }
    return std::string(buf.data());
  }
  return last;
}

std::string PrivateEndpoint(const std::string& dir) { return "ipc://" + dir + "/tuner.sock"; }

Status CheckPrivateEndpoint(const std::string& endpoint) {
  if (endpoint.rfind("ipc://", 0) != 0)
    return Status::InvalidArgument("a private tuner endpoint is ipc://, not " + endpoint);
  std::string path = endpoint.substr(6);
  std::string dir = path.substr(0, path.find_last_of('/'));
  struct stat st;
  if (dir.empty() || lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::FailedPrecondition(dir + ": the tuner's private folder is missing");
  if (st.st_uid != geteuid() || (st.st_mode & 077) != 0)
    return Status::FailedPrecondition(
        dir + ": the tuner's private folder must be this user's and closed to others (0700)");
  return Status::Ok();
}

}  // namespace sweep
