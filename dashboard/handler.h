// What the dashboard answers to one request (the transport is
// http_server.h): it checks the method, the Host and the token, then serves
// an asset, an API answer (cached until the next commit) or 404. Every
// answer carries a strict Content-Security-Policy and no-store.
// Thread-safe: each request takes one of the Apis of its own.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "dashboard/answer_cache.h"
#include "dashboard/api.h"
#include "dashboard/http.h"

namespace sweep {

// localhost, ::1, or an IPv4 address in 127.0.0.0/8, parsed: a name such as
// 127.0.0.1.attacker.example (DNS rebinding) is not loopback.
bool IsLoopback(const std::string& host);

class DashboardHandler {
 public:
  // `version` answers /api/version and says which version the cache is
  // at: PRAGMA data_version counts what one connection saw, so it must
  // always be the same one. `token` empty: loopback Hosts only.
  DashboardHandler(std::unique_ptr<Api> version, std::vector<std::unique_ptr<Api>> apis,
                   std::string token, int port);

  void Serve(const HttpRequest& req, HttpAnswer* res);

  // Reads the pages of the three studies changed last, unless a tuner runs
  // on the database (its next commit would make them stale, and it should
  // have the CPU): a first view a moment after `sweep dashboard` starts is
  // then served from memory, and one that comes sooner waits for the read
  // under way rather than starting its own. Stops between answers once
  // `stopping` is set.
  void WarmUp(const std::atomic<bool>& stopping);

 private:
  bool Allowed(const HttpRequest& req, HttpAnswer* res);
  void ServeAsset(const std::string& name, HttpAnswer* res);
  void ServeApi(const std::string& path, HttpAnswer* res);
  Result<std::shared_ptr<const std::string>> Cached(const std::string& path, double now);

  // Each request takes an Api of its own (a Reader is single-threaded), so
  // a study's views are read side by side.
  struct Lease {
    explicit Lease(DashboardHandler* h);
    ~Lease();
    DashboardHandler* handler;
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

}  // namespace sweep
