// Data files: a regular file, read through zlib (plain files pass through).
#include "nn/data/data_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common/posix_error.h"

namespace sweep::nn {

Result<std::vector<uint8_t>> ReadDataFile(const std::string& path, uint64_t max_bytes) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return PosixError("open", path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int err = errno;
    close(fd);
    return PosixError("stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return Status::InvalidArgument(path + ": not a regular file");
  }
  gzFile f = gzdopen(fd, "rb");  // reads plain files too; owns fd from here
  if (!f) {
    close(fd);
    return Status::IOError(path + ": cannot read");
  }
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  int n;
  while ((n = gzread(f, buf, sizeof buf)) > 0) {
    if (out.size() + static_cast<uint64_t>(n) > max_bytes) {
      gzclose(f);
      return Status::ResourceExhausted(path + ": larger than " + std::to_string(max_bytes >> 20) +
                                       " MiB uncompressed, the most sweep reads");
    }
    out.insert(out.end(), buf, buf + n);
  }
  int err;
  std::string msg = gzerror(f, &err);
  gzclose(f);
  if (n < 0 || (err != Z_OK && err != Z_STREAM_END))
    return Status::IOError(path + ": read error: " + msg);
  return out;
}

}  // namespace sweep::nn
