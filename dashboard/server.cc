// `sweep dashboard` (see server.h): parses the address, opens the Readers,
// and serves DashboardHandler over HttpServer until SIGINT or SIGTERM.
#include "dashboard/server.h"

#include <signal.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "dashboard/api.h"
#include "dashboard/handler.h"
#include "dashboard/http_server.h"

namespace sweep {
namespace {

Result<std::pair<std::string, int>> ParseBind(const std::string& bind) {
  size_t colon = bind.rfind(':');
  auto bad = Status::InvalidArgument("--bind " + bind +
                                     ": expected HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080");
  if (colon == std::string::npos || colon + 1 == bind.size()) return bad;
  std::string host = bind.substr(0, colon), port = bind.substr(colon + 1);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty() || port.size() > 5) return bad;
  for (char c : port)
    if (c < '0' || c > '9') return bad;
  int p = std::stoi(port);
  if (p > 65535) return bad;
  return std::make_pair(host, p);
}

std::string NewToken() {
  unsigned char bytes[16];
  if (getrandom(bytes, sizeof bytes, 0) != static_cast<ssize_t>(sizeof bytes)) return "";
  static const char* hex = "0123456789abcdef";
  std::string t;
  for (unsigned char b : bytes) t += hex[b >> 4], t += hex[b & 15];
  return t;
}

}  // namespace

Status ServeDashboard(const DashboardOptions& options) {
  ASSIGN_OR_RETURN(auto bind, ParseBind(options.bind));
  auto [host, port] = bind;
  bool loopback = IsLoopback(host);
  std::string token = options.token;
  if (!loopback && token.empty()) token = NewToken();
  if (!loopback && token.size() < 16)
    return Status::InvalidArgument(
        "--token: use at least 16 characters (or leave it out and "
        "one is made)");
  ASSIGN_OR_RETURN(auto version, Api::Open(options.db));
  std::vector<std::unique_ptr<Api>> apis;
  // More Readers than cores: a page asks for six answers at once, and a
  // small one (the summary) should not wait behind a big one (the curves).
  // One worker a Reader, so a worker never waits for one.
  unsigned readers = std::clamp(std::thread::hardware_concurrency(), 6u, 8u);
  for (unsigned i = 0; i < readers; ++i) {
    ASSIGN_OR_RETURN(auto api, Api::Open(options.db));
    apis.push_back(std::move(api));
  }
  // SIGINT and SIGTERM go to one thread that stops the server; every other
  // thread (the workers too) inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::unique_ptr<DashboardHandler> handler;
  HttpServer server([&](const HttpRequest& req, HttpAnswer* res) { handler->Serve(req, res); },
                    static_cast<int>(readers));
  auto bound = server.Bind(host, port);
  if (!bound.ok()) {
    // kUnavailable, as before: the address is taken or not ours, not a disk error.
    return Status::Unavailable("--bind " + options.bind + ": " + bound.status().message());
  }
  handler = std::make_unique<DashboardHandler>(std::move(version), std::move(apis), token, *bound);
  std::atomic<bool> stopping{false};
  std::thread warm([&] { handler->WarmUp(stopping); });
  std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  printf("sweep dashboard of %s at http://%s:%d/%s\n", options.db.c_str(), shown.c_str(), *bound,
         token.empty() ? "" : ("?token=" + token).c_str());
  if (!loopback) printf("(bound beyond loopback: every request needs the token)\n");
  fflush(stdout);
  // SIGUSR1 (from here) ends the stopper when the server ends on its own.
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    stopping = true;
    server.Stop();
  });
  server.Run();
  stopping = true;
  warm.join();
  pthread_kill(stopper.native_handle(), SIGUSR1);
  stopper.join();
  return Status::Ok();
}

}  // namespace sweep
