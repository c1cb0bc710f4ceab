#include "common/duration.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace sweep {

namespace {

constexpr double kMaxSeconds = 366.0 * 86400;

double UnitSeconds(char unit) {
  switch (unit) {
    case 's':
      return 1;
    case 'm':
      return 60;
    case 'h':
      return 3600;
    case 'd':
      return 86400;
    default:
      return 0;
  }
}

}  // namespace

Result<double> ParseDuration(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("'" + std::string(text) + "' is not a duration: " + why +
                                   " (write 90s, 30m, 2h or 1h30m)");
  };
  if (text.empty()) return bad("it is empty");
  double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (i == start) return bad("expected a number at '" + std::string(text.substr(start)) + "'");
    std::string number(text.substr(start, i - start));
    char* end = nullptr;
    double n = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return bad("'" + number + "' is not a number");
    if (i == text.size()) return bad("'" + number + "' has no unit");
    double unit = UnitSeconds(text[i]);
    if (unit == 0) return bad("unknown unit '" + std::string(1, text[i]) + "'");
    total += n * unit;
    ++i;
  }
  if (!(total >= 1)) return bad("it is under a second");
  if (total > kMaxSeconds) return bad("it is over a year");
  return total;
}

std::string DurationText(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto s = static_cast<long long>(std::llround(seconds));
  std::string out;
  for (auto [unit, size] : {std::pair{'d', 86400LL}, {'h', 3600LL}, {'m', 60LL}}) {
    if (s >= size) {
      out += std::to_string(s / size) + unit;
      s %= size;
    }
  }
  if (s > 0 || out.empty()) out += std::to_string(s) + "s";
  return out;
}

}  // namespace sweep
