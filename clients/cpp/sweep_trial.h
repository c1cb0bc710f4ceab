// The trial side of a sweep command task for C++ programs: one header, the
// standard library only. It does what docs/command.md says a program does:
// read the parameters, write checkpoint folders, resume, print reports.
//
//   #include "sweep_trial.h"
//   int main() {
//     sweep_trial::Trial trial;
//     double lr = trial.Number("lr", 0.01);
//     int64_t start = trial.resume_step() + 1;   // 1 unless resuming
//     for (int64_t step = start; step <= trial.steps(); ++step) {
//       double loss = ...;
//       if (trial.ShouldCheckpoint(step)) {
//         std::string dir = trial.CheckpointFolder(step);   // write files there
//         trial.Report(step, {{"loss", loss}}, /*checkpoint=*/true);
//       } else {
//         trial.Report(step, {{"loss", loss}});
//       }
//     }
//   }
#pragma once

#include <sys/stat.h>

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace sweep_trial {

class Trial {
 public:
  // Reads the environment the runner sets; outside sweep, every parameter
  // takes its default and steps() is `steps`.
  explicit Trial(int64_t steps = 1) {
    steps_ = Int("SWEEP_STEPS", steps);
    trial_ = Int("SWEEP_TRIAL", 0);
    trial_id_ = Int("SWEEP_TRIAL_ID", 0);
    attempt_ = Int("SWEEP_ATTEMPT", 1);
    resume_step_ = Int("SWEEP_RESUME_STEP", 0);
    checkpoint_dir_ = Env("SWEEP_CHECKPOINT_DIR");
    resume_dir_ = Env("SWEEP_RESUME_DIR");
    std::stringstream steps_list(Env("SWEEP_DECISION_STEPS"));
    for (std::string s; std::getline(steps_list, s, ',');)
      if (!s.empty()) decision_steps_.push_back(std::stoll(s));
    std::string file = Env("SWEEP_PARAMS_FILE");
    if (!file.empty()) {
      std::ifstream in(file);
      std::stringstream text;
      text << in.rdbuf();
      ParseParams(text.str());
    }
    last_step_ = resume_step_;
  }

  int64_t steps() const { return steps_; }
  // The trial's number in its study (`sweep why TRIAL`), and the database's id.
  int64_t trial() const { return trial_; }
  int64_t trial_id() const { return trial_id_; }
  int64_t attempt() const { return attempt_; }
  int64_t resume_step() const { return resume_step_; }
  // Empty unless this attempt continues from a checkpoint.
  const std::string& resume_dir() const { return resume_dir_; }
  const std::vector<int64_t>& decision_steps() const { return decision_steps_; }

  double Number(const std::string& name, double def) const {
    auto it = params_.find(name);
    return it == params_.end() ? def : std::strtod(it->second.c_str(), nullptr);
  }
  int64_t Integer(const std::string& name, int64_t def) const {
    auto it = params_.find(name);
    return it == params_.end() ? def : std::llround(std::strtod(it->second.c_str(), nullptr));
  }
  std::string Text(const std::string& name, const std::string& def) const {
    auto it = params_.find(name);
    return it == params_.end() ? def : it->second;
  }
  bool Flag(const std::string& name, bool def) const {
    auto it = params_.find(name);
    return it == params_.end() ? def : it->second == "true";
  }

  bool ShouldCheckpoint(int64_t step) const {
    if (checkpoint_dir_.empty()) return false;
    for (int64_t s : decision_steps_)
      if (s == step) return true;
    return step == steps_;
  }
  // Makes the new folder for step `step`'s checkpoint and returns its path.
  std::string CheckpointFolder(int64_t step) const {
    if (checkpoint_dir_.empty()) throw std::runtime_error("no SWEEP_CHECKPOINT_DIR");
    std::string dir = checkpoint_dir_ + "/" + std::to_string(step);
    if (mkdir(dir.c_str(), 0700) != 0) throw std::runtime_error("cannot make " + dir);
    return dir;
  }

  void Report(int64_t step, const std::vector<std::pair<std::string, double>>& metrics,
              bool checkpoint = false) {
    if (step <= last_step_) throw std::invalid_argument("steps must increase");
    last_step_ = step;
    std::string line = "{\"step\": " + std::to_string(step);
    if (checkpoint) line += ", \"checkpoint\": true";
    Emit(line, metrics);
  }
  void Final(const std::vector<std::pair<std::string, double>>& metrics) { Emit("{", metrics); }

 private:
  static std::string Env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
  }
  static int64_t Int(const char* name, int64_t def) {
    std::string v = Env(name);
    return v.empty() ? def : std::stoll(v);
  }
  static std::string NumberText(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }
  // A metric name as a JSON string: quotes, backslashes and control
  // characters escaped.
  static std::string Quoted(const std::string& k) {
    std::string out = "\"";
    for (unsigned char c : k) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out + "\"";
  }
  static void Emit(std::string line, const std::vector<std::pair<std::string, double>>& metrics) {
    bool first = line == "{";
    for (const auto& [k, v] : metrics) {
      line += (first ? "" : ", ") + Quoted(k) + ": " + NumberText(v);
      first = false;
    }
    std::printf("SWEEP_REPORT %s}\n", line.c_str());
    std::fflush(stdout);
  }
  static void AppendUtf8(std::string* out, uint32_t cp) {
    if (cp < 0x80) {
      *out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      *out += static_cast<char>(0xc0 | (cp >> 6));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
      *out += static_cast<char>(0xe0 | (cp >> 12));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    } else {
      *out += static_cast<char>(0xf0 | (cp >> 18));
      *out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
      *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
      *out += static_cast<char>(0x80 | (cp & 0x3f));
    }
  }
  // The parameters file is one flat object that sweep writes: string keys,
  // and numbers, booleans or strings as values.
  void ParseParams(const std::string& s) {
    size_t i = 0;
    auto space = [&] {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    };
    auto string = [&] {
      std::string out;
      ++i;
      auto hex4 = [&](size_t at) -> long {
        if (at + 4 > s.size()) return -1;
        for (size_t k = at; k < at + 4; ++k)
          if (!std::isxdigit(static_cast<unsigned char>(s[k]))) return -1;
        return std::stol(s.substr(at, 4), nullptr, 16);
      };
      while (i < s.size() && s[i] != '"') {
        if (s[i] == '\\' && i + 1 < s.size()) {
          char e = s[++i];
          switch (e) {
            case 'n':
              out += '\n';
              break;
            case 't':
              out += '\t';
              break;
            case 'r':
              out += '\r';
              break;
            case 'b':
              out += '\b';
              break;
            case 'f':
              out += '\f';
              break;
            case 'u': {
              long cp = hex4(i + 1);
              if (cp < 0) break;
              i += 4;
              // A surrogate pair is one code point.
              if (cp >= 0xd800 && cp <= 0xdbff && i + 2 < s.size() && s[i + 1] == '\\' &&
                  s[i + 2] == 'u') {
                long lo = hex4(i + 3);
                if (lo >= 0xdc00 && lo <= 0xdfff) {
                  cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                  i += 6;
                }
              }
              AppendUtf8(&out, static_cast<uint32_t>(cp));
              break;
            }
            default:
              out += e;  // " \ /
          }
        } else {
          out += s[i];
        }
        ++i;
      }
      ++i;
      return out;
    };
    space();
    if (i >= s.size() || s[i] != '{') return;
    ++i;
    while (true) {
      space();
      if (i >= s.size() || s[i] != '"') return;
      std::string key = string();
      space();
      if (i >= s.size() || s[i] != ':') return;
      ++i;
      space();
      if (i < s.size() && s[i] == '"') {
        params_[key] = string();
      } else {
        size_t end = s.find_first_of(",}", i);
        std::string v = s.substr(i, end - i);
        while (!v.empty() && std::isspace(static_cast<unsigned char>(v.back()))) v.pop_back();
        params_[key] = v;
        i = end;
      }
      space();
      if (i >= s.size() || s[i] != ',') return;
      ++i;
    }
  }

  std::map<std::string, std::string> params_;
  int64_t steps_ = 1, trial_ = 0, trial_id_ = 0, attempt_ = 1, resume_step_ = 0, last_step_ = 0;
  std::string checkpoint_dir_, resume_dir_;
  std::vector<int64_t> decision_steps_;
};

}  // namespace sweep_trial
