// One turn of the tuner's loop, and the group commit.
#include "tuner/event_loop.h"

#include <algorithm>

#include "common/clock.h"

namespace sweep {

namespace {
// At most one commit per this interval: under load one fsync covers many
// messages (group commit); an idle tuner commits at once.
constexpr int64_t kCommitIntervalUs = 1000;
}  // namespace

void EventLoop::Add(StudyRun* study) {
  studies_.push_back(study);
  dispatcher_->AddOwner(study);
}

bool EventLoop::Done() const {
  return std::all_of(studies_.begin(), studies_.end(), [](StudyRun* s) { return s->Done(); });
}

Status EventLoop::Commit() {
  for (StudyRun* s : studies_) s->WriteProgress();
  // Group commit: everything this turn did becomes durable before any
  // runner hears about it.
  for (StudyRun* s : studies_) RETURN_IF_ERROR(s->write_error());
  if (store_->in_transaction()) RETURN_IF_ERROR(store_->Commit());
  last_commit_us_ = NowUs();
  for (StudyRun* s : studies_) s->AfterCommit(dispatcher_);
  dispatcher_->SendPending();
  return Status::Ok();
}

Status EventLoop::Turn(bool draining) {
  int timeout = std::max(10, heartbeat_ms_ / 10);
  if (store_->in_transaction()) timeout = 1;  // a commit is due soon
  RETURN_IF_ERROR(dispatcher_->Poll(timeout));
  for (StudyRun* s : studies_) {
    s->ApplyDirectives();
    s->set_draining(draining);
  }
  dispatcher_->Assign();
  dispatcher_->Heartbeat();
  if (store_->in_transaction() && NowUs() - last_commit_us_ < kCommitIntervalUs)
    return Status::Ok();
  return Commit();
}

}  // namespace sweep
