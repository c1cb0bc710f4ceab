// fake_runners: many simulated runners in one process, for bench/service's
// scale part. Each is an authenticated (CURVE) DEALER socket that speaks the
// runner protocol (docs/protocol.md) and runs trials of --trial-ms (0:
// instant): Started when one begins, one Report and a completed Final when
// it ends. It measures,
// from the runner's side, the time from asking for work (its Hello, or the
// Final of its last trial when nothing else waits at it) to holding the
// next Assign, and counts every message and every trial the service
// acknowledged.
// Usage: fake_runners --connect EP --server-key FILE --keys K1.key,K2.key,...
//          --runners N --seconds S [--trial-ms MS]
// Prints one JSON object when done.
#include <zmq.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "common/clock.h"
#include "common/curve_keys.h"
#include "common/wire.h"

namespace sweep {
namespace {

struct Fake {
  void* sock = nullptr;
  std::string name;
  std::deque<pb::Assign> queued;  // Assigns not yet run
  int64_t asked_us = 0;           // when it last asked with nothing queued (0: not asking)
  int64_t due_ms = -1;            // when the front trial (started) ends; -1: none started
  bool joined = false;            // had its first Assign
  int64_t last_beat_ms = 0;
};

struct Totals {
  int64_t sent = 0, received = 0, assigns = 0, finals_acked = 0, rejects = 0, reregisters = 0;
  int64_t protocol_errors = 0, shutdowns = 0;
  std::vector<double> wait_ms;  // asking (a trial ended, nothing queued) to holding an Assign
  std::vector<double> join_ms;  // the first Hello to the first Assign (all connect at once)
};

void Send(Fake& f, pb::Envelope* env, Totals* t) {
  std::string bytes = EncodeEnvelope(env);
  if (zmq_send(f.sock, bytes.data(), bytes.size(), ZMQ_DONTWAIT) >= 0) ++t->sent;
}

void Hello(Fake& f, Totals* t) {
  pb::Envelope env;
  env.mutable_hello()->set_runner(f.name);
  env.mutable_hello()->set_host("fake");
  env.mutable_hello()->set_pid(1);
  env.mutable_hello()->set_device("none (simulated)");
  env.mutable_hello()->mutable_abilities()->set_backend("cpu");
  Send(f, &env, t);
  f.asked_us = NowUs();
}

// Starts the trial at the front: Started.
void StartFront(Fake& f, int64_t trial_ms, Totals* t) {
  const pb::Assign& a = f.queued.front();
  pb::Envelope started;
  started.mutable_started()->set_trial_id(a.trial_id());
  started.mutable_started()->set_lease(a.lease());
  Send(f, &started, t);
  f.due_ms = NowMs() + trial_ms;
}

// Ends the trial at the front: one Report, Final.
void EndFront(Fake& f, Totals* t) {
  const pb::Assign a = std::move(f.queued.front());
  f.queued.pop_front();
  f.due_ms = -1;
  const double value = static_cast<double>(a.trial_id() % 1000) / 1000;
  pb::Envelope report;
  report.mutable_report()->set_trial_id(a.trial_id());
  report.mutable_report()->set_lease(a.lease());
  report.mutable_report()->set_step(1);
  pb::Metric* m = report.mutable_report()->add_metrics();
  m->set_name("value");
  m->set_value(value);
  Send(f, &report, t);
  pb::Envelope final;
  final.mutable_final()->set_trial_id(a.trial_id());
  final.mutable_final()->set_lease(a.lease());
  final.mutable_final()->set_outcome(pb::TRIAL_OUTCOME_COMPLETED);
  final.mutable_final()->set_step(1);
  *final.mutable_final()->add_metrics() = *m;
  Send(f, &final, t);
  if (f.queued.empty()) f.asked_us = NowUs();
}

void Handle(Fake& f, const pb::Envelope& env, Totals* t) {
  ++t->received;
  switch (env.body_case()) {
    case pb::Envelope::kAssign:
      ++t->assigns;
      if (f.asked_us > 0 && f.queued.empty())
        (f.joined ? t->wait_ms : t->join_ms)
            .push_back(static_cast<double>(NowUs() - f.asked_us) / 1000);
      f.joined = true;
      f.asked_us = 0;
      f.queued.push_back(env.assign());
      break;
    case pb::Envelope::kAck:
      if (env.ack().final()) ++t->finals_acked;
      break;
    case pb::Envelope::kReject:
      ++t->rejects;
      for (size_t i = 0; i < f.queued.size(); ++i) {
        if (f.queued[i].trial_id() != env.reject().trial_id()) continue;
        if (i == 0) f.due_ms = -1;
        f.queued.erase(f.queued.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
      break;
    case pb::Envelope::kReregister:
      ++t->reregisters;
      f.queued.clear();
      f.due_ms = -1;
      Hello(f, t);
      break;
    case pb::Envelope::kError:
      ++t->protocol_errors;
      break;
    case pb::Envelope::kShutdown:
      ++t->shutdowns;
      break;
    default:
      break;
  }
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

int Main(int argc, char** argv) {
  std::string endpoint, server_key_file, key_files;
  int runners = 1000, heartbeat_ms = 1000;
  int64_t trial_ms = 0;
  double seconds = 60;
  CLI::App app{"simulated runners for bench/service"};
  app.add_option("--connect", endpoint)->required();
  app.add_option("--server-key", server_key_file)->required();
  app.add_option("--keys", key_files, "runner secret keys, comma-separated, used in turn")
      ->required();
  app.add_option("--runners", runners);
  app.add_option("--seconds", seconds);
  app.add_option("--heartbeat-ms", heartbeat_ms);
  app.add_option("--trial-ms", trial_ms, "how long each trial runs (0: instant)");
  CLI11_PARSE(app, argc, argv);
  auto server_key = ReadCurvePublicFile(server_key_file);
  if (!server_key.ok()) return fprintf(stderr, "%s\n", server_key.status().message().c_str()), 2;
  std::vector<CurveKeyPair> keys;
  for (size_t at = 0; at <= key_files.size();) {
    size_t comma = std::min(key_files.find(',', at), key_files.size());
    auto k = ReadCurveSecretFile(key_files.substr(at, comma - at));
    if (!k.ok()) return fprintf(stderr, "%s\n", k.status().message().c_str()), 2;
    keys.push_back(*k);
    at = comma + 1;
  }
  void* ctx = zmq_ctx_new();
  zmq_ctx_set(ctx, ZMQ_MAX_SOCKETS, runners + 16);
  std::vector<Fake> fakes(static_cast<size_t>(runners));
  Totals t;
  for (int i = 0; i < runners; ++i) {
    Fake& f = fakes[static_cast<size_t>(i)];
    f.name = "fake-" + std::to_string(i);
    f.sock = zmq_socket(ctx, ZMQ_DEALER);
    const CurveKeyPair& k = keys[static_cast<size_t>(i) % keys.size()];
    int linger = 0, hwm = 0;
    zmq_setsockopt(f.sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(f.sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt(f.sock, ZMQ_CURVE_SERVERKEY, server_key->data(), server_key->size());
    zmq_setsockopt(f.sock, ZMQ_CURVE_PUBLICKEY, k.public_key.data(), k.public_key.size());
    zmq_setsockopt(f.sock, ZMQ_CURVE_SECRETKEY, k.secret_key.data(), k.secret_key.size());
    if (zmq_connect(f.sock, endpoint.c_str()) != 0)
      return fprintf(stderr, "connect %s: %s\n", endpoint.c_str(), zmq_strerror(errno)), 2;
    Hello(f, &t);
  }
  std::vector<zmq_pollitem_t> items(fakes.size());
  for (size_t i = 0; i < fakes.size(); ++i) items[i] = {fakes[i].sock, 0, ZMQ_POLLIN, 0};
  const int64_t start_ms = NowMs(), end_ms = start_ms + static_cast<int64_t>(seconds * 1000);
  char buf[1 << 16];
  while (NowMs() < end_ms) {
    if (zmq_poll(items.data(), static_cast<int>(items.size()), trial_ms > 0 ? 1 : 10) < 0) break;
    const int64_t now_ms = NowMs();
    for (size_t i = 0; i < fakes.size(); ++i) {
      Fake& f = fakes[i];
      if (items[i].revents & ZMQ_POLLIN) {
        int n;
        while ((n = zmq_recv(f.sock, buf, sizeof buf, ZMQ_DONTWAIT)) >= 0) {
          auto env = DecodeEnvelope(buf, static_cast<size_t>(std::min<int>(n, sizeof buf)));
          if (env.ok()) Handle(f, *env, &t);
        }
      }
      while (!f.queued.empty()) {
        if (f.due_ms < 0) StartFront(f, trial_ms, &t);
        if (NowMs() < f.due_ms) break;
        EndFront(f, &t);
      }
      if (now_ms - f.last_beat_ms >= heartbeat_ms) {
        pb::Envelope beat;
        if (f.due_ms >= 0) {
          beat.mutable_heartbeat()->set_busy_trial(f.queued.front().trial_id());
          beat.mutable_heartbeat()->set_lease(f.queued.front().lease());
        } else {
          beat.mutable_heartbeat();
        }
        Send(f, &beat, &t);
        f.last_beat_ms = now_ms;
      }
    }
  }
  const double elapsed = static_cast<double>(NowMs() - start_ms) / 1000;
  for (Fake& f : fakes) zmq_close(f.sock);
  zmq_ctx_term(ctx);
  printf(
      "{\"runners\": %d, \"seconds\": %.1f, \"sent\": %lld, \"received\": %lld, "
      "\"messages_per_s\": %.0f, \"assigns\": %lld, \"finals_acked\": %lld, \"rejects\": %lld, "
      "\"reregisters\": %lld, \"protocol_errors\": %lld, \"shutdowns\": %lld, "
      "\"wait_ms_p50\": %.2f, \"wait_ms_p99\": %.2f, \"wait_ms_max\": %.2f, \"waits\": %zu, "
      "\"join_ms_p50\": %.2f, \"join_ms_max\": %.2f, \"joins\": %zu}\n",
      runners, elapsed, static_cast<long long>(t.sent), static_cast<long long>(t.received),
      static_cast<double>(t.sent + t.received) / elapsed, static_cast<long long>(t.assigns),
      static_cast<long long>(t.finals_acked), static_cast<long long>(t.rejects),
      static_cast<long long>(t.reregisters), static_cast<long long>(t.protocol_errors),
      static_cast<long long>(t.shutdowns), Percentile(t.wait_ms, 0.5), Percentile(t.wait_ms, 0.99),
      Percentile(t.wait_ms, 1.0), t.wait_ms.size(), Percentile(t.join_ms, 0.5),
      Percentile(t.join_ms, 1.0), t.join_ms.size());
  return 0;
}

}  // namespace
}  // namespace sweep

int main(int argc, char** argv) { return sweep::Main(argc, argv); }
