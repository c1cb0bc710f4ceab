// Numbers and sizes for people.
#include "common/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sweep {

double ScreenRounded(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  // A number of more than 6 digits before its point keeps them all
  // (1234568, not 1234570): rounding them away would misstate it.
  if (std::fabs(v) >= 1e6 && std::fabs(v) < 1e15) return std::round(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", kScreenDigits - 1, v);
  return std::strtod(buf, nullptr);
}

bool FixedFits(double v) { return v == 0 || (std::fabs(v) >= 1e-5 && std::fabs(v) < 1e15); }

std::string ScreenNumber(double v, bool fixed) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  const double r = ScreenRounded(v);
  char buf[400];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, r,
                                 fixed ? std::chars_format::fixed : std::chars_format::scientific);
  if (ec == std::errc()) return std::string(buf, end);
  std::snprintf(buf, sizeof buf, "%.*g", kScreenDigits, v);
  return buf;
}

std::string ScreenNumber(double v) { return ScreenNumber(v, FixedFits(ScreenRounded(v))); }

std::pair<std::string, std::string> ScreenNumbersApart(double a, double b) {
  std::string sa = ScreenNumber(a), sb = ScreenNumber(b);
  if (sa != sb || a == b || std::isnan(a) || std::isnan(b)) return {sa, sb};
  auto full = [](double v) {
    char buf[64];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return ec == std::errc() ? std::string(buf, end) : ScreenNumber(v);
  };
  return {full(a), full(b)};
}

std::string HumanBytes(int64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double v = static_cast<double>(bytes);
  int unit = -1;
  while (v >= 1024 && unit < 4) v /= 1024, ++unit;
  char buf[48];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, kUnits[unit]);
  return buf;
}

}  // namespace sweep
