// Which study gets an idle runner: a pure policy over the studies that have
// work, what each has running and what the runner can do. The dispatcher
// asks it; it never touches sockets, leases or studies, so a test scripts
// it with plain values (tests/tuner/assign_policy_test.cc). Round robin
// today; the service's fair share replaces it behind the same call.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sweep {

// What a study's trials need of a runner.
struct RunnerNeeds {
  int gpus = 0;           // resources.gpus_per_trial (CUDA devices)
  bool commands = false;  // a command task: a runner with --allow-commands
  // Whether any runner can run it.
  bool None() const { return gpus == 0 && !commands; }
};

// One study, as the policy sees it.
struct StudyLoad {
  int64_t study_id = 0;
  // Whether it may still have a trial to start this turn (false once it
  // had none to give).
  bool has_work = true;
  // Runners whose current (front) trial is this study's.
  int64_t running = 0;
  // At most this many running at once (0: no limit): `max_concurrent`.
  int64_t max_running = 0;
  // Its weight in a fair share (a study's priority; > 0).
  double weight = 1;
  // Runner-seconds its trials have used so far (while admitted): between
  // studies equally far below their shares, the one that used less per
  // unit of weight goes first, so fractional shares even out over time.
  double used_s = 0;
  RunnerNeeds needs;
};

// The runner to give work to, and what it can run (from its Hello).
struct RunnerAbilities {
  std::string name;
  bool known = false;  // false: a runner that did not say (older): anything
  int gpus = 0;
  bool commands = false;
};

// Whether `runner` can run a trial that needs `needs`.
bool CanRun(const RunnerAbilities& runner, const RunnerNeeds& needs);
// What `runner` lacks to run such a trial ("it was started without
// --allow-commands"; "it has 0 GPUs, a trial needs 2"); "" when CanRun.
std::string Lacks(const RunnerAbilities& runner, const RunnerNeeds& needs);

struct AssignInput {
  // Every study, in the order they were admitted.
  std::vector<StudyLoad> studies;
  RunnerAbilities runner;
  // Runners in the pool (idle or not): what the fair shares divide.
  int64_t runners = 0;
  // The study the previous runner went to (nullopt: none yet), so that
  // round robin takes up after it.
  std::optional<int64_t> last_served;
};

class AssignPolicy {
 public:
  virtual ~AssignPolicy() = default;
  // The study the runner goes to, or nullopt when none may take it now.
  virtual std::optional<int64_t> Pick(const AssignInput& in) const = 0;
  // Whether runners are taken back from studies over their share for
  // studies below it (PlanPreemptions).
  virtual bool Preempts() const { return false; }
};

// Each study in turn, after the one served last, skipping studies without
// work, at their max_running, or whose trials the runner cannot run.
class RoundRobinPolicy : public AssignPolicy {
 public:
  std::optional<int64_t> Pick(const AssignInput& in) const override;
};

// Weighted fair share, work-conserving: the runner goes to the study
// furthest below its share (FairShares of the pool: share minus running),
// so that as runners free up each study's runners approach its share; a
// study without work or at its max_running is passed over, and its share
// goes to the others; so does a study whose trials this runner cannot run
// (a runner without GPUs for a study that needs them). Between studies equally far below, the one
// that used the least runner time per unit of weight goes first (shares of half a runner take
// turns), then in turn after the study served last. (Determined's fair-share scheduler fills shares
// the same way; taking runners back from a study over its share is preemption, not this policy's.)
class FairSharePolicy : public AssignPolicy {
 public:
  std::optional<int64_t> Pick(const AssignInput& in) const override;
  bool Preempts() const override { return true; }
};

// Each study's share of `runners` runners, in `studies`' order: weighted
// max-min fairness (progressive filling), where a study can use at most its
// max_running, and one without work no more than it runs now.
std::vector<double> FairShares(const std::vector<StudyLoad>& studies, int64_t runners);

// One runner to take back: from a trial of study `from`, for study `to`.
struct PreemptionMove {
  int64_t from = 0, to = 0;
};

// Which runners to take back now, so that a study with work at least a whole
// runner below its fair share gets one from a study at least a whole runner
// above its own (neediest first, from the most over first). `incoming`:
// runners already being taken back for each study (by id). Whole runners
// only: a study a fraction off its share is left alone, so shares that
// do not divide the runners never move a runner back and forth.
std::vector<PreemptionMove> PlanPreemptions(const std::vector<StudyLoad>& studies, int64_t runners,
                                            const std::vector<int64_t>& incoming);

}  // namespace sweep
