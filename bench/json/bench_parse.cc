// Parse speed of SWEEP_REPORT lines into std::vector<JsonField>, per library.
// Each (line, parser) cell: 1e6 parses, timed; 5 repeats with the parser
// order rotated each repeat; the median ns/line is reported.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>

#include "adapters.h"
#include "cputime.h"
#include "lines.h"

using namespace bench;

struct Parser {
  const char* name;
  Result<Fields> (*fn)(std::string_view);
};

static bool SameNumber(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof a) == 0;
}

static bool Same(const Fields& a, const Fields& b, std::string* why) {
  if (a.size() != b.size()) return *why = "field count", false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].kind != b[i].kind)
      return *why = "key/kind of " + a[i].key, false;
    if (a[i].kind == JsonField::Kind::kNumber && !SameNumber(a[i].number, b[i].number))
      return *why = "number of " + a[i].key, false;
    if (a[i].flag != b[i].flag || a[i].text != b[i].text)
      return *why = "value of " + a[i].key, false;
  }
  return true;
}

// What building the result costs alone: copy fields of a line parsed
// beforehand (same allocations as a parser's push_backs; no parsing).
static const Fields* g_floor_src = nullptr;
static Result<Fields> Floor(std::string_view) {
  Fields out;
  for (const auto& f : *g_floor_src) {
    JsonField g;
    g.key = f.key;
    g.kind = f.kind;
    g.number = f.number;
    g.flag = f.flag;
    g.text = f.text;
    out.push_back(std::move(g));
  }
  return out;
}

int main(int argc, char** argv) {
  long iters = argc > 1 ? std::atol(argv[1]) : 1000000;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  std::vector<Parser> parsers = {
      {"ours (ParseJsonObject)", sweep::ParseJsonObject},
      {"simdjson on-demand, walk nested", ParseSimdjson},
      {"simdjson on-demand, skip nested", ParseSimdjsonSkip},
      {"simdjson walk, TU -march=haswell", ParseSimdjsonHaswell},
      {"nlohmann SAX + NaN pre-pass", ParseNlohmannSax},
      {"nlohmann ordered_json DOM + pre-pass", ParseNlohmannDom},
      {"RapidJSON Reader (SAX)", ParseRapidSax},
      {"RapidJSON Document", ParseRapidDom},
      {"floor: build the vector, no parsing", Floor},
  };
  auto lines = ReportLines();
  // Every parser must give what ours gives, bit for bit.
  for (auto& l : lines) {
    auto want = sweep::ParseJsonObject(l.text);
    g_floor_src = &*want;
    if (!want.ok())
      return std::printf("ours failed on %s: %s\n", l.name, want.status().message().c_str()), 1;
    for (auto& p : parsers) {
      auto got = p.fn(l.text);
      std::string why;
      if (!got.ok()) {
        std::printf("MISMATCH %s on %s: %s\n", p.name, l.name, got.status().message().c_str());
      } else if (!Same(*want, *got, &why)) {
        std::printf("MISMATCH %s on %s: %s\n", p.name, l.name, why.c_str());
      }
    }
  }
  for (auto& l : lines) {
    std::printf("\n%s, %zu bytes, %ld parses per cell, median of %d\n", l.name, l.text.size(),
                iters, repeats);
    std::vector<std::vector<double>> ns(parsers.size());
    for (int r = 0; r < repeats; ++r) {
      for (size_t k = 0; k < parsers.size(); ++k) {
        size_t j = (k + r) % parsers.size();  // rotate the order each repeat
        std::string_view text = l.text;
        auto floor_src = sweep::ParseJsonObject(l.text);
        g_floor_src = &*floor_src;
        size_t sink = 0;
        double t0 = CpuNs();
        for (long i = 0; i < iters; ++i) {
          auto res = parsers[j].fn(text);
          sink += res.ok() ? res->size() : 1000;
        }
        double t1 = CpuNs();
        if (sink == 0) std::puts("");
        ns[j].push_back((t1 - t0) / iters);
      }
    }
    for (size_t j = 0; j < parsers.size(); ++j) {
      auto v = ns[j];
      std::sort(v.begin(), v.end());
      std::printf("  %-38s %8.0f ns/line  (min %.0f, max %.0f)\n", parsers[j].name, v[v.size() / 2],
                  v.front(), v.back());
    }
  }
}
