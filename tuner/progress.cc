// Progress line rendering.
#include "tuner/progress.h"

#include <unistd.h>

#include <cstdio>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"

namespace sweep {

Progress::Progress(std::string study, bool live)
    : study_(std::move(study)), live_(live), start_ms_(NowMs()) {}

std::string Progress::Line(const ProgressCounts& c) const {
  int64_t done = c.completed + c.failed + c.stopped;
  double secs = static_cast<double>(NowMs() - start_ms_) / 1000.0;
  char rate[32];
  std::snprintf(rate, sizeof rate, "%.1f", secs > 0 ? static_cast<double>(done) / secs : 0.0);
  std::string line = "[" + study_ + "] done " + std::to_string(done);
  if (c.planned) line += "/" + std::to_string(*c.planned);
  line += "  running " + std::to_string(c.running) + "  failed " + std::to_string(c.failed) +
          "  queued " + std::to_string(c.queued) +
          (c.paused > 0 ? "  paused " + std::to_string(c.paused) : std::string()) + "  runners " +
          std::to_string(c.runners) + "  best " +
          (c.best ? FormatDouble(*c.best) : std::string("-")) + "  " + rate + " trials/s";
  return line;
}

void Progress::Update(const ProgressCounts& c, bool force) {
  int64_t now = NowMs();
  if (!force && now - last_ms_ < (live_ ? 250 : 10000)) return;
  last_ms_ = now;
  if (live_) {
    std::string out = "\r\033[K" + Line(c);
    ssize_t ignored = write(STDERR_FILENO, out.data(), out.size());
    (void)ignored;
    drawn_ = true;
    SetLiveLine(true);
  } else {
    LOG_INFO << Line(c);
  }
}

void Progress::Clear() {
  if (live_ && drawn_) {
    const char* out = "\r\033[K";
    ssize_t ignored = write(STDERR_FILENO, out, 4);
    (void)ignored;
    drawn_ = false;
    SetLiveLine(false);
  }
}

}  // namespace sweep
