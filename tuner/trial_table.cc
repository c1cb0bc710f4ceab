// The trial table: the one checked transition, the queue and derived counts.
#include "tuner/trial_table.h"

#include <algorithm>

#include "common/log.h"

namespace sweep {

void TrialTable::Account(const Trial& t, int delta) {
  counts_[t.status] += delta;
  if (delta > 0 && t.status == TrialStatus::kCompleted && t.value) {
    // A tie goes to the lower id, as `sweep best` and the other readers
    // rank (storage/reader.cc), whichever of the two completed first.
    const Trial* b = best();
    if (!b || (maximize_ ? *t.value > *b->value : *t.value < *b->value) ||
        (*t.value == *b->value && t.id < b->id))
      best_id_ = t.id;
  }
}

Trial& TrialTable::Insert(Trial t) {
  by_number_[t.number] = t.id;
  Trial& in = trials_.insert_or_assign(t.id, std::move(t)).first->second;
  if (in.status == TrialStatus::kQueued) {
    queue_.push_back(in.id);
    in.in_queue = true;
  }
  Account(in, +1);
  return in;
}

Trial* TrialTable::Find(int64_t id) {
  auto it = trials_.find(id);
  return it == trials_.end() ? nullptr : &it->second;
}

Trial* TrialTable::FindNumber(int64_t number) {
  auto it = by_number_.find(number);
  return it == by_number_.end() ? nullptr : Find(it->second);
}

std::optional<std::string> TrialTable::Transition(Trial* t, TrialStatus to, Where where) {
  if (!CanTransition(t->status, to)) {
    LOG_ERROR << "internal error: trial " << t->id << " cannot go from "
              << TrialStatusName(t->status) << " to " << TrialStatusName(to);
    std::abort();
  }
  Account(*t, -1);
  if (t->in_queue) {
    queue_.erase(std::find(queue_.begin(), queue_.end(), t->id));
    t->in_queue = false;
  }
  t->status = to;
  Account(*t, +1);
  t->lease = 0;
  t->runner.clear();
  t->pausing = false;
  t->segment_ended = false;
  t->pending.reset();
  t->ack.reset();
  std::optional<std::string> orphan = t->DropUnreported();
  if (to == TrialStatus::kQueued) {
    if (where == Where::kFront)
      queue_.push_front(t->id);
    else
      queue_.push_back(t->id);
    t->in_queue = true;
  }
  return orphan;
}

Trial* TrialTable::PopQueued() {
  while (!queue_.empty()) {
    Trial* t = Find(queue_.front());
    queue_.pop_front();
    if (t && t->in_queue) {
      t->in_queue = false;
      return t;
    }
  }
  return nullptr;
}

}  // namespace sweep
