// Atomic checkpoint files.
#include "storage/checkpoint_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sweep {

uint32_t Checksum(const std::string& data) {
  return static_cast<uint32_t>(
      adler32(1, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

Result<std::string> WriteCheckpointFile(const std::string& dir, int64_t trial_id, int64_t step,
                                        const std::string& data) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::Error("cannot create checkpoint directory " + dir + ": " + ec.message());
  std::string path =
      dir + "/trial-" + std::to_string(trial_id) + "-step-" + std::to_string(step) + ".ckpt";
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error("cannot write " + tmp + ": " + std::strerror(errno));
  size_t off = 0;
  while (off < data.size()) {
    ssize_t n = write(fd, data.data() + off, data.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string err = std::strerror(errno);
      close(fd);
      unlink(tmp.c_str());
      return Status::Error("cannot write " + tmp + ": " + err +
                           (errno == ENOSPC ? " (disk full)" : ""));
    }
    off += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0 || close(fd) != 0) {
    unlink(tmp.c_str());
    return Status::Error("cannot flush " + tmp + ": " + std::strerror(errno));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0)
    return Status::Error("cannot rename " + tmp + ": " + std::strerror(errno));
  int dfd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return path;
}

Result<std::string> ReadCheckpointFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Error("cannot read checkpoint " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace sweep
