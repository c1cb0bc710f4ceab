// The dashboard's HTTP server (see server.h): one handler in front of every
// request checks the method, the host and the token, then serves an asset,
// an API answer or 404.
#include "dashboard/server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <signal.h>
#include <sys/random.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

#include "common/json.h"
#include "common/posix_error.h"
#include "dashboard/answer_cache.h"
#include "dashboard/api.h"
#include "dashboard/assets.h"
#include "storage/db_lock.h"

namespace sweep {
namespace {

// localhost, ::1, or an IPv4 address in 127.0.0.0/8, parsed: a name such as
// 127.0.0.1.attacker.example (DNS rebinding) is not loopback.
bool IsLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr v4;
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

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

// Compares in time that does not depend on where they differ.
bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char d = 0;
  for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i]);
  return d == 0;
}

// Browsers do not keep cookies apart by port: the cookie is named after it,
// so two dashboards on one host do not overwrite each other's.
std::string CookieToken(const httplib::Request& req, const std::string& name) {
  std::string cookies = req.get_header_value("Cookie");
  const std::string key = name + "=";
  for (size_t at = cookies.find(key); at != std::string::npos; at = cookies.find(key, at + 1)) {
    if (at != 0 && cookies[at - 1] != ' ' && cookies[at - 1] != ';') continue;
    size_t end = cookies.find(';', at);
    return cookies.substr(at + key.size(), end == std::string::npos ? end : end - at - key.size());
  }
  return "";
}

// The host part of a Host header ("127.0.0.1:8080", "[::1]:8080").
std::string HostName(const std::string& header) {
  if (!header.empty() && header.front() == '[') return header.substr(1, header.find(']') - 1);
  return header.substr(0, header.find(':'));
}

// The answers kept between commits, all studies together.
constexpr size_t kCacheBytes = 256 << 20;

void Error(httplib::Response& res, int code, const std::string& message) {
  res.status = code;
  std::string body = "{\"error\":";
  AppendJsonString(&body, message);
  res.set_content(body + "}\n", "application/json; charset=utf-8");
}

class Handler {
 public:
  // `version` answers /api/version and says which version the cache is
  // at: PRAGMA data_version counts what one connection saw, so it must
  // always be the same one.
  Handler(std::unique_ptr<Api> version, std::vector<std::unique_ptr<Api>> apis, std::string token,
          int port)
      : version_(std::move(version)),
        free_(std::move(apis)),
        token_(std::move(token)),
        cookie_("sweep_token_" + std::to_string(port)),
        cache_(kCacheBytes) {}

  void Serve(const httplib::Request& req, httplib::Response& res) {
    res.set_header("X-Content-Type-Options", "nosniff");
    res.set_header("Referrer-Policy", "no-referrer");
    res.set_header("Cache-Control", "no-store");
    res.set_header("Content-Security-Policy",
                   "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' "
                   "data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'");
    if (req.method != "GET" && req.method != "HEAD") {
      res.set_header("Allow", "GET, HEAD");
      return Error(res, 405, "the dashboard is read-only: only GET and HEAD are served");
    }
    if (!Allowed(req, res)) return;
    if (req.path == "/" || req.path == "/index.html") return ServeAsset("index.html", res);
    if (req.path.rfind("/assets/", 0) == 0) return ServeAsset(req.path.substr(8), res);
    if (req.path.rfind("/api/", 0) == 0) return ServeApi(req.path, res);
    Error(res, 404, req.path + ": no such page (the dashboard serves /, /assets/ and /api/)");
  }

 private:
  bool Allowed(const httplib::Request& req, httplib::Response& res) {
    if (token_.empty()) {
      if (!IsLoopback(HostName(req.get_header_value("Host")))) {
        Error(res, 403, "this dashboard answers only to a loopback Host (127.0.0.1, localhost)");
        return false;
      }
      return true;
    }
    std::string given = req.get_param_value("token");
    bool from_query = !given.empty();
    if (given.empty()) given = CookieToken(req, cookie_);
    if (given.empty()) {
      std::string auth = req.get_header_value("Authorization");
      if (auth.rfind("Bearer ", 0) == 0) given = auth.substr(7);
    }
    if (!SameSecret(given, token_)) {
      res.set_header("WWW-Authenticate", "Bearer");
      Error(res, 401, "this dashboard needs the token it printed when it started (?token=...)");
      return false;
    }
    if (from_query) {
      res.set_header("Set-Cookie", cookie_ + "=" + token_ + "; Path=/; HttpOnly; SameSite=Strict");
    }
    return true;
  }

  void ServeAsset(const std::string& name, httplib::Response& res) {
    const Asset* a = FindAsset(name);
    if (!a) return Error(res, 404, "/assets/" + name + ": no such asset");
    res.set_content(std::string(a->body), std::string(a->content_type));
  }

  void ServeApi(const std::string& path, httplib::Response& res) {
    double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    Result<std::string> json = Status::Internal("unanswered");
    std::shared_ptr<const std::string> answer;
    if (path == "/api/version") {
      std::lock_guard<std::mutex> lock(version_mu_);
      json = version_->Get(path, now);
    } else if (Api::Cacheable(path)) {
      auto got = Cached(path, now);
      if (got.ok()) {
        answer = *got;
      } else {
        json = got.status();
      }
    } else {
      Lease lease(this);  // back to the pool even if Get throws
      json = lease.api->Get(path, now);
    }
    if (!answer && !json.ok()) {
      return Error(res, json.status().code() == StatusCode::kNotFound ? 404 : 500,
                   json.status().message());
    }
    if (!answer) answer = std::make_shared<const std::string>(std::move(*json));
    // Sent from the shared copy, not copied into the response: a study's
    // trials are megabytes.
    res.set_content_provider(answer->size(), "application/json; charset=utf-8",
                             [answer](size_t offset, size_t length, httplib::DataSink& sink) {
                               return sink.write(answer->data() + offset,
                                                 std::min(length, answer->size() - offset));
                             });
  }

