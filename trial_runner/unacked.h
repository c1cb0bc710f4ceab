// What a runner sent about its trials that the tuner has not yet said is
// committed. When the runner loses its tuner (a frozen tuner, a network
// blip), its trials go on running; on the new connection it names them in
// Hello (HeldTrials), and for each one the tuner re-attaches it answers with
// an Ack at the step it committed last, after which the runner sends the
// rest again (Resend). So a frozen tuner costs no attempt and loses no
// report. REQUIRES: external synchronization (the runner's socket thread).
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

using SharedBytes = std::shared_ptr<const std::string>;

class UnackedMessages {
 public:
  // Keeps an encoded message about a trial (a Report, Checkpoint, Log or
  // Final) until the tuner acknowledges it.
  void Add(const pb::Envelope& env, SharedBytes bytes);
  // The tuner committed the trial's reports up to `step`, or (`final`) all
  // of it: what it acknowledged is forgotten.
  // A message about another lease of the trial (an older attempt) changes
  // nothing.
  void Acked(int64_t trial_id, uint64_t lease, int64_t step, bool final);
  // Forgets a trial's attempt (its lease was rejected, or it was abandoned).
  void Drop(int64_t trial_id, uint64_t lease);
  void Clear();

  // The trials with messages kept, oldest first, for Hello; a trial whose
  // Final is among them is marked finished. `running` (0: none) is the
  // trial the worker runs now, added last if it has nothing kept.
  std::vector<pb::HeldTrial> Held(int64_t running, uint64_t running_lease) const;
  // The trial's kept messages, in the order they were first sent.
  std::vector<SharedBytes> Pending(int64_t trial_id, uint64_t lease) const;

  size_t bytes() const { return bytes_; }
  bool empty() const { return trials_.empty(); }

 private:
  struct Message {
    SharedBytes bytes;
    int64_t report_step = 0;  // > 0 for a Report
    bool final = false;
  };
  struct Trial {
    int64_t id = 0;
    uint64_t lease = 0;
    std::deque<Message> messages;
  };
  Trial* Find(int64_t trial_id, uint64_t lease);
  std::vector<Trial>::iterator Locate(int64_t trial_id, uint64_t lease);
  void Erase(std::vector<Trial>::iterator it);

  std::vector<Trial> trials_;  // oldest first; a runner holds a few at most
  size_t bytes_ = 0;
};

}  // namespace sweep
