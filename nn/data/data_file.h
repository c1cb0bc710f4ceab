// Reads a data file whole, gzip-compressed or not, with a cap on its size:
// the one place data files are opened (IDX, CSV, NPY). Special files (a
// FIFO, /dev/zero) are refused before any byte is read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace sweep::nn {

// 4 GiB uncompressed: a data set larger than this does not fit the way
// sweep holds data (in memory, once per runner).
inline constexpr uint64_t kMaxDataFileBytes = uint64_t{4} << 30;

Result<std::vector<uint8_t>> ReadDataFile(const std::string& path,
                                          uint64_t max_bytes = kMaxDataFileBytes);

}  // namespace sweep::nn
