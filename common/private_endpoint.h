// The private socket between a tuner and the local runners it starts: an
// ipc:// endpoint in a folder of its own, mode 0700, so the kernel lets only
// this user (and root) connect. Local runners use it without CURVE: a
// process that could connect could as well read their keys from their
// memory, so the keys add nothing there but the cost of encrypting every
// message. Remote runners still authenticate on the tuner's --bind endpoint.
#pragma once

#include <string>

#include "common/status.h"

namespace sweep {

// Makes a fresh folder sweep-XXXXXX (mode 0700) under $XDG_RUNTIME_DIR when
// that is this user's, else under $TMPDIR or /tmp; returns its path. On
// the way it removes the folders killed tuners left there (a minute old,
// holding only a socket nobody listens on).
Result<std::string> MakePrivateSocketDir();

// The endpoint of the tuner's socket in that folder.
std::string PrivateEndpoint(const std::string& dir);

// For a runner told its tuner is private: `endpoint` is ipc:// in a folder
// (not a symlink) owned by this user that nobody else may enter or write.
Status CheckPrivateEndpoint(const std::string& endpoint);

}  // namespace sweep
