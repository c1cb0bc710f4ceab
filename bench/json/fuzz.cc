// Built with ASan+UBSan (run.sh's flags plus -O1 -g -fsanitize=address,undefined, linked with
// -lsimdjson): (1) known hostile number inputs from RapidJSON's tracker, (2) a differential
// mutation fuzz of report lines: every adapter against ours, counting where acceptance or values
// differ.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

#include "adapters.h"
#include "lines.h"

using namespace bench;

struct Parser {
  const char* name;
  Result<Fields> (*fn)(std::string_view);
};
static const Parser kParsers[] = {
    {"simdjson", ParseSimdjson},
    {"nlohmann-sax", ParseNlohmannSax},
    {"rapidjson-sax", ParseRapidSax},
};

static bool SameValues(const Fields& a, const Fields& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].key != b[i].key || a[i].kind != b[i].kind || a[i].flag != b[i].flag ||
        a[i].text != b[i].text)
      return false;
    double x = a[i].number, y = b[i].number;
    if (!(std::isnan(x) && std::isnan(y)) && std::memcmp(&x, &y, sizeof x) != 0) return false;
  }
  return true;
}

static std::string Show(std::string_view s) {
  std::string out;
  for (unsigned char c : s.substr(0, 90)) {
    if (c < 0x20 || c >= 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The line being parsed, written out if a sanitizer or assert aborts.
static const std::string* g_current = nullptr;
static void OnAbort(int sig) {
  if (g_current) {
    const char msg[] = "\n[fuzz] input being parsed at the abort: ";
    (void)!write(2, msg, sizeof msg - 1);
    (void)!write(2, g_current->data(), g_current->size());
    (void)!write(2, "\n", 1);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

// Runs fn in a child: a sanitizer report or crash ends only the child.
template <typename Fn>
static void InChild(const char* what, Fn fn) {
  std::fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    fn();
    std::fflush(stdout);
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0))
    std::printf("    %-14s CHILD DIED (%s %d): sanitizer report on stderr\n", what,
                WIFSIGNALED(st) ? "signal" : "exit",
                WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
}

int main(int argc, char** argv) {
  setvbuf(stdout, nullptr, _IONBF, 0);
  signal(SIGABRT, OnAbort);
  signal(SIGSEGV, OnAbort);
  double seconds = argc > 1 ? std::atof(argv[1]) : 20;
  std::printf("== hostile numbers (RapidJSON issues #1251, #1255, CVE-2024-38517 shape)\n");
  std::vector<std::string> hostile = {
      R"({"a": 128.74836467836484838364836483643636483648e-336})",
      R"({"a": 6223372036854775296.1701512723685473547372536854755293372036854685477529752233737201701512337200972013723685473123372036872036854236854737247372368372367752975258547752975254729752547372368737201701512354737837236775297525854772473723683723685473547372536854755297525})",
      "{\"a\": 1." + std::string(60000, '0') + "1e-2147483647}",
      "{\"a\": 0." + std::string(60000, '0') + "1e-2147483640}",
      "{\"a\": 1e-2147483649}",
      "{\"a\": 1e2147483648}",
  };
  for (auto& h : hostile) {
    std::printf("  %s%s\n", Show(h).c_str(), h.size() > 90 ? "..." : "");
    auto want = sweep::ParseJsonObject(h);
    std::printf("    %-14s %s\n", "ours",
                want.ok() ? std::to_string((*want)[0].number).c_str()
                          : want.status().message().substr(0, 80).c_str());
    for (auto& p : kParsers) {
      InChild(p.name, [&] {
        g_current = &h;
        auto got = p.fn(h);
        char num[40] = "";
        if (got.ok()) std::snprintf(num, sizeof num, "%.17g", (*got)[0].number);
        std::printf("    %-14s %s\n", p.name,
                    got.ok() ? num : got.status().message().substr(0, 80).c_str());
      });
    }
  }

  std::vector<std::string> seeds;
  for (auto& l : ReportLines()) seeds.push_back(l.text);
  seeds.push_back(
      R"({"a": [1, {"b": [NaN, -Infinity, "x\u00e9\ud83d\ude00"]}], "c": null, "d": false})");
  const char* dict[] = {"NaN", "Infinity", "-Infinity", "-",       "[",     "]",    "{",
                        "}",   "\"",       "\\u",       "\\ud800", "e-999", "e999", ",",
                        ":",   "0",        "1.5",       "\\",      "\x01",  "\xff", "\xc3\xa9",
                        " ",   "nul",      "true",      "1e400",   "-0",    ".",    "\"k\": 1, "};
  std::mt19937_64 rng(12345);
  for (auto& p : kParsers)
    InChild(p.name, [&] {
      std::map<std::string, long> diff;
      std::map<std::string, std::string> example;
      long n = 0;
      auto t0 = std::chrono::steady_clock::now();
      while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <
             seconds) {
        std::string s = seeds[rng() % seeds.size()];
        int muts = 1 + rng() % 4;
        for (int m = 0; m < muts; ++m) {
          size_t at = s.empty() ? 0 : rng() % s.size();
          switch (rng() % 4) {
            case 0:
              if (!s.empty()) s[at] = static_cast<char>(rng());
              break;
            case 1:
              if (!s.empty()) s.erase(at, 1 + rng() % 4);
              break;
            case 2:
              s.insert(at, dict[rng() % (sizeof dict / sizeof *dict)]);
              break;
            case 3:
              if (!s.empty()) s.insert(at, s.substr(rng() % s.size(), rng() % 16));
              break;
          }
        }
        ++n;
        g_current = &s;
        auto want = sweep::ParseJsonObject(s);
        auto got = p.fn(s);
        std::string k;
        if (want.ok() && !got.ok())
          k = "ours accepts, it refuses";
        else if (!want.ok() && got.ok())
          k = "ours refuses, it accepts";
        else if (want.ok() && !SameValues(*want, *got))
          k = "both accept, values differ";
        if (!k.empty() && diff[k]++ < 1000) {
          auto& e = example[k];
          if (e.empty() || s.size() < e.size()) e = s;  // keep the shortest example
        }
      }
      std::printf("\n== %s: %ld mutated lines in %.0f s (ASan+UBSan), disagreements with ours:\n",
                  p.name, n, seconds);
      for (auto& [k, c] : diff)
        std::printf("  %-28s %6ld  (%.2f%%)  shortest seen: %s\n", k.c_str(), c, 100.0 * c / n,
                    Show(example[k]).c_str());
    });
}
