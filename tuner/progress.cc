// Progress line rendering.
#include "tuner/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "common/clock.h"
#include "common/json.h"
#include "common/log.h"
#include "common/number_text.h"
#include "common/text_width.h"

namespace sweep {
std::string FormatDuration(double seconds) {
  long long s = seconds > 0 ? static_cast<long long>(seconds + 0.5) : 0;
  char out[48];
  if (s < 60) {
    std::snprintf(out, sizeof out, "%llds", s);
  } else if (s < 3600) {
    std::snprintf(out, sizeof out, "%lld:%02lld", s / 60, s % 60);
  } else {
    std::snprintf(out, sizeof out, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  }
  return out;
}

size_t TerminalWidth(int fd) {
  winsize ws{};
  if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* cols = std::getenv("COLUMNS")) {
    long n = std::strtol(cols, nullptr, 10);
    if (n > 0 && n < 10000) return static_cast<size_t>(n);
  }
  return 80;
}

std::string StatusLine(const std::string& study, const ProgressCounts& c, double elapsed_s,
                       size_t width) {
  const int64_t done = c.completed + c.failed + c.stopped;
  const double progressed = static_cast<double>(done) + c.running_share;
  const double rate =
      c.rate          ? *c.rate
      : elapsed_s > 0 ? std::max(0.0, progressed - static_cast<double>(c.ended_before)) / elapsed_s
                      : 0;
  // Each field with its rank: the highest rank is dropped first.
  struct Field {
    std::string text;
    int rank;
  };
  std::vector<Field> fields;
  std::string head = "[" + study + "] done " + std::to_string(done);
  if (c.planned) head += "/" + std::to_string(*c.planned);
  fields.push_back({head, 0});
  std::string running = "running " + std::to_string(c.running);
  if (c.running > 0 && c.slowest_step)
    running += " (slowest at step " + std::to_string(*c.slowest_step) + ")";
  fields.push_back({running, 1});
  if (!c.waiting.empty()) fields.push_back({c.waiting, 1});
  if (c.failed > 0) fields.push_back({"failed " + std::to_string(c.failed), 2});
  // The shortest text that reads back as the value, as every table shows it
  // (the line is cut to the terminal's width, fields at the end first).
  if (c.front)
    fields.push_back({"front " + std::to_string(*c.front), 1});
  else
    fields.push_back({"best " + (c.best ? ScreenNumber(*c.best) : std::string("-")), 1});
  const bool time_up = c.time_left_s && *c.time_left_s <= 0;
  if (c.planned && progressed > 0 && rate > 0 && static_cast<double>(*c.planned) > progressed &&
      !time_up) {
    double left = (static_cast<double>(*c.planned) - progressed) / rate;
    if (c.running > 0 && c.left_share && c.trial_rate && *c.trial_rate > 0)
      left = std::max(left, std::min(1.0, *c.left_share) / *c.trial_rate);
    if (c.running > 0 && c.running_left_s) left = std::max(left, *c.running_left_s);
    // No trial starts past the time limit.
    if (c.time_left_s) left = std::min(left, *c.time_left_s);
    fields.push_back({"~" + FormatDuration(left) + " left", 3});
  }
  if (c.time_left_s)
    fields.push_back({*c.time_left_s > 0 ? "time limit in " + FormatDuration(*c.time_left_s)
                                         : std::string("time limit reached"),
                      2});
  fields.push_back({FormatDuration(elapsed_s) + " elapsed", 4});
  // Long trials read per minute or per hour, not "0.0 trials/s".
  char r[32];
  if (rate >= 0.1 || rate == 0)
    std::snprintf(r, sizeof r, "%.1f trials/s", rate);
  else if (rate * 60 >= 0.1)
    std::snprintf(r, sizeof r, "%.1f trials/min", rate * 60);
  else
    std::snprintf(r, sizeof r, "%.2g trials/h", rate * 3600);
  fields.push_back({r, 6});
  if (c.paused > 0) fields.push_back({"paused " + std::to_string(c.paused), 5});
  fields.push_back({"queued " + std::to_string(c.queued), 7});
  if (c.runners >= 0) fields.push_back({"runners " + std::to_string(c.runners), 8});
  auto join = [&] {
    std::string line;
    for (const Field& f : fields) line += (line.empty() ? "" : "  ") + f.text;
    return line;
  };
  std::string line = join();
  while (DisplayWidth(line) > width && fields.size() > 1) {
    size_t worst = 1;
    for (size_t i = 1; i < fields.size(); ++i)
      if (fields[i].rank >= fields[worst].rank) worst = i;
    fields.erase(fields.begin() + static_cast<long>(worst));
    line = join();
  }
  return CutToWidth(line, width);
}

std::string LiveStatusLine(int fd, const std::string& study, const ProgressCounts& c,
                           double elapsed_s) {
  size_t width = TerminalWidth(fd);
  return "\r\033[K" + StatusLine(study, c, elapsed_s, width > 1 ? width - 1 : width);
}

Progress::Progress(std::string study, bool live)
    : study_(std::move(study)), live_(live), start_ms_(NowMs()) {}

bool Progress::Due() const { return NowMs() - last_ms_ >= (live_ ? 250 : 10000); }

void Progress::Update(const ProgressCounts& counts, bool force) {
  if (!force && !Due()) return;
  int64_t now = NowMs();
  if (ended_before_) busy_s_ += static_cast<double>(running_before_ * (now - last_ms_)) / 1000.0;
  running_before_ = counts.running;
  last_ms_ = now;
  ProgressCounts c = counts;
  if (!ended_before_) {
    ended_before_ = c.completed + c.failed + c.stopped;
    work_before_ = c.work;  // a resumed study's earlier steps were not run now
  }
  c.ended_before = *ended_before_;
  if (busy_s_ > 0 && c.work > work_before_) c.trial_rate = (c.work - work_before_) / busy_s_;
  double secs = static_cast<double>(now - start_ms_) / 1000.0;
  if (live_) {
    std::string out = LiveStatusLine(STDERR_FILENO, study_, c, secs);
    ssize_t ignored = write(STDERR_FILENO, out.data(), out.size());
    (void)ignored;
    drawn_ = true;
    SetLiveLine(true);
  } else {
    LOG_INFO << StatusLine(study_, c, secs, SIZE_MAX);
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
