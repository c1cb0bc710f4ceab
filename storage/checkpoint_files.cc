// Atomic checkpoint files.
#include "storage/checkpoint_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <filesystem>

#include "common/posix_error.h"

namespace sweep {

uint32_t Checksum(const std::string& data) {
  return static_cast<uint32_t>(
      adler32(1, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

Result<std::string> WriteCheckpointFile(const std::string& dir, int64_t trial_id, int64_t step,
                                        const std::string& data) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return PosixError("create checkpoint directory", dir, ec.value());
  std::string path =
      dir + "/trial-" + std::to_string(trial_id) + "-step-" + std::to_string(step) + ".ckpt";
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError("open", tmp, errno);
  // Each error is converted where it happens, before close or unlink can
  // change errno; the descriptor is closed on every path.
  Status st;
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      st = PosixError("write", tmp, errno);
      break;
    }
    off += static_cast<size_t>(n);
  }
  if (st.ok() && fsync(fd) != 0) st = PosixError("fsync", tmp, errno);
  if (close(fd) != 0 && st.ok()) st = PosixError("close", tmp, errno);
  if (st.ok() && rename(tmp.c_str(), path.c_str()) != 0)
    st = PosixError("rename", tmp + " to " + path, errno);
  if (!st.ok()) {
    unlink(tmp.c_str());
    return st;
  }
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return path;
}

Result<std::string> ReadCheckpointFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError("open checkpoint", path, errno);
  std::string out;
  char buf[1 << 16];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      if (errno == EINTR) continue;
      Status st = PosixError("read checkpoint", path, errno);
      close(fd);
      return st;
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return out;
}

}  // namespace sweep
