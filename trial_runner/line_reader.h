// A program's output stream split into lines, each at most kMaxLineBytes: a
// longer line is handed on cut (its first kMaxLineBytes, flagged), and the
// rest of it skipped, so no output can grow the runner's memory.
#pragma once

#include <cstddef>
#include <string>

namespace sweep {

inline constexpr size_t kMaxLineBytes = 64 << 10;

class LineReader {
 public:
  template <typename OnLine>
  void Feed(const char* data, size_t n, OnLine on_line) {
    for (size_t i = 0; i < n; ++i) {
      char c = data[i];
      if (c == '\n') {
        if (!skipping_) on_line(buf_, false);
        buf_.clear();
        skipping_ = false;
      } else if (skipping_) {
        continue;
      } else if (buf_.size() == kMaxLineBytes) {
        // One byte more than a line may hold: hand on what fits, cut.
        on_line(buf_, true);
        buf_.clear();
        skipping_ = true;
      } else {
        buf_.push_back(c);
      }
    }
  }
  template <typename OnLine>
  void Flush(OnLine on_line) {
    if (!buf_.empty() && !skipping_) on_line(buf_, false);
    buf_.clear();
  }

 private:
  std::string buf_;
  bool skipping_ = false;
};

}  // namespace sweep
