// Progress display for `sweep run`: a live status line on a terminal, plain
// periodic log lines otherwise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sweep {

struct ProgressCounts {
  int64_t completed = 0, failed = 0, stopped = 0, running = 0, queued = 0, paused = 0;
  std::optional<int64_t> planned;
  std::optional<double> best;
  int runners = 0;
};

class Progress {
 public:
  Progress(std::string study, bool live);
  // Redraws at most every 250 ms (live) or logs every 10 s (plain).
  void Update(const ProgressCounts& c, bool force = false);
  // Clears the live line before other output.
  void Clear();

 private:
  std::string Line(const ProgressCounts& c) const;
  std::string study_;
  bool live_;
  int64_t start_ms_;
  int64_t last_ms_ = 0;
  bool drawn_ = false;
};

}  // namespace sweep
