#include "tuner/fail_fast.h"

namespace sweep {

std::string FailFast::Kind(const std::string& failure) {
  // Each number (digits, a fraction, an exponent) becomes '#'.
  std::string kind;
  const size_t n = failure.size();
  auto digit = [&](size_t i) { return i < n && failure[i] >= '0' && failure[i] <= '9'; };
  for (size_t i = 0; i < n;) {
    if (!digit(i)) {
      kind += failure[i++];
      continue;
    }
    while (digit(i)) ++i;
    if (i < n && failure[i] == '.') {
      ++i;
      while (digit(i)) ++i;
    }
    if (i < n && (failure[i] == 'e' || failure[i] == 'E')) {
      size_t j = i + 1;
      if (j < n && (failure[j] == '+' || failure[j] == '-')) ++j;
      if (digit(j)) {
        i = j;
        while (digit(i)) ++i;
      }
    }
    kind += '#';
  }
  return kind;
}

void FailFast::OnEnd(TrialStatus status, const std::string& failure) {
  if (status == TrialStatus::kCompleted || status == TrialStatus::kStopped) {
    // Something works: a set-up mistake would have failed it too.
    disarmed_ = true;
    stopped_ = false;
    return;
  }
  if (status != TrialStatus::kFailed || disarmed_ || stopped_ || needed_ <= 0) return;
  // "objective 'val_loss' is nan": the parameters' doing, not the set-up's.
  if (failure.rfind("objective '", 0) == 0) return;
  std::string kind = Kind(failure);
  if (same_ == 0) {
    kind_ = kind;
    first_failure_ = failure;
  } else if (kind != kind_) {
    disarmed_ = true;  // failing in different ways: not one mistake
    return;
  }
  if (++same_ >= needed_) stopped_ = true;
}

std::string FailFast::Reason() const {
  return "its first " + std::to_string(same_) +
         " trials to end all failed the same way, before any completed (algorithm.fail_fast): " +
         first_failure_;
}

}  // namespace sweep
