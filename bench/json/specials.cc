// The pre-pass that lets nlohmann::json (or any strict parser) read Python's
// NaN / Infinity / -Infinity: each such token outside a string becomes "0"
// padded with spaces, so byte offsets in error messages stay right, and its
// value is remembered by its ordinal among the number tokens.
#include <cmath>
#include <cstring>

#include "adapters.h"

namespace bench {

void RewriteSpecials(std::string* text, Specials* out) {
  std::string& s = *text;
  size_t n = s.size();
  int number = 0;
  char prev = '\0';  // the last non-space byte before i, outside strings
  for (size_t i = 0; i < n;) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    // A special only where a value may start; elsewhere the parser refuses.
    bool value_start = prev == ':' || prev == ',' || prev == '[';
    prev = c;
    if (c == '"') {
      for (++i; i < n && s[i] != '"'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
      continue;
    }
    auto word = [&](const char* w, double v) {
      size_t len = std::strlen(w);
      if (s.compare(i, len, w) != 0) return false;
      s[i] = '0';
      std::memset(&s[i + 1], ' ', len - 1);
      out->at.emplace_back(number++, v);
      i += len;
      return true;
    };
    if (value_start && c == 'N' && word("NaN", std::nan(""))) continue;
    if (value_start && c == 'I' && word("Infinity", HUGE_VAL)) continue;
    if (value_start && c == '-' && word("-Infinity", -HUGE_VAL)) continue;
    // "-NaN" is not Python's: leave it for the parser to refuse.
    if (c == '-' && i + 1 < n && s[i + 1] == 'N') {
      ++i;
      if (i < n) ++i;
      continue;
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      ++number;
      while (i < n && (std::strchr("0123456789+-.eE", s[i]) != nullptr) && s[i] != '\0') ++i;
      continue;
    }
    ++i;
  }
}

}  // namespace bench
