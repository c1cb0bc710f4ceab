// Data files: a regular file, read through zlib (plain files pass through).
#include "nn/data/data_file.h"

#include <unistd.h>
#include <zlib.h>

#include "common/small_file.h"

namespace sweep::nn {

Result<std::vector<uint8_t>> ReadDataFile(const std::string& path, uint64_t max_bytes) {
  // Only the guard is shared with ReadSmallFile: the bytes stream through
  // zlib, and the cap is on what it gives, which a gzip file's own size
  // does not tell, so none is set at the open.
  ASSIGN_OR_RETURN(CheckedFile file, CheckedFile::Open(path, {.what = "data file"}));
  int fd = file.Release();
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
