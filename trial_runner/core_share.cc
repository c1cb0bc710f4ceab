// Sharing a host's cores among its local runners through byte locks on one
// shared anonymous file.
#include "trial_runner/core_share.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "common/log.h"
#include "common/posix_error.h"

namespace sweep {

namespace {

constexpr auto kLookEvery = std::chrono::milliseconds(250);

struct flock Byte(short type, int slot) {
  struct flock fl {};
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = slot;
  fl.l_len = 1;
  return fl;  // l_pid 0, as open-file-description locks require
}

}  // namespace

Result<std::unique_ptr<CoreShare>> CoreShare::Open(int fd, int slot, int slots, int cores) {
  if (slots < 1 || slot < 0 || slot >= slots || cores < 1) {
    return Status::InvalidArgument("core share: slot " + std::to_string(slot) + " of " +
                                   std::to_string(slots) + " on " + std::to_string(cores) +
                                   " cores is not a place");
  }
  // The inherited descriptor is one open file description for every runner,
  // and such locks belong to a description: open the file anew for our own.
  std::string path = "/proc/self/fd/" + std::to_string(fd);
  int own = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (own < 0) {
    return Status::Unavailable(
        PosixError("core share: cannot reopen descriptor " + std::to_string(fd), errno).message());
  }
  close(fd);
  return std::unique_ptr<CoreShare>(new CoreShare(own, slot, slots, cores));
}

CoreShare::~CoreShare() { close(fd_); }

void CoreShare::SetBusy(bool busy) {
  struct flock fl = Byte(busy ? F_WRLCK : F_UNLCK, slot_);
  // Only runners probing with F_OFD_GETLK touch other bytes, and they never
  // hold a lock, so this never waits.
  if (fcntl(fd_, F_OFD_SETLK, &fl) != 0) {
    // Made before the log line, whose own calls may change errno.
    Status st = PosixError(std::string("core share: cannot ") + (busy ? "lock" : "unlock") +
                               " slot " + std::to_string(slot_),
                           errno);
    LOG_WARN << st.message();
  }
}

int CoreShare::ShareOf(int cores, int busy, int rank) {
  busy = std::max(busy, 1);
  return std::max(1, cores / busy + (rank < cores % busy ? 1 : 0));
}

int CoreShare::Threads() {
  auto now = std::chrono::steady_clock::now();
  if (now < next_look_) return cached_;
  next_look_ = now + kLookEvery;
  int busy = 1, rank = 0;  // this runner counts as busy: it asks for a trial
  for (int s = 0; s < slots_; ++s) {
    if (s == slot_) continue;
    struct flock fl = Byte(F_WRLCK, s);
    if (fcntl(fd_, F_OFD_GETLK, &fl) != 0) return cached_;
    if (fl.l_type == F_UNLCK) continue;
    ++busy;
    if (s < slot_) ++rank;
  }
  cached_ = ShareOf(cores_, busy, rank);
  return cached_;
}

}  // namespace sweep
