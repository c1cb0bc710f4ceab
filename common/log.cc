// Logging implementation: timestamped lines on stderr.
#include "common/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace sweep {
namespace {
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mu;
std::string g_tag = "sweep";
std::atomic<bool> g_live{false};
}  // namespace

void SetLogLevel(LogLevel level) { g_level = static_cast<int>(level); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }
void SetLogTag(std::string tag) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_tag = std::move(tag);
}

void SetLiveLine(bool on) { g_live = on; }

void LogLine(LogLevel level, const std::string& line) {
  static const char* kNames[] = {"debug", "info", "warn", "error"};
  auto now = std::chrono::system_clock::now();
  std::time_t t = std::chrono::system_clock::to_time_t(now);
  int ms = static_cast<int>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm;
  localtime_r(&t, &tm);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
  std::lock_guard<std::mutex> lock(g_mu);
  std::string out = std::string(g_live ? "\r\033[K" : "") + stamp + "." +
                    (ms < 100 ? (ms < 10 ? "00" : "0") : "") + std::to_string(ms) + " " + g_tag +
                    " " + kNames[static_cast<int>(level)] + ": " + line + "\n";
  ssize_t ignored = write(STDERR_FILENO, out.data(), out.size());
  (void)ignored;
}

}  // namespace sweep
