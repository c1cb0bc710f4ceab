// The dispatcher against a runner scripted message by message over a real
// ipc:// socket: races that real runners hit only now and then, made to
// happen every time.
#include "tuner/dispatcher.h"

#include <gtest/gtest.h>
#include <zmq.h>

#include "common/clock.h"
#include "common/wire.h"
#include "e2e/harness.h"
#include "search_spaces/study_parser.h"
#include "search_spaces/validate.h"
#include "tuner/event_loop.h"

namespace sweep {
namespace {

using e2e::TempDir;

// A runner that says only what the test tells it to.
class ScriptedRunner {
 public:
  explicit ScriptedRunner(const std::string& endpoint, const std::string& routing_id = "scripted") {
    ctx_ = zmq_ctx_new();
    sock_ = zmq_socket(ctx_, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt(sock_, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(sock_, ZMQ_ROUTING_ID, routing_id.data(), routing_id.size());
    EXPECT_EQ(zmq_connect(sock_, endpoint.c_str()), 0);
  }
  ~ScriptedRunner() {
    zmq_close(sock_);
    zmq_ctx_term(ctx_);
  }
  void Send(pb::Envelope env) {
    std::string bytes = EncodeEnvelope(&env);
    ASSERT_EQ(zmq_send(sock_, bytes.data(), bytes.size(), 0), static_cast<int>(bytes.size()));
  }
  // Hello as runner "scripted", holding `held` (trial id, lease) if given.
  void Hello(std::optional<std::pair<int64_t, uint64_t>> held = std::nullopt) {
    pb::Envelope env;
    env.mutable_hello()->set_runner("scripted");
    env.mutable_hello()->set_pid(1);
    if (held) {
      pb::HeldTrial* h = env.mutable_hello()->add_held();
      h->set_trial_id(held->first);
      h->set_lease(held->second);
    }
    Send(std::move(env));
  }
  // The next message that is not a heartbeat, if one came.
  std::optional<pb::Envelope> Receive() {
    char buf[1 << 16];
    while (true) {
      int n = zmq_recv(sock_, buf, sizeof buf, ZMQ_DONTWAIT);
      if (n < 0) return std::nullopt;
      auto env = DecodeEnvelope(buf, static_cast<size_t>(n));
      if (env.ok() && !env->has_heartbeat()) return *env;
    }
  }

 private:
  void* ctx_ = nullptr;
  void* sock_ = nullptr;
};

// Turns the loop until the runner receives a message `want` accepts.
std::optional<pb::Envelope> TurnUntil(EventLoop& loop, ScriptedRunner& runner,
                                      const std::function<bool(const pb::Envelope&)>& want,
                                      int timeout_ms) {
  const int64_t deadline = NowMs() + timeout_ms;
  while (NowMs() < deadline) {
    EXPECT_TRUE(loop.Turn(false).ok());
    while (auto env = runner.Receive())
      if (want(*env)) return env;
  }
  return std::nullopt;
}

pb::Study Study(const TempDir& dir, const std::string& name) {
  auto parsed = LoadStudyFile(dir.Write(
      name + ".yaml",
      "name: " + name +
          "\nobjective: {metric: value, goal: minimize}\n"
          "task: {synthetic: {function: branin, steps: 3}, stall_timeout_s: 1}\n"
          "algorithm: {type: random, max_trials: 5}\nparameters:\n"
          "  x1: {type: float, min: -5, max: 10}\n  x2: {type: float, min: 0, max: 15}\n"));
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(ValidateStudy(&*parsed).ok());
  return parsed->study;
}

auto Is(pb::Envelope::BodyCase c) {
  return [c](const pb::Envelope& e) { return e.body_case() == c; };
}

pb::Envelope Final(const pb::Assign& a) {
  pb::Envelope final;
  final.mutable_final()->set_trial_id(a.trial_id());
  final.mutable_final()->set_lease(a.lease());
  final.mutable_final()->set_outcome(pb::TRIAL_OUTCOME_COMPLETED);
  final.mutable_final()->set_step(3);
  return final;
}

TEST(DispatcherTest, ARemovedStudysLateMessagesAreRecordedNowhereAndItsRunnerServesTheNext) {
  TempDir dir;
  const std::string db = dir.File("d.db");
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto a = StudyRun::Open(store->get(), Study(dir, "a"), db + ".sweep");
  auto b = StudyRun::Open(store->get(), Study(dir, "b"), db + ".sweep");
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*store)->Commit().ok());
  DispatcherOptions o;
  o.bind = "ipc://" + dir.File("t.sock");
  o.heartbeat_ms = 100;
  o.liveness = 100;
  auto d = Dispatcher::Listen(o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EventLoop loop(store->get(), d->get(), o.heartbeat_ms);
  loop.Add(a->get());  // first: round robin offers the runner to it
  loop.Add(b->get());

  ScriptedRunner runner(o.bind);
  runner.Hello();
  auto assign = TurnUntil(loop, runner, Is(pb::Envelope::kAssign), 10000);
  ASSERT_TRUE(assign);
  ASSERT_TRUE((*a)->Owns(assign->assign().trial_id()));
  loop.Remove((*a)->id());
  auto reject = TurnUntil(loop, runner, Is(pb::Envelope::kReject), 10000);
  ASSERT_TRUE(reject);
  EXPECT_NE(reject->reject().reason().find("removed"), std::string::npos);
  // The trial ended before the runner heard, and its report and Final (sent
  // twice, as after a reconnect) reach a tuner where its study is gone.
  pb::Envelope report;
  report.mutable_report()->set_trial_id(assign->assign().trial_id());
  report.mutable_report()->set_lease(assign->assign().lease());
  report.mutable_report()->set_step(1);
  runner.Send(std::move(report));
  runner.Send(Final(assign->assign()));
  runner.Send(Final(assign->assign()));
  int reregisters = 0;
  TurnUntil(
      loop, runner,
      [&](const pb::Envelope& e) {
        reregisters += e.has_reregister();
        return false;
      },
      1500);
  EXPECT_EQ(reregisters, 1) << "asked to register again once";
  // Nothing about them was written as the other study's.
  EXPECT_EQ(e2e::QueryInt(db,
                          "SELECT count(*) FROM events WHERE kind LIKE '%rejected' AND "
                          "study_id=" +
                              std::to_string((*b)->id())),
            0);
  runner.Hello();
  auto next = TurnUntil(loop, runner, Is(pb::Envelope::kAssign), 5000);
  ASSERT_TRUE(next) << "the runner was left idle";
  EXPECT_TRUE((*b)->Owns(next->assign().trial_id()));
  (*d)->Shutdown("done");
}

TEST(DispatcherTest, ARunnerThatEndsATrialTakenBackAsHungIsAskedToRegisterAgain) {
  TempDir dir;
  const std::string db = dir.File("d.db");
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto study = StudyRun::Open(store->get(), Study(dir, "s"), db + ".sweep");
  ASSERT_TRUE(study.ok()) << study.status().message();
  ASSERT_TRUE((*store)->Commit().ok());
  DispatcherOptions o;
  o.bind = "ipc://" + dir.File("t.sock");
  o.heartbeat_ms = 100;
  o.liveness = 100;  // the scripted runner sends no heartbeats
  auto d = Dispatcher::Listen(o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EventLoop loop(store->get(), d->get(), o.heartbeat_ms);
  loop.Add(study->get());

  ScriptedRunner runner(o.bind);
  runner.Hello();
  auto assign = TurnUntil(loop, runner, Is(pb::Envelope::kAssign), 10000);
  ASSERT_TRUE(assign) << "no trial was assigned";
  pb::Envelope started;
  started.mutable_started()->set_trial_id(assign->assign().trial_id());
  started.mutable_started()->set_lease(assign->assign().lease());
  runner.Send(std::move(started));
  // No report within stall_timeout_s: the trial is taken back.
  ASSERT_TRUE(TurnUntil(loop, runner, Is(pb::Envelope::kReject), 10000));
  // The runner ended the trial before it heard: its Final is refused, and
  // with nothing left to stop it would never say Hello of itself.
  runner.Send(Final(assign->assign()));
  ASSERT_TRUE(TurnUntil(loop, runner, Is(pb::Envelope::kReregister), 5000))
      << "the runner was left idle, taking no more work";
  runner.Hello();
  EXPECT_TRUE(TurnUntil(loop, runner, Is(pb::Envelope::kAssign), 5000));
  (*d)->Shutdown("done");
}

TEST(DispatcherTest, WithoutKeysANameIsNotTakenFromALiveConnection) {
  // Issue 41: under --insecure a peer that said Hello{runner: "local-0"}
  // once a second kicked the real local-0 off its trial each time. Now a
  // live connection keeps its name; its own reconnect (holding its lease)
  // still takes the name over at once.
  TempDir dir;
  const std::string db = dir.File("d.db");
  auto store = Store::Open(db);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto study = StudyRun::Open(store->get(), Study(dir, "s"), db + ".sweep");
  ASSERT_TRUE(study.ok()) << study.status().message();
  ASSERT_TRUE((*store)->Commit().ok());
  DispatcherOptions o;  // no key pair: nobody authenticates
  o.bind = "ipc://" + dir.File("t.sock");
  o.heartbeat_ms = 100;
  o.liveness = 100;
  auto d = Dispatcher::Listen(o);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EventLoop loop(store->get(), d->get(), o.heartbeat_ms);
  loop.Add(study->get());

  ScriptedRunner real(o.bind, "real");
  real.Hello();
  auto assign = TurnUntil(loop, real, Is(pb::Envelope::kAssign), 10000);
  ASSERT_TRUE(assign);
  pb::Envelope started;
  started.mutable_started()->set_trial_id(assign->assign().trial_id());
  started.mutable_started()->set_lease(assign->assign().lease());
  real.Send(std::move(started));
  ScriptedRunner impostor(o.bind, "impostor");
  for (int i = 0; i < 3; ++i) {
    impostor.Hello();
    auto refused = TurnUntil(loop, impostor, Is(pb::Envelope::kError), 5000);
    ASSERT_TRUE(refused) << "attempt " << i;
    EXPECT_EQ(refused->error().reason(), kNameInUse);
    pb::Envelope beat;  // the real runner stays alive
    beat.mutable_heartbeat();
    real.Send(std::move(beat));
  }
  // The real runner kept its trial: its report and Final are taken.
  pb::Envelope report;
  report.mutable_report()->set_trial_id(assign->assign().trial_id());
  report.mutable_report()->set_lease(assign->assign().lease());
  report.mutable_report()->set_step(3);
  pb::Metric* m = report.mutable_report()->add_metrics();
  m->set_name("value");
  m->set_value(1.5);
  real.Send(std::move(report));
  real.Send(Final(assign->assign()));
  auto ack = TurnUntil(
      loop, real, [](const pb::Envelope& e) { return e.has_ack() && e.ack().final(); }, 5000);
  EXPECT_TRUE(ack) << "the real runner lost its trial to the impostor";
  EXPECT_EQ(e2e::QueryInt(db, "SELECT count(*) FROM trials WHERE status='completed'"), 1);
  // Its reconnect on a new connection, holding its next lease, is let in.
  auto next = TurnUntil(loop, real, Is(pb::Envelope::kAssign), 5000);
  ASSERT_TRUE(next);
  ScriptedRunner again(o.bind, "real-2");
  again.Hello(std::make_pair(next->assign().trial_id(), next->assign().lease()));
  // Its held trial comes back to it: the tuner acknowledges where it is.
  EXPECT_TRUE(TurnUntil(
      loop, again, [](const pb::Envelope& e) { return e.has_ack(); }, 5000))
      << "a reconnect holding its lease was refused";
  (*d)->Shutdown("done");
}

}  // namespace
}  // namespace sweep
