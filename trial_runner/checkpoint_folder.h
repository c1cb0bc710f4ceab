// A command trial's checkpoint folder as bytes (a pb::CheckpointFolder) and
// back. Only regular files and folders are taken: a symlink, a device or a
// path that leaves the folder is an error, never followed.
#pragma once

#include <cstddef>
#include <string>

#include "common/status.h"

namespace sweep {

// Packs every file under `dir`; refuses more than `max_bytes` of file data
// (and paths), reading no further, and then sets *over_cap when given.
Result<std::string> PackFolder(const std::string& dir, size_t max_bytes, bool* over_cap = nullptr);

// Recreates the files of `bytes` under `dir`, which must exist and be empty
// (files 0600, or 0700 when executable; folders 0700).
Status UnpackFolder(const std::string& bytes, const std::string& dir);

// Removes `path` and everything under it, never following symlinks.
void RemoveTree(const std::string& path);

}  // namespace sweep
