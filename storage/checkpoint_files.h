// Checkpoint files kept by the tuner beside the results database: written
// atomically (temporary file, fsync, rename, fsync of the directory), so a
// crash leaves either the old file or the new one, never half of one.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace sweep {

// Writes `data` to dir/trial-<id>-step-<step>.ckpt; returns the path.
Result<std::string> WriteCheckpointFile(const std::string& dir, int64_t trial_id, int64_t step,
                                        const std::string& data);
Result<std::string> ReadCheckpointFile(const std::string& path);
// Adler-32 (a CRC of a file that ends in its own CRC is a constant).
uint32_t Checksum(const std::string& data);

}  // namespace sweep
