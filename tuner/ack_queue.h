// What a study owes its runners: the latest Ack for each running trial,
// handed to the dispatcher after the commit that makes it true (and so sent
// once that commit is durable). One per trial: a newer Ack replaces one not
// yet queued. REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "proto/sweep.pb.h"

namespace sweep {

class AckQueue {
 public:
  // The Ack owed for trial `trial_id`, to go to its runner's connection
  // `to`: the one owed already (now to `to`), else a new, empty one.
  pb::Ack& Owe(int64_t trial_id, const std::string& to);
  bool Owes(int64_t trial_id) const { return owed_.count(trial_id) > 0; }
  // The trial left its runner: nothing is owed for it any longer.
  void Cancel(int64_t trial_id);
  // After a commit: every Ack owed, with the connection it goes to, in the
  // order first owed; nothing is owed afterwards.
  std::vector<std::pair<std::string, pb::Ack>> Take();

 private:
  struct Owed {
    std::string to;  // routing id
    pb::Ack ack;
  };
  std::vector<int64_t> order_;  // the trials owed, in the order first owed
  std::unordered_map<int64_t, Owed> owed_;
};

}  // namespace sweep
