// Unicode's bidirectional-text controls (U+061C, U+200E, U+200F,
// U+202A..U+202E, U+2066..U+2069): invisible, they reorder the text around
// them on a terminal or a page ("Trojan Source"), so a name or a log line
// could show other text than it holds. Every text output escapes them, as
// it escapes control characters (cli/format.h's EscapeControl, JSON).
#pragma once

#include <cstddef>
#include <string_view>

namespace sweep {

// The bidi control whose UTF-8 begins at s[i] (its code point, and its
// length in bytes in `*len`), or 0.
inline unsigned BidiControlAt(std::string_view s, size_t i, size_t* len) {
  auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  if (at(0) == 0xd8 && at(1) == 0x9c) {
    *len = 2;
    return 0x061c;
  }
  if (at(0) != 0xe2) return 0;
  const unsigned c1 = at(1), c2 = at(2);
  const bool bidi = (c1 == 0x80 && (c2 == 0x8e || c2 == 0x8f || (c2 >= 0xaa && c2 <= 0xae))) ||
                    (c1 == 0x81 && c2 >= 0xa6 && c2 <= 0xa9);
  if (!bidi) return 0;
  *len = 3;
  return 0x2000 + ((c1 & 0x0f) << 6) + (c2 & 0x3f);
}

}  // namespace sweep
