// A recursive-descent JSON reader (RFC 8259 plus NaN/Infinity), for one
// object of scalars. Bounded: nesting is capped, and the input is a view.
#include "common/json_reader.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace sweep {

namespace {

constexpr int kMaxDepth = 64;

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  Result<std::vector<JsonField>> Object() {
    std::vector<JsonField> fields;
    Space();
    if (!Eat('{')) return Error("expected '{'");
    Space();
    if (Eat('}')) return Finish(std::move(fields));
    while (true) {
      Space();
      JsonField f;
      if (Peek() != '"') return Error("expected a quoted key");
      Status st = String(&f.key);
      if (!st.ok()) return st;
      Space();
      if (!Eat(':')) return Error("expected ':' after key \"" + f.key + "\"");
      Space();
      st = Value(&f, 1);
      if (!st.ok()) return st;
      fields.push_back(std::move(f));
      Space();
      if (Eat(',')) continue;
      if (Eat('}')) return Finish(std::move(fields));
      return Error("expected ',' or '}'");
    }
  }

 private:
  Result<std::vector<JsonField>> Finish(std::vector<JsonField> fields) {
    Space();
    if (i_ != s_.size()) return Error("unexpected text after the object");
    return fields;
  }
  Status Error(const std::string& what) const {
    return Status::InvalidArgument(what + " at byte " + std::to_string(i_));
  }
  char Peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c || i_ >= s_.size()) return false;
    ++i_;
    return true;
  }
  bool Word(std::string_view w) {
    if (s_.substr(i_, w.size()) != w) return false;
    i_ += w.size();
    return true;
  }
  void Space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
      ++i_;
  }

  // `f` is null inside nested values: they are checked, not kept.
  Status Value(JsonField* f, int depth) {
    if (depth > kMaxDepth) return Error("nested deeper than 64 levels");
    char c = Peek();
    auto set = [&](JsonField::Kind k) {
      if (f) f->kind = k;
    };
    if (c == '"') {
      std::string text;
      Status st = String(&text);
      set(JsonField::Kind::kString);
      if (f) f->text = std::move(text);
      return st;
    }
    if (c == '{' || c == '[') {
      set(JsonField::Kind::kOther);
      return Nested(depth);
    }
    if (Word("true") || Word("false")) {
      set(JsonField::Kind::kBool);
      if (f) f->flag = s_[i_ - 1] == 'e' && s_[i_ - 2] == 'u';
      return Status::Ok();
    }
    if (Word("null")) {
      set(JsonField::Kind::kNull);
      return Status::Ok();
    }
    double v = 0;
    if (Word("NaN")) {
      v = std::nan("");
    } else if (Word("Infinity")) {
      v = HUGE_VAL;
    } else if (Word("-Infinity")) {
      v = -HUGE_VAL;
    } else {
      Status st = Number(&v);
      if (!st.ok()) return st;
    }
    set(JsonField::Kind::kNumber);
    if (f) f->number = v;
    return Status::Ok();
  }

  Status Nested(int depth) {
    char close = Peek() == '{' ? '}' : ']';
    ++i_;
    Space();
    if (Eat(close)) return Status::Ok();
    while (true) {
      Space();
      if (close == '}') {
        std::string key;
        if (Peek() != '"') return Error("expected a quoted key");
        Status st = String(&key);
        if (!st.ok()) return st;
        Space();
        if (!Eat(':')) return Error("expected ':'");
        Space();
      }
      Status st = Value(nullptr, depth + 1);
      if (!st.ok()) return st;
      Space();
      if (Eat(',')) continue;
      if (Eat(close)) return Status::Ok();
      return Error(std::string("expected ',' or '") + close + "'");
    }
  }

  Status Number(double* v) {
    size_t start = i_;
    Eat('-');
    if (Peek() == '0') {
      ++i_;
    } else if (Peek() >= '1' && Peek() <= '9') {
      while (Peek() >= '0' && Peek() <= '9') ++i_;
    } else {
      i_ = start;
      return Error("expected a value");
    }
    if (Eat('.')) {
      if (!(Peek() >= '0' && Peek() <= '9')) return Error("expected a digit after '.'");
      while (Peek() >= '0' && Peek() <= '9') ++i_;
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++i_;
      if (Peek() == '+' || Peek() == '-') ++i_;
      if (!(Peek() >= '0' && Peek() <= '9')) return Error("expected a digit in the exponent");
      while (Peek() >= '0' && Peek() <= '9') ++i_;
    }
    // from_chars: the C locale whatever the process's (strtod follows
    // LC_NUMERIC); it refuses a leading '+' and hex, already excluded above.
    auto r = std::from_chars(s_.data() + start, s_.data() + i_, *v);
    if (r.ec == std::errc::result_out_of_range)  // 1e400 is inf, 1e-400 is 0, as strtod says
      *v = std::strtod(std::string(s_.substr(start, i_ - start)).c_str(), nullptr);
    return Status::Ok();
  }

  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  Status Hex4(uint32_t* cp) {
    if (i_ + 4 > s_.size()) return Error("short \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      char h = s_[i_++];
      v <<= 4;
      if (h >= '0' && h <= '9')
        v |= h - '0';
      else if (h >= 'a' && h <= 'f')
        v |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        v |= h - 'A' + 10;
      else
        return Error("bad \\u escape");
    }
    *cp = v;
    return Status::Ok();
  }

  Status String(std::string* out) {
    ++i_;  // the opening quote
    while (true) {
      if (i_ >= s_.size()) return Error("unterminated string");
      char c = s_[i_++];
      if (c == '"') return Status::Ok();
      if (static_cast<unsigned char>(c) < 0x20) return Error("control character in a string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (i_ >= s_.size()) return Error("unterminated escape");
      char e = s_[i_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp = 0;
          Status st = Hex4(&cp);
          if (!st.ok()) return st;
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(i_, 2) == "\\u") {
            size_t at = i_;
            i_ += 2;
            uint32_t lo = 0;
            st = Hex4(&lo);
            if (!st.ok()) return st;
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              i_ = at;  // not its pair: read it on its own
            }
          }
          // A lone surrogate is not a character: U+FFFD, so the text stays UTF-8.
          if (cp >= 0xD800 && cp < 0xE000) cp = 0xFFFD;
          AppendUtf8(out, cp);
          break;
        }
        default:
          return Error(std::string("bad escape \\") + e);
      }
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

Result<std::vector<JsonField>> ParseJsonObject(std::string_view text) {
  return Reader(text).Object();
}

}  // namespace sweep
