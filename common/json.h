// Small helpers for writing JSON text (no parser: sweep only emits JSON).
#pragma once

#include <string>
#include <string_view>

namespace sweep {

// Appends `s` as a quoted, escaped JSON string.
void AppendJsonString(std::string* out, std::string_view s);
std::string JsonString(std::string_view s);
// `s` with every byte sequence that is not UTF-8 replaced by U+FFFD, for
// protobuf string fields (which must hold UTF-8) fed by programs' output.
std::string ValidUtf8(std::string_view s);
// Shortest round-trip text for a double; NaN and infinities become null.
std::string JsonNumber(double v);
// Shortest round-trip text for a double, for humans ("nan", "inf" kept).
std::string FormatDouble(double v);
// A size for people: "2.0 MiB" (one decimal; MiB = 2^20 bytes).
std::string FormatMiB(int64_t bytes);

}  // namespace sweep
