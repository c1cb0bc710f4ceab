// How many terminal columns text takes: a character (not a byte) is one
// column, a combining mark none, and an East Asian wide or full-width
// character (CJK, Hangul, full-width forms, most emoji) two. Enough for
// tables and status lines to line up; not a full wcwidth.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sweep {

// The columns of one code point.
inline int CodePointWidth(uint32_t c) {
  if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x200B && c <= 0x200F) || c == 0xFE0F) return 0;
  if ((c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
      (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
      (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
      (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1F64F) ||
      (c >= 0x1F900 && c <= 0x1F9FF) || (c >= 0x20000 && c <= 0x3FFFD))
    return 2;
  return 1;
}

// Decodes the UTF-8 code point at text[*i] and moves *i past it (a byte
// that is not valid UTF-8 counts as one code point of its own).
inline uint32_t NextCodePoint(std::string_view text, size_t* i) {
  const unsigned char b = static_cast<unsigned char>(text[*i]);
  const size_t n = b < 0x80             ? 0
                   : (b & 0xE0) == 0xC0 ? 1
                   : (b & 0xF0) == 0xE0 ? 2
                   : (b & 0xF8) == 0xF0 ? 3
                                        : 0;
  uint32_t c = n ? b & (0x3Fu >> n) : b;
  if (n == 0 || *i + n >= text.size()) {
    ++*i;
    return b;
  }
  for (size_t k = 1; k <= n; ++k) {
    const unsigned char cont = static_cast<unsigned char>(text[*i + k]);
    if ((cont & 0xC0) != 0x80) {
      ++*i;
      return b;
    }
    c = (c << 6) | (cont & 0x3F);
  }
  *i += n + 1;
  return c;
}

inline size_t DisplayWidth(std::string_view text) {
  size_t cols = 0;
  for (size_t i = 0; i < text.size();)
    cols += static_cast<size_t>(CodePointWidth(NextCodePoint(text, &i)));
  return cols;
}

// The longest start of `text` that fits `width` columns, whole characters
// only.
inline std::string CutToWidth(std::string_view text, size_t width) {
  size_t cols = 0;
  for (size_t i = 0; i < text.size();) {
    size_t at = i;
    size_t w = static_cast<size_t>(CodePointWidth(NextCodePoint(text, &i)));
    if (cols + w > width) return std::string(text.substr(0, at));
    cols += w;
  }
  return std::string(text);
}

}  // namespace sweep
