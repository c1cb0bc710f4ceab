// The Acks a study owes, queued after each commit.
#include "tuner/ack_queue.h"

namespace sweep {

pb::Ack& AckQueue::Owe(int64_t trial_id, const std::string& to) {
  auto [it, added] = owed_.try_emplace(trial_id);
  if (added) order_.push_back(trial_id);
  it->second.to = to;
  return it->second.ack;
}

void AckQueue::Cancel(int64_t trial_id) {
  if (owed_.erase(trial_id)) std::erase(order_, trial_id);
}

std::vector<std::pair<std::string, pb::Ack>> AckQueue::Take() {
  std::vector<std::pair<std::string, pb::Ack>> out;
  for (int64_t id : order_) {
    auto it = owed_.find(id);
    out.emplace_back(std::move(it->second.to), std::move(it->second.ack));
    owed_.erase(it);
  }
  order_.clear();
  return out;
}

}  // namespace sweep
