// `sweep serve`: one long-running Server (tuner/server.h) that runs many
// studies at once on one pool of runners, and takes requests on a control
// socket (tuner/control_socket.h): submit, pause, resume, cancel, set, and
// what it runs. Studies share the runners by weighted fair share (a study's
// priority is its weight, max_runners a cap; tuner/assign_policy.h). What
// a request changes is committed before it is answered, and a restarted
// service (kill -9 included) takes up every study it ran where it was,
// with its owner, priority and paused or cancelled state (docs/service.md).
// REQUIRES: external synchronization (one thread runs it).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "proto/sweep.pb.h"
#include "tuner/control_socket.h"
#include "tuner/server.h"
#include "tuner/slurm_launcher.h"

namespace sweep {

struct ServiceOptions {
  ServerOptions server;  // its `service` is set
  // A TCP endpoint for clients on other machines; needs server.keys_dir,
  // whose clients/ and admins/ hold their public keys.
  std::string control;
  // Runners asked of Slurm as the studies need them (docs/slurm.md).
  LaunchOptions launch;
};

class Service {
 public:
  // Starts the server, binds the control socket, writes where it is into
  // the database and re-admits the studies a previous service left running.
  static Result<std::unique_ptr<Service>> Start(const ServiceOptions& o);
  ~Service();

  // One turn: the server's (requests are handled inside it), then the
  // answers, once what they changed is durable.
  Status Turn(bool draining);
  // Ctrl-C or `sweep stop`: every study's running trials go back to its
  // queue (the next service resumes them), the runners are told to exit.
  Status Stop(const std::string& reason);
  const std::string& control_endpoint() const { return control_->endpoint(); }
  const std::string& remote_control_endpoint() const { return control_->remote_endpoint(); }
  Server& server() { return *server_; }

 private:
  explicit Service(const ServiceOptions& o) : o_(o) {}
  Status Readmit();
  // The TCP control endpoint's keys (o_.control and the keys folder).
  Result<std::optional<RemoteControl>> RemoteKeys() const;
  // The turn hook: requests, then the studies that are done.
  Status HandleRequests();
  pb::ControlReply Handle(const pb::ControlRequest& request, const ControlCaller& caller);
  // The requests (service_requests.cc). An error is the reply's.
  Result<pb::ControlReply> Submit(const pb::SubmitStudy& s, const ControlCaller& caller);
  Result<pb::ControlReply> Pause(const std::string& name, const ControlCaller& caller);
  Result<pb::ControlReply> Resume(const std::string& name, const ControlCaller& caller);
  Result<pb::ControlReply> Cancel(const std::string& name, const ControlCaller& caller);
  Result<pb::ControlReply> Set(const pb::SetStudy& s, const ControlCaller& caller);
  Result<pb::ControlReply> ListStudies();
  pb::ControlReply ListRunners();
  // Admits `spec` (resuming it if stored) with its owner, weight and cap,
  // stored as running.
  Result<StudyRun*> Admit(const pb::Study& spec, const std::string& owner, double priority,
                          int64_t max_runners);
  // The stored service study named `name` (owner set), checked that `user`
  // may act on it.
  Result<Store::ServiceStudyRow> Owned(const std::string& name, const ControlCaller& caller);
  // The admitted study named `name`, unless it leaves in this turn.
  StudyRun* Admitted(const std::string& name) const;
  // Takes a study out at the end of this turn (Server::Remove); until then
  // requests no longer find it admitted.
  void Leave(int64_t study_id, StudyRemoval how);
  // kUnavailable while study `study_id` leaves in this turn.
  Status NotLeaving(int64_t study_id, const std::string& name) const;
  // Each turn, for the studies pausing: those with no trial running leave,
  // paused; the others' trials that started since are asked to stop too.
  void AdvancePauses();
  // service_launch.cc: starts the launcher (--launcher slurm).
  Status StartLauncher();
  // Twice a second (checked each turn): what the launcher did goes into the
  // database (a refusal also to the studies it leaves without runners), and
  // it is told how many runners the studies lack, by the GPUs a trial needs.
  void FeedLauncher();
  // The launcher's events, stored (writes only; the turn commits).
  void StoreLaunchEvents();

  ServiceOptions o_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<ControlSocket> control_;
  std::vector<int64_t> admitted_;  // study ids, in the order admitted
  std::set<int64_t> leaving_;      // of those, the ones removed in this turn
  // Studies pausing (`sweep pause`): their running trials were asked to
  // stop at their next checkpoint; each leaves, paused, once none runs, or
  // kPauseGraceMs after the request (what still runs then goes back to its
  // queue, to go on from its last checkpoint).
  struct Pausing {
    std::string by;
    int64_t since_ms = 0;
  };
  std::map<int64_t, Pausing> pausing_;
  static constexpr int64_t kPauseGraceMs = 5 * 60 * 1000;
  // Answers waiting for the end of the turn (a removal, a commit).
  std::vector<std::pair<std::string, pb::ControlReply>> replies_;
  std::unique_ptr<SlurmLauncher> launcher_;
  int64_t last_fed_ms_ = 0;
  // By GPUs: the last refusal the studies were told of (told again only
  // when it changes).
  std::map<int, std::string> refusals_told_;
};

// What a paused trial's decision says paused it: "study paused by USER".
inline std::string PauseReason(const std::string& user) { return "study paused by " + user; }

// The service's command: runs until Ctrl-C or `sweep stop`. Exit code: 0
// stopped, 1 an error.
int RunService(const ServiceOptions& o);

}  // namespace sweep
