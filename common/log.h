// Minimal leveled logging to stderr. Thread-safe (one write per line).
#pragma once

#include <sstream>
#include <string>

namespace sweep {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3 };

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
// A short prefix such as "tuner" or "runner host-123", shown on every line.
void SetLogTag(std::string tag);
void LogLine(LogLevel level, const std::string& line);
// While a live status line is on the terminal, log lines first erase it.
void SetLiveLine(bool on);

namespace internal {
class LogMessage {
 public:
  explicit LogMessage(LogLevel level) : level_(level) {}
  ~LogMessage() { LogLine(level_, stream_.str()); }
  std::ostream& stream() { return stream_; }

 private:
  LogLevel level_;
  std::ostringstream stream_;
};
// Turns the stream expression into void so it fits in a conditional.
struct LogVoidify {
  void operator&(std::ostream&) {}
};
}  // namespace internal

}  // namespace sweep

#define SWEEP_LOG(level)                              \
  (::sweep::LogLevel::level < ::sweep::GetLogLevel()) \
      ? (void)0                                       \
      : ::sweep::internal::LogVoidify() &             \
            ::sweep::internal::LogMessage(::sweep::LogLevel::level).stream()
#define LOG_DEBUG SWEEP_LOG(kDebug)
#define LOG_INFO SWEEP_LOG(kInfo)
#define LOG_WARN SWEEP_LOG(kWarn)
#define LOG_ERROR SWEEP_LOG(kError)
