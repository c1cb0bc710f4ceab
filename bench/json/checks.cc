// Behaviour of each adapter on edge cases: what it accepts, its message, its
// depth boundary, and whether numbers come back bit-exact.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "adapters.h"

using namespace bench;

struct Parser {
  const char* name;
  Result<Fields> (*fn)(std::string_view);
};
static const Parser kParsers[] = {
    {"ours", sweep::ParseJsonObject},     {"simdjson", ParseSimdjson},
    {"simdjson-skip", ParseSimdjsonSkip}, {"nlohmann-sax", ParseNlohmannSax},
    {"rapidjson-sax", ParseRapidSax},     {"rapidjson-dom", ParseRapidDom},
};

static std::string Show(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 60)) {
    if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > 60) out += "...(" + std::to_string(s.size()) + " bytes)";
  return out;
}

static std::string Describe(const Result<Fields>& r) {
  if (!r.ok()) return "ERR " + r.status().message().substr(0, 300);
  std::string out = "ok:";
  for (auto& f : *r) {
    out += " " + Show(f.key) + "=";
    switch (f.kind) {
      case JsonField::Kind::kNumber: {
        char b[32];
        std::snprintf(b, sizeof b, "%.17g", f.number);
        out += b;
        break;
      }
      case JsonField::Kind::kBool:
        out += f.flag ? "true" : "false";
        break;
      case JsonField::Kind::kNull:
        out += "null";
        break;
      case JsonField::Kind::kString:
        out += "\"" + Show(f.text) + "\"";
        break;
      case JsonField::Kind::kOther:
        out += "<other>";
        break;
    }
    if (out.size() > 160) break;
  }
  return out;
}

static std::string Nest(int arrays, const char* inner) {
  return "{\"a\": " + std::string(arrays, '[') + inner + std::string(arrays, ']') + "}";
}

int main() {
  std::vector<std::string> cases = {
      // tests/common/command_input_test.cc's malformed inputs
      "",
      "[1]",
      "{",
      "{\"a\" 1}",
      "{\"a\": 1,}",
      "{\"a\": 01x}",
      "{\"a\": 1} trailing",
      "{\"a\": \"unterminated}",
      "{\"a\": tru}",
      "{\"a\": 1.}",
      "{\"a\": \"\x01\"}",
      // NaN/Infinity spellings
      "{\"a\": NaN, \"b\": Infinity, \"c\": -Infinity, \"d\": [NaN, -Infinity]}",
      "{\"a\": nan}",
      "{\"a\": -NaN}",
      "{\"a\": Inf}",
      "{\"a\": -Inf}",
      "{\"a\": +Infinity}",
      "{\"a\": Infinityx}",
      "{\"a\": NaN1}",
      // numbers
      "{\"a\": 1e400, \"b\": -1e400, \"c\": 1e-400}",
      "{\"a\": 123456789012345678901234567890}",
      "{\"a\": -0}",
      "{\"a\": 1E+2}",
      "{\"a\": .5}",
      "{\"a\": 0x10}",
      // strings
      "{\"a\": \"\\ud800\"}",
      "{\"a\": \"\\udc00x\"}",
      "{\"a\": \"\\ud83d\\ude00\"}",
      "{\"a\": \"\xff\xfe\"}",
      "{\"\xff\": 1}",
      "{\"a\\u0000b\": 1}",
      "{\"a\": \"\\q\"}",
      std::string("{\"a\": 1}\0x", 10),
      std::string("{\"a\": \"x\0y\"}", 12),
      // structure
      "{\"a\": 1, \"a\": 2}",
      " \t{\"a\": 1}\r\n",
      "{}",
      "{\"n\": [1, tru]}",
      "{\"n\": [1,,2]}",
      "{\"n\": {\"x\" 1}}",
      "{\"n\": [1, \"\\q\"]}",
      "{\"n\": [1, 2}",
      "{\"n\": {\"x\": 1]}",
      "{\"a\": 1",
      "{\"a\": [1, 2]",
      "\"a\"",
      "null",
      "{\"a\": 1}}",
      "{\"a\": 1}{",
      // depth: ours refuses a value reached through more than 64 open containers
      Nest(63, "1"),
      Nest(64, "1"),
      Nest(64, ""),
      Nest(65, ""),
      Nest(100, ""),
      "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}",
      // width
      "{\"a\": [" + std::string(1 << 20, '1') + "]}",
  };
  for (auto& c : cases) {
    std::printf("\n### %s\n", Show(c).c_str());
    for (auto& p : kParsers) std::printf("  %-14s %s\n", p.name, Describe(p.fn(c)).c_str());
  }

  // Round trip: random finite doubles, written shortest (std::to_chars, as
  // JsonNumber does) and as %.17g, must read back bit-exact.
  std::printf("\n### number round trip (1e5 random finite doubles, random bit patterns)\n");
  std::mt19937_64 rng(42);
  for (auto& p : kParsers) {
    int bad = 0, n = 0;
    std::mt19937_64 r2(42);
    for (int i = 0; i < 100000; ++i) {
      uint64_t bits = r2();
      double d;
      std::memcpy(&d, &bits, sizeof d);
      if (!std::isfinite(d)) continue;
      char buf[64];
      for (int form = 0; form < 2; ++form) {
        std::string num;
        if (form == 0) {
          auto e = std::to_chars(buf, buf + sizeof buf, d).ptr;
          num.assign(buf, e);
        } else {
          std::snprintf(buf, sizeof buf, "%.17g", d);
          num = buf;
        }
        auto res = p.fn("{\"x\": " + num + "}");
        ++n;
        if (!res.ok() || res->size() != 1 || std::memcmp(&(*res)[0].number, &d, sizeof d) != 0)
          ++bad;
      }
    }
    std::printf("  %-14s %d of %d not bit-exact\n", p.name, bad, n);
  }
  // Same for "ordinary" metric values (uniform in [0,1), and 1e-5..1e5).
  std::printf("\n### number round trip (2e5 metric-like doubles)\n");
  for (auto& p : kParsers) {
    int bad = 0;
    std::mt19937_64 r3(7);
    std::uniform_real_distribution<double> u(0, 1), ex(-5, 5);
    for (int i = 0; i < 100000; ++i) {
      for (double d : {u(r3), std::pow(10.0, ex(r3))}) {
        char buf[64];
        auto e = std::to_chars(buf, buf + sizeof buf, d).ptr;
        auto res = p.fn("{\"x\": " + std::string(buf, e) + "}");
        if (!res.ok() || std::memcmp(&(*res)[0].number, &d, sizeof d) != 0) ++bad;
      }
    }
    std::printf("  %-14s %d of 200000 not bit-exact\n", p.name, bad);
  }
}
