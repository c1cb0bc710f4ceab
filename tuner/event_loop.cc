// One turn of the tuner's loop, and the group commit.
#include "tuner/event_loop.h"

#include <algorithm>

#include "common/clock.h"

namespace sweep {

namespace {
// At most one commit per this interval, and none while the last one is being
// synced: under load one fdatasync covers many messages (group commit) and
// the next batch is handled meanwhile; an idle tuner commits at once. Each
// commit writes its changed pages to the WAL again, so fewer, larger commits
// cost less CPU: 3 ms took 10,000 short trials in 1.40 s where 1 ms took
// 1.82 s (bench/RESULTS.md, "bench/dispatch, session 14"), with runners
// holding enough trials queued ahead (dispatcher.cc) to cover the wait.
constexpr int64_t kCommitIntervalUs = 3000;
}  // namespace

void EventLoop::Add(StudyRun* study) {
  if (Has(study->id())) return;  // admitted already
  studies_.push_back(study);
  order_.push_back(study->id());
}

void EventLoop::Remove(int64_t study_id, StudyRemoval how) {
  if (Has(study_id)) removing_.emplace(study_id, std::move(how));
}

std::vector<int64_t> EventLoop::TakeRemoved() {
  std::vector<int64_t> out;
  out.swap(removed_);
  return out;
}

TrialOwner* EventLoop::FindOwner(int64_t study_id) { return Find(study_id); }

bool EventLoop::Done() const {
  return std::all_of(studies_.begin(), studies_.end(), [](StudyRun* s) { return s->Done(); });
}

Status EventLoop::RemovePending() {
  if (removing_.empty()) return Status::Ok();
  // Taken out first: a Remove asked for while these are carried out waits
  // for the next turn.
  std::map<int64_t, StudyRemoval> removing;
  removing.swap(removing_);
  RETURN_IF_ERROR(store_->Begin());
  for (const auto& [id, how] : removing) {
    StudyRun* s = Find(id);
    s->Suspend(how.kind, how.cause, how.stored);
    s->set_draining(true);
    RETURN_IF_ERROR(s->write_error());
    dispatcher_->DropStudy(id, "study '" + s->study().name() + "': " + how.cause);
  }
  // Its acks and its files' deletions wait for this commit like any, so
  // the study stays until the commit is durable.
  RETURN_IF_ERROR(Flush());
  for (const auto& [id, how] : removing) {
    const size_t i = std::find(order_.begin(), order_.end(), id) - order_.begin();
    studies_.erase(studies_.begin() + static_cast<long>(i));
    order_.erase(order_.begin() + static_cast<long>(i));
    removed_.push_back(id);
  }
  return Status::Ok();
}

Status EventLoop::Commit() {
  for (StudyRun* s : studies_) s->WriteProgress();
  for (StudyRun* s : studies_) RETURN_IF_ERROR(s->write_error());
  ASSIGN_OR_RETURN(uint64_t ticket, store_->CommitNoWait());
  last_commit_us_ = NowUs();
  // Group commit: everything this turn did waits until it is durable
  // before any runner hears about it.
  for (StudyRun* s : studies_) s->AfterCommit(dispatcher_, ticket);
  dispatcher_->Seal(ticket);
  return SendDurable();
}

Status EventLoop::SendDurable() {
  WalSync* sync = store_->durability();
  sync->Drain();
  RETURN_IF_ERROR(sync->error());
  uint64_t durable = sync->durable();
  for (StudyRun* s : studies_) s->Durable(durable);
  dispatcher_->SendSealed(durable);
  return Status::Ok();
}

Status EventLoop::Flush() {
  RETURN_IF_ERROR(Commit());
  RETURN_IF_ERROR(store_->durability()->Wait(store_->durability()->requested()));
  return SendDurable();
}

Status EventLoop::Turn(bool draining) {
  WalSync* sync = store_->durability();
  int timeout = std::max(10, heartbeat_ms_ / 10);
  if (store_->in_transaction() && !sync->Syncing()) timeout = 1;  // a commit is due soon
  // The sync thread's event wakes the poll when a commit became durable.
  RETURN_IF_ERROR(dispatcher_->Poll(timeout, sync->fd()));
  RETURN_IF_ERROR(SendDurable());
  if (turn_hook_) RETURN_IF_ERROR(turn_hook_());
  RETURN_IF_ERROR(RemovePending());
  for (StudyRun* s : studies_) {
    s->Tick();
    s->ApplyDirectives();
    s->set_draining(draining);
    // algorithm.time_limit with `hard: true` has passed: its trials stop now.
    if (s->HardStopDue())
      dispatcher_->PreemptStudy(s->id(), "the study's time limit passed (algorithm.time_limit)");
  }
  dispatcher_->Assign();
  dispatcher_->Preempt();
  dispatcher_->Heartbeat();
  if (store_->in_transaction() &&
      (sync->Syncing() || NowUs() - last_commit_us_ < kCommitIntervalUs))
    return Status::Ok();
  return Commit();
}

}  // namespace sweep
