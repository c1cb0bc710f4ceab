#include "common/terminal_text.h"

#include <cstdio>

#include "common/bidi_controls.h"

namespace sweep {

std::string EscapeControl(std::string_view s, bool keep_newlines) {
  std::string out;
  out.reserve(s.size());
  auto hex = [&](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", c);
    out += buf;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    auto next = i + 1 < s.size() ? static_cast<unsigned char>(s[i + 1]) : 0;
    if (c == '\n' && keep_newlines) {
      out.push_back('\n');
    } else if (c < 0x20 || c == 0x7f) {
      hex(c);
    } else if (c == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F
      hex(c);
      hex(next);
      ++i;
    } else if (size_t len = 0; unsigned bidi = BidiControlAt(s, i, &len)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, "\\u%04x", bidi);
      out += buf;
      i += len - 1;
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  return out;
}

std::string ShellWord(std::string_view word) {
  bool plain = !word.empty();
  for (char c : word) {
    bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == ':' || c == '=' ||
                c == ',' || c == '@';
    plain = plain && safe;
  }
  if (plain) return std::string(word);
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace sweep
