// The cores of one host, shared by the local runners one `sweep run` starts,
// so that a trial still running may use the cores that idle runners leave
// free (the end of a study, a Hyperband rung's last promotions).
//
// The tuner hands every local runner the same anonymous file (a memfd, on an
// inherited descriptor); each runner reopens it and holds a write lock on
// byte `slot` (an open-file-description lock) while it runs a trial. A
// runner counts the locked bytes to learn how many runners are busy, and
// takes its even share of the cores. The kernel drops a process's locks when
// it dies, kill -9 included, so nothing is left to clean up and no name in
// the file system can be planted or raced.
#pragma once

#include <chrono>
#include <memory>

#include "common/status.h"

namespace sweep {

class CoreShare {
 public:
  // `fd`: the shared file, `slot`: this runner's byte (0..slots-1), `cores`:
  // the host's cores to share.
  static Result<std::unique_ptr<CoreShare>> Open(int fd, int slot, int slots, int cores);
  ~CoreShare();
  CoreShare(const CoreShare&) = delete;
  CoreShare& operator=(const CoreShare&) = delete;

  // Takes (true) or drops (false) this runner's lock. Called by the runner
  // as a trial starts and ends.
  void SetBusy(bool busy);
  // This runner's share of the cores now, at least 1: the cores split evenly
  // over the busy runners, one more for each of the lowest busy slots while
  // the split leaves a remainder. Looks again at most every 250 ms; call
  // it from one thread (the trial's).
  int Threads();
  int cores() const { return cores_; }

  // The share rule alone, for tests: `rank` is this runner's place among
  // the `busy` runners in slot order.
  static int ShareOf(int cores, int busy, int rank);

 private:
  CoreShare(int fd, int slot, int slots, int cores)
      : fd_(fd), slot_(slot), slots_(slots), cores_(cores) {}
  int fd_, slot_, slots_, cores_;
  int cached_ = 1;
  std::chrono::steady_clock::time_point next_look_{};
};

}  // namespace sweep