  // The answer at the database's version now, kept or made once. The
  // version is read before the answer, so an answer is at least as new as
  // the version it is kept under.
  Result<std::shared_ptr<const std::string>> Cached(const std::string& path, double now) {
    Result<int64_t> version = Status::Internal("unread");
    {
      std::lock_guard<std::mutex> lock(version_mu_);
      version = version_->reader().DataVersion();
    }
    if (!version.ok()) return version.status();
    return cache_.GetOrCompute(*version, path, [&]() -> Result<std::string> {
      Lease lease(this);  // back to the pool even if Get throws
      return lease.api->Get(path, now);
    });
  }

 public:
  // Reads the pages of the three studies changed last, unless a tuner runs
  // on the database (its next commit would make them stale, and it should
  // have the CPU): a first view a moment after `sweep dashboard` starts is
  // then served from memory, and one that comes sooner waits for the read
  // under way rather than starting its own. Stops between answers once
  // `stopping` is set.
  void WarmUp(const std::atomic<bool>& stopping) {
    auto holder = DbLock::Holder(version_->reader().path());
    if (!holder.ok() || *holder) return;
    Result<std::vector<StudySummary>> studies = Status::Internal("unread");
    {
      Lease lease(this);
      studies = lease.api->reader().StudySummaries(0);
    }
    if (!studies.ok()) return;
    std::sort(studies->begin(), studies->end(), [](const StudySummary& a, const StudySummary& b) {
      return a.updated_at > b.updated_at;
    });
    if (studies->size() > 3) studies->resize(3);
    for (const StudySummary& s : *studies) {
      for (const char* view : {"curves", "trials", "importance", "rungs", "lineage"}) {
        if (stopping) return;
        (void)Cached("/api/studies/" + std::to_string(s.ref.id) + "/" + view, 0);
      }
    }
  }

 private:
  // Each request takes an Api of its own (a Reader is single-threaded),
  // so a study's views are read side by side (more Readers than cores: see
  // ServeDashboard).
  struct Lease {
    explicit Lease(Handler* h) : handler(h) {
      std::unique_lock<std::mutex> lock(h->mu_);
      h->freed_.wait(lock, [&] { return !h->free_.empty(); });
      api = std::move(h->free_.back());
      h->free_.pop_back();
    }
    ~Lease() {
      {
        std::lock_guard<std::mutex> lock(handler->mu_);
        handler->free_.push_back(std::move(api));
      }
      handler->freed_.notify_one();
    }
    Handler* handler;
    std::unique_ptr<Api> api;
  };

  std::mutex version_mu_;
  std::unique_ptr<Api> version_;  // guarded by version_mu_
  std::mutex mu_;
  std::condition_variable freed_;
  std::vector<std::unique_ptr<Api>> free_;  // the Apis no request holds; guarded by mu_
  const std::string token_;
  const std::string cookie_;
  AnswerCache cache_;
};

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
  unsigned readers = std::clamp(std::thread::hardware_concurrency(), 6u, 8u);
  for (unsigned i = 0; i < readers; ++i) {
    ASSIGN_OR_RETURN(auto api, Api::Open(options.db));
    apis.push_back(std::move(api));
  }
  // SIGINT and SIGTERM go to one thread that stops the server; every other
  // thread (the server's pool too) inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  httplib::Server server;
  std::unique_ptr<Handler> handler;
  server.set_payload_max_length(4096);
  server.set_read_timeout(10, 0);
  server.set_keep_alive_max_count(1000);
  server.set_pre_routing_handler([&](const httplib::Request& req, httplib::Response& res) {
    handler->Serve(req, res);
    return httplib::Server::HandlerResponse::Handled;
  });
  int bound =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound < 0) {
    // kUnavailable, as before: the address is taken or not ours, not a disk error.
    return Status::Unavailable(PosixError("--bind " + options.bind + ": cannot listen there", errno,
                                          "is another program using the port?")
                                   .message());
  }
  handler = std::make_unique<Handler>(std::move(version), std::move(apis), token, bound);
  std::atomic<bool> stopping{false};
  std::thread warm([&] { handler->WarmUp(stopping); });
  std::string shown = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  printf("sweep dashboard of %s at http://%s:%d/%s\n", options.db.c_str(), shown.c_str(), bound,
         token.empty() ? "" : ("?token=" + token).c_str());
  if (!loopback) printf("(bound beyond loopback: every request needs the token)\n");
  fflush(stdout);
  // SIGUSR1 (from here) wakes the stopper when the server ends on its own.
  // A signal can come before listen_after_bind has started, when stop()
  // does nothing yet: the stopper repeats it until the server has ended.
  std::atomic<bool> signalled{false}, ended{false};
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (sig == SIGUSR1) return;
    signalled = true;
    while (!ended) {
      server.stop();
      usleep(10000);
    }
  });
  bool ok = server.listen_after_bind();
  int err = errno;
  ended = true;
  stopping = true;
  warm.join();
  if (!signalled) pthread_kill(stopper.native_handle(), SIGUSR1);
  stopper.join();
  if (!ok && !signalled) return PosixError("the dashboard's server stopped", err);
  return Status::Ok();
}

}  // namespace sweep
