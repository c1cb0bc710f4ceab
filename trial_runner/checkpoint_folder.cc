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
#include "common/small_file.h"
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

Status Pack(const std::string& root, const std::string& rel, int depth, size_t max_bytes,
            size_t* total, pb::CheckpointFolder* folder, bool* over_cap) {
  if (depth > kMaxDepth) return Status::InvalidArgument("checkpoint folder nested deeper than 32");
  std::string dir = rel.empty() ? root : root + "/" + rel;
  auto names = ListDir(dir);
  if (!names.ok()) return names.status();
  for (const auto& n : *names) {
    std::string r = rel.empty() ? n : rel + "/" + n;
    std::string path = root + "/" + r;
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) return PosixError("lstat", path, errno);
    *total += r.size();  // paths count toward the cap too
    if (folder->files_size() >= kMaxFiles)
      return Status::ResourceExhausted("checkpoint folder has more than 100000 entries");
    if (S_ISDIR(st.st_mode)) {
      pb::CheckpointFolder::File* f = folder->add_files();
      f->set_path(r);
      f->set_folder(true);
      Status s = Pack(root, r, depth + 1, max_bytes, total, folder, over_cap);
      if (!s.ok()) return s;
      continue;
    }
    if (!S_ISREG(st.st_mode))
      return Status::InvalidArgument(path + " is not a regular file or folder (" +
                                     (S_ISLNK(st.st_mode) ? "a symlink" : "a special file") +
                                     "); checkpoints hold only files");
    auto too_big = [&] {
      *over_cap = true;
      return Status::ResourceExhausted("checkpoint folder " + root + " holds more than " +
                                       std::to_string(max_bytes >> 20) + " MiB (the cap)");
    };
    if (*total + static_cast<size_t>(st.st_size) > max_bytes) return too_big();
    pb::CheckpointFolder::File* f = folder->add_files();
    f->set_path(r);
    f->set_executable((st.st_mode & S_IXUSR) != 0);
    // Never more than the room left: a file still growing is read no further.
    // O_NOFOLLOW and the check on the descriptor: an entry swapped for a
    // symlink or a FIFO after the lstat is refused.
    auto data = ReadSmallFile(
        path,
        {.what = "checkpoint file", .max_bytes = max_bytes - *total, .follow_symlinks = false});
    if (!data.ok())
      return data.status().code() == StatusCode::kResourceExhausted ? too_big() : data.status();
    *total += data->size();
    f->set_data(std::move(*data));
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

Result<std::string> PackFolder(const std::string& dir, size_t max_bytes, bool* over_cap) {
  bool over = false;
  if (!over_cap) over_cap = &over;
  *over_cap = false;
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0) return PosixError("checkpoint folder", dir, errno);
  if (!S_ISDIR(st.st_mode)) return Status::InvalidArgument(dir + " is not a folder");
  pb::CheckpointFolder folder;
  size_t total = 0;
  Status s = Pack(dir, "", 0, max_bytes, &total, &folder, over_cap);
  if (!s.ok()) return s;
  return folder.SerializeAsString();
}

Status UnpackFolder(const std::string& bytes, const std::string& dir) {
  pb::CheckpointFolder folder;
  if (!folder.ParseFromString(bytes))
    return Status::Corruption("the checkpoint is not a packed folder (written by another task?)");
  // As many entries as a packed folder may hold (a message of 128 MiB could
  // otherwise make millions of files).
  if (folder.files_size() > kMaxFiles) {
    return Status::ResourceExhausted("the checkpoint lists " + std::to_string(folder.files_size()) +
                                     " files (at most " + std::to_string(kMaxFiles) + ")");
  }
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
    if (f.folder()) {
      if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        return PosixError("mkdir", path, errno);
      struct stat st;
      if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Status::Corruption("the checkpoint's " + path + " is not a folder");
      continue;
    }
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

namespace {

// Empties the folder open at `dir` (closed here), entry by entry relative to
// its descriptor: a sub-folder swapped for a symlink meanwhile is unlinked
// as a symlink (O_NOFOLLOW), never followed.
void EmptyFolder(int dir, int depth) {
  DIR* d = fdopendir(dir);
  if (!d) {
    close(dir);
    return;
  }
  std::vector<std::string> names;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  for (const auto& n : names) {
    if (unlinkat(dirfd(d), n.c_str(), 0) == 0) continue;
    if (errno != EISDIR || depth > 64) continue;
    int sub = openat(dirfd(d), n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    EmptyFolder(sub, depth + 1);
    unlinkat(dirfd(d), n.c_str(), AT_REMOVEDIR);
  }
  closedir(d);
}

}  // namespace

void RemoveTree(const std::string& path) {
  if (unlink(path.c_str()) == 0 || errno != EISDIR) return;
  int dir = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) return;
  EmptyFolder(dir, 0);
  rmdir(path.c_str());
}

}  // namespace sweep
