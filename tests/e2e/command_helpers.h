// Shared by the command-task e2e tests: studies that run
// tests/e2e/programs/trial.py, and checks on the processes it records.
#pragma once

#include <signal.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "e2e/harness.h"

namespace sweep::e2e {

inline const std::string kPrograms = std::string(SWEEP_SOURCE_DIR) + "/tests/e2e/programs";

// A study whose trials run tests/e2e/programs/trial.py with `flags`.
inline std::string PyStudy(const TempDir& dir, const std::string& name, const std::string& flags,
                           const std::string& algorithm, int steps, const std::string& extra = "") {
  return dir.Write(name + ".yaml",
                   "name: " + name + "\nobjective: {metric: loss, goal: minimize}\n" +
                       "task:\n  command:\n    argv: [python3, " + kPrograms +
                       "/trial.py, --x, \"{x}\", " + "--record, " + dir.path() + flags + "]\n" +
                       "    env: {PYTHONPATH: " + std::string(SWEEP_SOURCE_DIR) +
                       "/clients/python}\n    steps: " + std::to_string(steps) + "\n" + extra +
                       "algorithm: " + algorithm +
                       "\nseed: 7\nparameters:\n  x: {type: float, min: 0, max: 1}\n");
}

// The runner work folders (sweep-runner-*) in `dir`.
inline int WorkFolders(const std::string& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().rfind("sweep-runner-", 0) == 0;
  return n;
}

inline std::vector<std::string> Lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

// True when `pid` is gone (or a zombie nobody can wake).
inline bool Gone(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return true;
  std::string s((std::istreambuf_iterator<char>(stat)), {});
  size_t paren = s.rfind(')');
  return paren != std::string::npos && paren + 2 < s.size() && s[paren + 2] == 'Z';
}

inline bool AllGone(const std::string& pids_file, int timeout_ms) {
  return WaitFor(
      [&] {
        for (const auto& l : Lines(pids_file))
          if (!Gone(static_cast<pid_t>(std::stol(l)))) return false;
        return true;
      },
      timeout_ms);
}

// `sweep run` exits 1 when no trial completed.
inline std::string RunStudy(const std::string& study, const std::string& db, int runners = 2,
                            int want_rc = 0) {
  std::string out;
  int rc = RunSweep(
      {"run", study, "--db", db, "--local-runners", std::to_string(runners), "--progress", "plain"},
      &out);
  EXPECT_EQ(rc, want_rc) << out;
  return out;
}

inline double Param(const std::string& db, int64_t id) {
  auto rows =
      Query(db, "SELECT json_extract(params, '$.x') FROM trials WHERE id = " + std::to_string(id));
  return rows.empty() ? NAN : std::get<double>(rows[0][0]);
}

// What trial.py --record wrote: each checkpoint's sha256 by (trial, step),
// from the file "checkpoints".
inline std::map<std::pair<int64_t, int64_t>, std::string> WrittenCheckpoints(
    const TempDir& record) {
  std::map<std::pair<int64_t, int64_t>, std::string> written;
  for (const auto& l : Lines(record.File("checkpoints"))) {
    std::istringstream in(l);
    int64_t t, s;
    std::string sha;
    in >> t >> s >> sha;
    written[{t, s}] = sha;
  }
  return written;
}

// Each attempt that started from a checkpoint, from the file "resumed": the
// sha256 of the state it found there.
struct Resumed {
  int64_t trial = 0, attempt = 0, step = 0;
  std::string sha, line;
};
inline std::vector<Resumed> ResumedAttempts(const TempDir& record) {
  std::vector<Resumed> out;
  for (const auto& l : Lines(record.File("resumed"))) {
    Resumed r;
    std::istringstream in(l);
    in >> r.trial >> r.attempt >> r.step >> r.sha;
    r.line = l;
    out.push_back(r);
  }
  return out;
}

}  // namespace sweep::e2e
