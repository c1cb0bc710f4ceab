// Numbers for people, one rule everywhere on screen (tables, the status
// line, `sweep why`, decisions' reasons, sizes): 6 significant digits (and
// every digit before the point) in the shortest text that reads back as the rounded value, fixed
// notation where it fits and scientific where the value is too small or large. CSV and JSON output
// keep every digit (common/json.h's FormatDouble and JsonNumber).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

namespace sweep {

inline constexpr int kScreenDigits = 6;

// `v` rounded to kScreenDigits significant digits, or to a whole number
// when it has more digits than that before its point (below 1e15, where
// fixed notation ends); NaN and infinities kept.
double ScreenRounded(double v);
// Whether fixed notation shows `v` well: 0, or 1e-5 <= |v| < 1e15.
bool FixedFits(double v);
// `v` in kScreenDigits significant digits, in fixed (`fixed`) or scientific
// notation: "0.123457", "1.5e-07", "nan", "-inf".
std::string ScreenNumber(double v, bool fixed);
// The same, the notation chosen by FixedFits: what one value on its own
// shows, and what a table column of only it shows.
std::string ScreenNumber(double v);
// Two numbers a reason compares ("0.912346 below cutoff 0.912347"): as
// ScreenNumber, unless that shows different numbers alike, then each in
// full (the shortest text that reads back as it).
std::pair<std::string, std::string> ScreenNumbersApart(double a, double b);
// A size: "512 B", "4.0 MiB", "12 MiB", "1.2 GiB" (powers of 1024).
std::string HumanBytes(int64_t bytes);

}  // namespace sweep
