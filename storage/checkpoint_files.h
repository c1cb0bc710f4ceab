// Checkpoint files kept by the tuner in their study's folder
// (storage/db_files.h): written
// atomically (temporary file, fsync, rename, fsync of the directory), so a
// crash leaves either the old file or the new one, never half of one.
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"

namespace sweep {

// Checks a study's folder (or the database's folder above it, `what_dir`
// naming it in messages): a directory (not a symlink) owned by this user and
// not writable by group or others, so nobody else can plant files in it.
// `with_parent`: the folder above is checked alike (as the "database
// folder") when it exists, and made when `create` needs it. `create`: a
// missing folder is made, mode 0700. Anything else is kFailedPrecondition
// naming the folder and what is wrong with it. (A database's old folders,
// DB.checkpoints, have the user's own folder above: no `with_parent`.)
Status CheckCheckpointDir(const std::string& dir, bool create,
                          const std::string& what_dir = "study folder", bool with_parent = true);

// Writes `data` to dir/trial-<number>-step-<step>.ckpt; returns the path.
// The folder passes CheckCheckpointDir first; the temporary file is created
// afresh (O_EXCL | O_NOFOLLOW, mode 0600) and renamed into place, so a
// symlink at either name is replaced, never followed.
Result<std::string> WriteCheckpointFile(const std::string& dir, int64_t trial_number, int64_t step,
                                        const std::string& data);
// Reads a checkpoint; a symlink at `path` is refused (O_NOFOLLOW).
Result<std::string> ReadCheckpointFile(const std::string& path);
// Adler-32 (a CRC of a file that ends in its own CRC is a constant).
uint32_t Checksum(const std::string& data);

}  // namespace sweep
