// A study's writes to the store: the time every row it writes is stamped
// with, the first write that failed, and its events. Owned by the StudyRun;
// the event loop commits what it writes.
// REQUIRES: external synchronization (the tuner's thread).
#pragma once

#include <cstdint>
#include <string>

#include "common/status.h"
#include "storage/sqlite_store.h"

namespace sweep {

class StudyWrites {
 public:
  explicit StudyWrites(Store* store) : store_(store) {}
  Store* store() const { return store_; }
  void set_study_id(int64_t id) { study_id_ = id; }

  // The time the next row is stamped with: the wall clock, but always after
  // the previous stamp and after every time RaiseFloor was given (the
  // history the database held). A restarted tuner replays the history in
  // time order, so this keeps that order the order things happened in when
  // the clock steps back (NTP, a restored VM) or two commits read the same
  // time. While the clock is behind, stamps advance by the smallest step a
  // double holds (a trial's duration reads about 0 rather than negative).
  double Stamp();
  // A time the database holds: later stamps come after it. NaN is ignored.
  void RaiseFloor(double at) {
    if (at > last_stamp_) last_stamp_ = at;  // NaN compares false
  }

  // Keeps the first failure: a study stops writing once one failed (the
  // event loop ends the run, and a resume redoes what was not committed).
  void Check(Status st) {
    if (!st.ok() && error_.ok()) error_ = std::move(st);
  }
  const Status& error() const { return error_; }

  // An event about trial `trial_id` (0: the study), stamped.
  void Event(int64_t trial_id, const std::string& kind, const std::string& detail);

 private:
  Store* store_;
  int64_t study_id_ = 0;
  double last_stamp_ = 0;
  Status error_;
};

}  // namespace sweep
