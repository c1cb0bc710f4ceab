// A cohort: the trials that must all reach one step (a Hyperband rung, a PBT
// generation) before any of them is decided. Each member either reports at
// that step or ends before it; the cohort is complete when every member has.
// Shared by the synchronous algorithms; pure bookkeeping, no I/O.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace sweep {

class Cohort {
 public:
  Cohort() = default;
  Cohort(int64_t step, std::set<int64_t> members) : step_(step), members_(std::move(members)) {}

  int64_t step() const { return step_; }
  bool Has(int64_t number) const { return members_.count(number) > 0; }
  bool Reported(int64_t number) const { return values_.count(number) > 0; }
  size_t size() const { return members_.size(); }
  size_t arrived() const { return values_.size() + ended_.size(); }
  bool Complete() const { return resolved_ || arrived() >= members_.size(); }
  bool resolved() const { return resolved_; }
  // Members that ended before reporting at this step, in number order.
  const std::set<int64_t>& ended() const { return ended_; }
  void MarkResolved() { resolved_ = true; }

  // Returns false when `number` is not a member or already counted.
  bool Report(int64_t number, double value) {
    if (!Has(number) || Reported(number) || ended_.count(number)) return false;
    values_[number] = value;
    return true;
  }
  bool End(int64_t number) {
    if (!Has(number) || Reported(number) || ended_.count(number)) return false;
    ended_.insert(number);
    return true;
  }

  // Members that reported, best first. Non-finite values rank last; ties go
  // to the lower trial number, so the order never depends on arrival.
  std::vector<std::pair<int64_t, double>> Ranked(bool maximize) const {
    std::vector<std::pair<int64_t, double>> out(values_.begin(), values_.end());
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
      bool fa = std::isfinite(a.second), fb = std::isfinite(b.second);
      if (fa != fb) return fa;
      if (!fa || a.second == b.second) return false;
      return maximize ? a.second > b.second : a.second < b.second;
    });
    return out;
  }

 private:
  int64_t step_ = 0;
  std::set<int64_t> members_;
  std::map<int64_t, double> values_;
  std::set<int64_t> ended_;
  bool resolved_ = false;
};

}  // namespace sweep
