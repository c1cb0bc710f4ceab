// Writing an object of ~20 numbers: our JsonWriter vs RapidJSON Writer vs
// nlohmann dump; then how each prints doubles (shortest? round-trip? same
// text as std::to_chars, which JsonNumber uses?) and strings.
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "common/json_writer.h"
#include "cputime.h"
#include "rapidjson/stringbuffer.h"
#include "rapidjson/writer.h"

namespace rj = rapidjson;
using Kv = std::vector<std::pair<std::string, double>>;

static std::string Ours(const Kv& kv) {
  sweep::JsonWriter w;
  w.BeginObject();
  for (auto& [k, v] : kv) w.Key(k).Number(v);
  w.EndObject();
  return w.Take();
}

// Ours with one change: Number() appends std::to_chars' text straight into
// the output (no std::string per number; JsonNumber allocates past 15 chars).
class JsonWriterDirect {
 public:
  JsonWriterDirect& BeginObject() {
    Comma();
    out_ += '{';
    first_.push_back(true);
    return *this;
  }
  JsonWriterDirect& EndObject() {
    out_ += '}';
    first_.pop_back();
    return *this;
  }
  JsonWriterDirect& Key(std::string_view k) {
    Comma();
    sweep::AppendJsonString(&out_, k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriterDirect& Number(double v) {
    Comma();
    if (!std::isfinite(v)) {
      out_ += "null";
    } else {
      char buf[32];
      out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    }
    return *this;
  }
  std::string Take() { return std::move(out_); }

 private:
  void Comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

static std::string OursDirect(const Kv& kv) {
  JsonWriterDirect w;
  w.BeginObject();
  for (auto& [k, v] : kv) w.Key(k).Number(v);
  w.EndObject();
  return w.Take();
}

// RapidJSON's own Double (Grisu2); non-finite as null (Double would fail).
static std::string Rapid(const Kv& kv) {
  rj::StringBuffer sb;
  rj::Writer<rj::StringBuffer> w(sb);
  w.StartObject();
  for (auto& [k, v] : kv) {
    w.Key(k.data(), static_cast<rj::SizeType>(k.size()));
    if (std::isfinite(v))
      w.Double(v);
    else
      w.Null();
  }
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

// RapidJSON Writer, numbers printed by std::to_chars through RawValue: our text.
static std::string RapidToChars(const Kv& kv) {
  rj::StringBuffer sb;
  rj::Writer<rj::StringBuffer> w(sb);
  w.StartObject();
  for (auto& [k, v] : kv) {
    w.Key(k.data(), static_cast<rj::SizeType>(k.size()));
    if (std::isfinite(v)) {
      char buf[32];
      char* e = std::to_chars(buf, buf + sizeof buf, v).ptr;
      w.RawValue(buf, static_cast<size_t>(e - buf), rj::kNumberType);
    } else {
      w.Null();
    }
  }
  w.EndObject();
  return std::string(sb.GetString(), sb.GetSize());
}

static std::string Nlohmann(const Kv& kv) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (auto& [k, v] : kv) j[k] = v;
  return j.dump();
}

static std::string NlohmannMap(const Kv& kv) {  // std::map keys: sorted output
  nlohmann::json j = nlohmann::json::object();
  for (auto& [k, v] : kv) j[k] = v;
  return j.dump();
}

static std::string OneNumber(std::string (*fn)(const Kv&), double d) {
  std::string s = fn({{"x", d}});
  return s.substr(5, s.size() - 6);  // {"x":<number>}
}

int main(int argc, char** argv) {
  long iters = argc > 1 ? std::atol(argv[1]) : 1000000;
  int repeats = argc > 2 ? std::atoi(argv[2]) : 5;
  Kv kv = {{"step", 25000},
           {"epoch", 17},
           {"train_loss", 0.04126539453864098},
           {"val_loss", 0.3346021771430969},
           {"val_accuracy", 0.9388999938964844},
           {"top5", 0.9981},
           {"lr", 1.2345678901234567e-05},
           {"ema_loss", 0.041002},
           {"gpu_mem_gb", 13.75},
           {"wall_s", 8412.023},
           {"samples_per_s", 2291.5},
           {"grad_norm", NAN},
           {"param_count", 11689512},
           {"loss_scale", 65536.0},
           {"momentum", 0.9},
           {"weight_decay", 5e-05},
           {"throughput", 1523.4377},
           {"f1", 0.8812345},
           {"recall", 0.87},
           {"precision", 1.0 / 3}};
  struct W {
    const char* name;
    std::string (*fn)(const Kv&);
  } ws[] = {{"ours (JsonWriter)", Ours},
            {"ours, to_chars straight into out_", OursDirect},
            {"RapidJSON Writer (Grisu2)", Rapid},
            {"RapidJSON Writer + to_chars RawValue", RapidToChars},
            {"nlohmann ordered_json dump", Nlohmann},
            {"nlohmann json (std::map) dump", NlohmannMap}};
  const int n = sizeof ws / sizeof ws[0];
  for (auto& w : ws) std::printf("%-38s %s\n", w.name, w.fn(kv).c_str());
  std::printf("\nwrite speed, %zu fields, %ld objects per cell, median of %d\n", kv.size(), iters,
              repeats);
  std::vector<std::vector<double>> ns(n);
  for (int r = 0; r < repeats; ++r)
    for (int k = 0; k < n; ++k) {
      int j = (k + r) % n;
      size_t sink = 0;
      double t0 = CpuNs();
      for (long i = 0; i < iters; ++i) sink += ws[j].fn(kv).size();
      double t1 = CpuNs();
      if (sink == 0) std::puts("");
      ns[j].push_back((t1 - t0) / iters);
    }
  for (int j = 0; j < n; ++j) {
    auto v = ns[j];
    std::sort(v.begin(), v.end());
    std::printf("  %-38s %7.0f ns/object  (min %.0f, max %.0f)\n", ws[j].name, v[v.size() / 2],
                v.front(), v.back());
  }

  // Number text: 1e6 random finite doubles (random bits) + 2e5 metric-like.
  std::printf("\nnumber text vs std::to_chars (JsonNumber)\n");
  for (int j = 2; j < n - 1; ++j) {
    if (j == 3) continue;  // identical by construction
    long same = 0, fmt = 0, lastdig = 0, longer = 0, shorter = 0, not_rt = 0, total = 0;
    long same_metric = 0, total_metric = 0;
    std::string ex_fmt, ex_last, ex_long, ex_short;
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> u(0, 1), ex(-5, 5);
    // Significand digits: no sign, point, exponent, leading or trailing zeros.
    auto digits = [](const std::string& s) {
      std::string m = s.substr(0, s.find_first_of("eE"));
      std::string o;
      for (char c : m)
        if (c >= '0' && c <= '9') o += c;
      o.erase(0, std::min(o.find_first_not_of('0'), o.size()));
      while (!o.empty() && o.back() == '0') o.pop_back();
      return o;
    };
    for (int i = 0; i < 1200000; ++i) {
      double d;
      bool metric = i >= 1000000;
      if (!metric) {
        uint64_t b = rng();
        std::memcpy(&d, &b, sizeof d);
        if (!std::isfinite(d)) continue;
      } else {
        d = (i & 1) ? u(rng) : std::pow(10.0, ex(rng));
      }
      ++total;
      char buf[32];
      std::string want(buf, std::to_chars(buf, buf + sizeof buf, d).ptr);
      std::string got = OneNumber(ws[j].fn, d);
      double back = 0;
      std::from_chars(got.data(), got.data() + got.size(), back);
      if (std::memcmp(&back, &d, sizeof d) != 0) ++not_rt;
      if (metric) ++total_metric, same_metric += got == want;
      std::string dw = digits(want), dg = digits(got);
      auto ex = [&](std::string* e) {
        if (e->empty()) *e = want + " -> " + got;
      };
      if (got == want)
        ++same;
      else if (dg == dw)
        ++fmt, ex(&ex_fmt);
      else if (dg.size() == dw.size())
        ++lastdig, ex(&ex_last);
      else if (dg.size() > dw.size())
        ++longer, ex(&ex_long);
      else
        ++shorter, ex(&ex_short);
    }
    std::printf(
        "  %s, %ld doubles (1e6 random bit patterns + 2e5 metric-like):\n"
        "    same text as to_chars %ld; same digits, other notation %ld (e.g. %s);\n"
        "    same length, other last digit %ld (e.g. %s); more digits %ld (e.g. %s);\n"
        "    fewer digits %ld (e.g. %s); not round-trip %ld; metric-like same text %ld of %ld\n",
        ws[j].name, total, same, fmt, ex_fmt.c_str(), lastdig, ex_last.c_str(), longer,
        ex_long.c_str(), shorter, ex_short.c_str(), not_rt, same_metric, total_metric);
  }
  std::printf("\nsample numbers: to_chars | RapidJSON | nlohmann\n");
  for (double d : {0.0, -0.0, 1.0, 100.0, 0.1, 1e-5, 1e-7, 5e-324, 1e21, 1e22, 1.5e300, 65536.0,
                   25000.0, 1.0 / 3}) {
    char buf[32];
    std::string want(buf, std::to_chars(buf, buf + sizeof buf, d).ptr);
    std::printf("  %-24s %-24s %s\n", want.c_str(), OneNumber(Rapid, d).c_str(),
                OneNumber(Nlohmann, d).c_str());
  }

  std::printf("\nstrings (key = value): ours | RapidJSON | nlohmann\n");
  for (std::string s :
       {std::string("tab\there"), std::string("esc\x1b[31m"), std::string("del\x7f"),
        std::string("c1 \xc2\x85"), std::string("bad utf8 \xff"), std::string("caf\xc3\xa9"),
        std::string("nul\0x", 5), std::string("slash/")}) {
    sweep::JsonWriter w;
    w.String(s);
    rj::StringBuffer sb;
    rj::Writer<rj::StringBuffer> rw(sb);
    rw.String(s.data(), static_cast<rj::SizeType>(s.size()));
    std::string nl;
    try {
      nl = nlohmann::json(s).dump();
    } catch (const std::exception& e) {
      nl = std::string("THROWS ") + e.what();
    }
    std::printf("  %-22s %-22s %s\n", w.str().c_str(),
                std::string(sb.GetString(), sb.GetSize()).c_str(), nl.c_str());
  }
}
