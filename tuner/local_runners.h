// Local runner processes started and supervised by the tuner: restarted when
// they die, killed with the tuner (PR_SET_PDEATHSIG), and deaf to Ctrl-C so
// that the tuner alone decides how a sweep stops.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace sweep {

// A runner that dies within this long of its start counts as a quick death.
inline constexpr int64_t kQuickDeathMs = 10000;
// How long a slot waits after its runner died before starting another:
// 1 s, doubling with each quick death in a row, at most 30 s.
int64_t RestartDelayMs(int quick_deaths);

class LocalRunners {
 public:
  LocalRunners(std::string exe, std::string endpoint, int count, int heartbeat_ms);
  ~LocalRunners();
  // Extra arguments for slot i's runner (e.g. --backend cuda --gpus 0).
  void SetArgs(int i, std::vector<std::string> args) {
    slots_[static_cast<size_t>(i)].args = std::move(args);
  }
  // Slot i's runner gets `text` (its CURVE keys and the tuner's public key)
  // on an inherited descriptor, never on its command line or environment.
  void SetKeys(int i, std::string text) { slots_[static_cast<size_t>(i)].keys = std::move(text); }
  void StartAll();
  struct Death {
    pid_t pid;
    std::string how;  // "killed by signal 9", "exited with code 3"
  };
  // Reaps dead children and restarts them, with back-off for a slot whose
  // runners keep dying soon after they start (RestartDelayMs). Returns the
  // number restarted; the runners that died are appended to `died` (the
  // tuner need not wait for their heartbeats to stop).
  int Supervise(bool restart, std::vector<Death>* died = nullptr);
  // Slots whose runner refused to start (exit code 2: a bad flag, no such
  // device); they are not restarted.
  int refused() const;
  // SIGTERM to every runner, without waiting (StopAll or the destructor
  // waits).
  void SignalAll();
  // SIGTERM, then SIGKILL after `grace_ms`; reaps them all.
  void StopAll(int grace_ms);
  int count() const { return static_cast<int>(slots_.size()); }

 private:
  struct Slot {
    pid_t pid = -1;
    int64_t started_ms = 0;
    int64_t died_ms = 0;
    int quick_deaths = 0;  // in a row, each within kQuickDeathMs of its start
    int restarts = 0;
    std::vector<std::string> args;
    std::string keys;
    bool refused = false;
  };
  pid_t Spawn(int index);

  std::string exe_;
  std::string endpoint_;
  int heartbeat_ms_;
  std::vector<Slot> slots_;
  int core_share_fd_ = -1;  // the runners' core share (a memfd), handed to each
};

}  // namespace sweep
