// End-to-end harness implementation.
#include "e2e/harness.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace sweep::e2e {

namespace {

// The sweep processes a test starts make their temporary folders (a local
// runner's work folder, a tuner's private socket folder) under TMPDIR: one
// folder per test binary, removed when it exits, so the processes a test
// kills with SIGKILL leave nothing behind in /tmp.
struct TmpRoot {
  std::string path;
  TmpRoot() {
    char tmpl[] = "/tmp/sweep_e2e_tmp_XXXXXX";
    if (mkdtemp(tmpl) == nullptr) return;
    path = tmpl;
    setenv("TMPDIR", path.c_str(), 1);
  }
  ~TmpRoot() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
} g_tmp_root;

}  // namespace

TempDir::TempDir() {
  char tmpl[] = "/tmp/sweep_e2e_XXXXXX";
  path_ = mkdtemp(tmpl);
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Write(const std::string& name, const std::string& content) const {
  std::ofstream(File(name)) << content;
  return File(name);
}

Process::Process(const std::vector<std::string>& args, const std::string& log_path)
    : log_path_(log_path) {
  pid_ = fork();
  if (pid_ == 0) {
    int fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(fd, 1);
    dup2(fd, 2);
    int devnull = open("/dev/null", O_RDONLY);
    dup2(devnull, 0);
    std::vector<std::string> full = {SWEEP_BIN};
    full.insert(full.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : full) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(SWEEP_BIN, argv.data());
    _exit(127);
  }
}

Process::~Process() {
  if (Running()) {
    kill(pid_, SIGKILL);
    Wait(5000);
  }
}

int Process::Wait(int timeout_ms) {
  if (status_ >= 0) return status_;
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    int st;
    pid_t r = waitpid(pid_, &st, WNOHANG);
    if (r == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      return status_;
    }
    if (std::chrono::steady_clock::now() > end) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Process::Signal(int sig) {
  if (status_ < 0) kill(pid_, sig);
}

bool Process::Running() {
  if (status_ >= 0) return false;
  return Wait(0) < 0;
}

std::string Process::Log() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Keys::Keys(const TempDir& dir, const std::vector<std::string>& runner_names)
    : dir_(dir.File("keys")) {
  std::vector<std::string> names = runner_names;
  names.push_back("tuner");
  for (const auto& n : names) {
    std::string out;
    EXPECT_EQ(RunSweep({"keys", "new", n, "--dir", dir_}, &out), 0) << out;
  }
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ExecSql(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err);
  std::string why = err ? err : "";
  sqlite3_free(err);
  sqlite3_close(h);
  ASSERT_EQ(rc, SQLITE_OK) << why;
}

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

int RunSweep(const std::vector<std::string>& args, std::string* output, int timeout_ms) {
  TempDir logs;
  Process p(args, logs.File("out.log"));
  int rc = p.Wait(timeout_ms);
  if (output) *output = p.Log();
  return rc;
}

bool WaitFor(const std::function<bool()>& pred, int timeout_ms) {
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (std::chrono::steady_clock::now() < end) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return pred();
}

std::string RunnersJoinAt(const Process& p, int timeout_ms) {
  std::string endpoint;
  WaitFor(
      [&] {
        const std::string log = p.Log();
        const size_t at = log.find("runners join at ");
        if (at == std::string::npos) return false;
        endpoint = log.substr(at + 16, log.find_first_of(" \n", at + 16) - at - 16);
        return true;
      },
      timeout_ms);
  return endpoint;
}

std::string CurveStudyYaml(const std::string& name, int trials, int steps, int step_ms, int seed) {
  return "name: " + name +
         "\nobjective: {metric: value, goal: minimize}\n"
         "task: {synthetic: {function: curve, steps: " +
         std::to_string(steps) + ", step_ms: " + std::to_string(step_ms) +
         "}}\nalgorithm: {type: random, max_trials: " + std::to_string(trials) +
         ", max_retries: 0}\nseed: " + std::to_string(seed) +
         "\nparameters:\n  x1: {type: float, min: 0, max: 1}\n  x2: {type: float, min: 0, "
         "max: 1}\n";
}

bool KillTunerWhen(const std::vector<std::string>& args, const std::string& log_path,
                   const std::function<bool()>& ready, int timeout_ms) {
  Process tuner(args, log_path);
  bool held = WaitFor(ready, timeout_ms);
  EXPECT_TRUE(held) << tuner.Log();
  tuner.Signal(SIGKILL);
  EXPECT_EQ(tuner.Wait(10000), 128 + SIGKILL);
  return held;
}

void ResumeThenRunUninterrupted(const std::vector<std::string>& args, const std::string& ref_db,
                                int timeout_ms) {
  std::string out;
  ASSERT_EQ(RunSweep(args, &out, timeout_ms), 0) << out;
  std::vector<std::string> ref = args;
  auto db = std::find(ref.begin(), ref.end(), "--db");
  ASSERT_TRUE(db != ref.end() && db + 1 != ref.end());
  *(db + 1) = ref_db;
  ASSERT_EQ(RunSweep(ref, &out, timeout_ms), 0) << out;
}

std::vector<std::vector<Cell>> Query(const std::string& db, const std::string& sql) {
  if (!std::filesystem::exists(db)) return {};
  auto r = Reader::Open(db);
  if (!r.ok()) return {};
  auto t = (*r)->Query(sql);
  if (!t.ok()) {
    ADD_FAILURE() << sql << ": " << t.status().message();
    return {};
  }
  return t->rows;
}

int64_t QueryInt(const std::string& db, const std::string& sql) {
  auto rows = Query(db, sql);
  if (rows.empty() || rows[0].empty()) return -1;
  if (auto* i = std::get_if<int64_t>(&rows[0][0])) return *i;
  return -1;
}

std::string CellText(const Cell& c) {
  if (auto* s = std::get_if<std::string>(&c)) return *s;
  if (auto* i = std::get_if<int64_t>(&c)) return std::to_string(*i);
  if (auto* d = std::get_if<double>(&c)) return std::to_string(*d);
  return "null";
}

std::map<int64_t, std::string> ResumeInvariantOutcome(const std::string& db) {
  auto S = CellText;
  std::map<int64_t, std::string> out;
  for (const auto& r :
       Query(db,
             "SELECT t.number, t.status, t.step, t.params, "
             "(SELECT number FROM trials p WHERE p.id = t.parent_id), t.parent_step "
             "FROM trials t")) {
    out[std::get<int64_t>(r[0])] =
        S(r[1]) + "@" + S(r[2]) + " " + S(r[3]) + " parent " + S(r[4]) + "@" + S(r[5]);
  }
  for (const auto& r : Query(db,
                             "SELECT t.number, d.step, d.decision, d.reason FROM decisions d "
                             "JOIN trials t ON t.id = d.trial_id WHERE d.decision != 'pause' "
                             "ORDER BY t.number, d.step, d.decision")) {
    out[std::get<int64_t>(r[0])] += " | " + S(r[1]) + " " + S(r[2]) + ": " + S(r[3]);
  }
  return out;
}

}  // namespace sweep::e2e
