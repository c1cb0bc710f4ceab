// Numbers, times and durations for people.
#include "cli/human_cells.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <ctime>

#include "common/json.h"
#include "common/number_text.h"

namespace sweep {

namespace {

bool IsTimeName(const std::string& name) {
  return name == "at" || (name.size() > 3 && name.compare(name.size() - 3, 3, "_at") == 0);
}

// A number that can be a Unix time: 2001 to 2286.
bool LooksLikeTime(const Cell& c) {
  double v;
  if (auto* d = std::get_if<double>(&c))
    v = *d;
  else if (auto* i = std::get_if<int64_t>(&c))
    v = static_cast<double>(*i);
  else
    return std::holds_alternative<std::monostate>(c);
  return v >= 1e9 && v < 1e10;
}

std::optional<double> AsDouble(const Cell& c) {
  if (auto* d = std::get_if<double>(&c)) return *d;
  if (auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  return std::nullopt;
}

std::string LocalDate(double seconds, const char* format) {
  time_t t = static_cast<time_t>(std::floor(seconds));
  struct tm tm;
  if (!localtime_r(&t, &tm)) return FormatDouble(seconds);
  char buf[64];
  strftime(buf, sizeof buf, format, &tm);
  return buf;
}

}  // namespace

std::string LocalTime(double seconds) { return LocalDate(seconds, "%Y-%m-%d %H:%M:%S"); }

std::string HumanDuration(double s) {
  if (!std::isfinite(s) || s < 0) return FormatDouble(s);
  char buf[64];
  if (s < 10)
    std::snprintf(buf, sizeof buf, "%.2fs", s);
  else if (s < 60)
    std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s / 60), static_cast<int>(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s / 3600),
                  static_cast<int>(s / 60) % 60);
  return buf;
}

std::vector<std::string> HumanColumn(const Table& t, size_t c, ColumnKind* kind_io) {
  ColumnKind& kind = *kind_io;
  std::vector<std::string> out(t.rows.size());
  bool fixed = true;  // else the whole column is in scientific notation
  if (kind == ColumnKind::kAuto && IsTimeName(t.columns[c])) {
    bool times = !t.rows.empty();
    for (const auto& row : t.rows) times = times && LooksLikeTime(row[c]);
    if (times) kind = ColumnKind::kTime;
  }
  if (kind != ColumnKind::kAuto) {
    // A kClock cell leaves out the date its row's kTime cell (the column
    // before it) already shows.
    for (size_t r = 0; r < t.rows.size(); ++r) {
      auto v = AsDouble(t.rows[r][c]);
      if (!v) continue;
      if (kind == ColumnKind::kDuration) {
        out[r] = HumanDuration(*v);
      } else if (kind == ColumnKind::kClock && c > 0 && AsDouble(t.rows[r][c - 1]) &&
                 LocalDate(*AsDouble(t.rows[r][c - 1]), "%F") == LocalDate(*v, "%F")) {
        out[r] = LocalDate(*v, "%H:%M:%S");
      } else {
        out[r] = LocalTime(*v);
      }
    }
  } else {
    for (const auto& row : t.rows)
      if (auto* d = std::get_if<double>(&row[c]))
        fixed = fixed && (FixedFits(ScreenRounded(*d)) || !std::isfinite(*d));
    for (size_t r = 0; r < t.rows.size(); ++r) {
      const Cell& cell = t.rows[r][c];
      if (auto* d = std::get_if<double>(&cell)) out[r] = ScreenNumber(*d, fixed);
      if (auto* i = std::get_if<int64_t>(&cell)) out[r] = std::to_string(*i);
    }
  }
  // Numbers line up on their decimal points (scientific ones on their
  // exponents): the text before is right-aligned, the rest left-aligned.
  size_t left = 0, right = 0;
  auto split = [fixed](const std::string& s) {
    size_t p = s.find(fixed ? '.' : 'e');
    return p == std::string::npos ? s.size() : p;
  };
  bool numeric = kind == ColumnKind::kAuto;
  for (size_t r = 0; r < out.size(); ++r) {
    if (!numeric || std::holds_alternative<std::string>(t.rows[r][c])) continue;
    left = std::max(left, split(out[r]));
    right = std::max(right, out[r].size() - split(out[r]));
  }
  for (size_t r = 0; r < out.size(); ++r) {
    if (std::holds_alternative<std::string>(t.rows[r][c])) continue;
    if (numeric && !out[r].empty()) {
      size_t p = split(out[r]);
      out[r] = std::string(left - p, ' ') + out[r] + std::string(right - (out[r].size() - p), ' ');
    }
  }
  return out;
}

}  // namespace sweep
