// RapidJSON without kParseFullPrecisionFlag: does the crash go away, and how
// many doubles then come back wrong? (Round trip of to_chars' shortest text.)
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include "rapidjson/document.h"

template <unsigned kFlags>
static bool Parse(const std::string& s, double* out) {
  rapidjson::Document d;
  d.Parse<kFlags>(s.data(), s.size());
  if (d.HasParseError() || !d.IsObject() || !d["x"].IsNumber()) return false;
  *out = d["x"].GetDouble();
  return true;
}

int main(int argc, char** argv) {
  constexpr unsigned kFast = rapidjson::kParseNanAndInfFlag;
  constexpr unsigned kFull = kFast | rapidjson::kParseFullPrecisionFlag;
  if (argc > 1) {  // one input, fast mode (crash probe)
    double d = 0;
    bool ok = Parse<kFast>(argv[1], &d);
    std::printf("fast mode: %s %.17g\n", ok ? "ok" : "error", d);
    return 0;
  }
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1), ex(-5, 5);
  long bad_fast = 0, bad_full = 0, n = 0;
  for (int i = 0; i < 1000000; ++i) {
    double v = (i & 1) ? u(rng) : std::pow(10.0, ex(rng));
    char buf[32];
    std::string s =
        "{\"x\": " + std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr) + "}";
    double a = 0, b = 0;
    ++n;
    if (!Parse<kFast>(s, &a) || std::memcmp(&a, &v, 8) != 0) ++bad_fast;
    if (!Parse<kFull>(s, &b) || std::memcmp(&b, &v, 8) != 0) ++bad_full;
  }
  std::printf(
      "metric-like doubles, shortest text, read back wrong: default flags %ld of %ld, "
      "kParseFullPrecisionFlag %ld of %ld\n",
      bad_fast, n, bad_full, n);
}
