// Packing and unpacking checkpoint folders, with lstat and O_NOFOLLOW so a
// symlink planted in the folder is refused rather than read or written through.
#include "trial_runner/checkpoint_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

#include "common/posix_error.h"
#include "proto/sweep.pb.h"

namespace sweep {

namespace {

constexpr int kMaxFiles = 100000;
constexpr int kMaxDepth = 32;

Result<std::vector<std::string>> ListDir(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return PosixError("opendir", dir, errno);
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Status ReadFile(const std::string& path, std::string* out) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return PosixError("open", path, errno);
  char buf[1 << 16];
  while (true) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      close(fd);
      return PosixError("read", path, e);
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return Status::Ok();
}

Status Pack(const std::string& root, const std::string& rel, int depth, size_t max_bytes,
            size_t* total, pb::CheckpointFolder* folder) {
  if (depth > kMaxDepth) return Status::InvalidArgument("checkpoint folder nested deeper than 32");
  std::string dir = rel.empty() ? root : root + "/" + rel;
  auto names = ListDir(dir);
  if (!names.ok()) return names.status();
  for (const auto& n : *names) {
    std::string r = rel.empty() ? n : rel + "/" + n;
    std::string path = root + "/" + r;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) return PosixError("lstat", path, errno);
    if (S_ISDIR(st.st_mode)) {
      Status s = Pack(root, r, depth + 1, max_bytes, total, folder);
      if (!s.ok()) return s;
      continue;
    }
    if (!S_ISREG(st.st_mode))
      return Status::InvalidArgument(path + " is not a regular file or folder (" +
                                     (S_ISLNK(st.st_mode) ? "a symlink" : "a special file") +
                                     "); checkpoints hold only files");
    if (folder->files_size() >= kMaxFiles)
      return Status::ResourceExhausted("checkpoint folder has more than 100000 files");
    *total += static_cast<size_t>(st.st_size);
    if (*total > max_bytes)
      return Status::ResourceExhausted("checkpoint folder " + root + " holds more than " +
                                       std::to_string(max_bytes >> 20) + " MiB (the cap)");
    pb::CheckpointFolder::File* f = folder->add_files();
    f->set_path(r);
    f->set_executable((st.st_mode & S_IXUSR) != 0);
    Status s = ReadFile(path, f->mutable_data());
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

bool SafeRelative(const std::string& p) {
  if (p.empty() || p[0] == '/' || p.size() > 4096) return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    std::string part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == ".." || part.find('\0') != std::string::npos)
      return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

Result<std::string> PackFolder(const std::string& dir, size_t max_bytes) {
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return PosixError("checkpoint folder", dir, errno);
  if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument(dir + " is not a folder");
  pb::CheckpointFolder folder;
  size_t total = 0;
  Status s = Pack(dir, "", 0, max_bytes, &total, &folder);
  if (!s.ok()) return s;
  return folder.SerializeAsString();
}

Status UnpackFolder(const std::string& bytes, const std::string& dir) {
  pb::CheckpointFolder folder;
  if (!folder.ParseFromString(bytes))
    return Status::Corruption("the checkpoint is not a packed folder (written by another task?)");
  for (const auto& f : folder.files()) {
    if (!SafeRelative(f.path()))
      return Status::Corruption("the checkpoint names an unsafe path '" + f.path() + "'");
    std::string path = dir;
    size_t start = 0;
    // Make the parent folders, refusing any that exists as something else.
    while (true) {
      size_t slash = f.path().find('/', start);
      if (slash == std::string::npos) break;
      path = dir + "/" + f.path().substr(0, slash);
      if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        return PosixError("mkdir", path, errno);
      struct stat st;
      if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Status::Corruption("the checkpoint's " + path + " is not a folder");
      start = slash + 1;
    }
    path = dir + "/" + f.path();
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  f.executable() ? 0700 : 0600);
    if (fd < 0) return PosixError("create", path, errno);
    const std::string& d = f.data();
    size_t off = 0;
    while (off < d.size()) {
      ssize_t n = write(fd, d.data() + off, d.size() - off);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        int e = errno;
        close(fd);
        return PosixError("write", path, e);
      }
      off += static_cast<size_t>(n);
    }
    if (close(fd) != 0) return PosixError("close", path, errno);
  }
  return Status::Ok();
}

void RemoveTree(const std::string& path) {
  struct stat st;
  if (lstat(path.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) {
    auto names = ListDir(path);
    if (names.ok())
      for (const auto& n : *names) RemoveTree(path + "/" + n);
    rmdir(path.c_str());
  } else {
    unlink(path.c_str());
  }
}

}  // namespace sweep
