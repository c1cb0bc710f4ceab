#include "dashboard/handler.h"

#include <arpa/inet.h>

#include <algorithm>
#include <chrono>

#include "dashboard/assets.h"
#include "storage/db_lock.h"

namespace sweep {
namespace {

// Compares in time that does not depend on where they differ.
bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char d = 0;
  for (size_t i = 0; i < a.size(); ++i) d |= static_cast<unsigned char>(a[i] ^ b[i]);
  return d == 0;
}

// Browsers do not keep cookies apart by port: the cookie is named after it,
// so two dashboards on one host do not overwrite each other's.
std::string CookieToken(const std::string& cookies, const std::string& name) {
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

}  // namespace

bool IsLoopback(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr v4;
  return inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127;
}

DashboardHandler::DashboardHandler(std::unique_ptr<Api> version,
                                   std::vector<std::unique_ptr<Api>> apis, std::string token,
                                   int port)
    : version_(std::move(version)),
      free_(std::move(apis)),
      token_(std::move(token)),
      cookie_("sweep_token_" + std::to_string(port)),
      cache_(kCacheBytes) {}

void DashboardHandler::Serve(const HttpRequest& req, HttpAnswer* res) {
  res->headers = {{"X-Content-Type-Options", "nosniff"},
                  {"Referrer-Policy", "no-referrer"},
                  {"Cache-Control", "no-store"},
                  {"Content-Security-Policy",
                   "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                   "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'"}};
  if (req.method != "GET" && req.method != "HEAD") {
    res->headers.emplace_back("Allow", "GET, HEAD");
    return res->SetError(405, "the dashboard is read-only: only GET and HEAD are served");
  }
  if (!Allowed(req, res)) return;
  if (req.path == "/" || req.path == "/index.html") return ServeAsset("index.html", res);
  if (req.path.rfind("/assets/", 0) == 0) return ServeAsset(req.path.substr(8), res);
  if (req.path.rfind("/api/", 0) == 0) return ServeApi(req.path, res);
  res->SetError(404, req.path + ": no such page (the dashboard serves /, /assets/ and /api/)");
}

bool DashboardHandler::Allowed(const HttpRequest& req, HttpAnswer* res) {
  if (token_.empty()) {
    if (!IsLoopback(HostName(req.host))) {
      res->SetError(403, "this dashboard answers only to a loopback Host (127.0.0.1, localhost)");
      return false;
    }
    return true;
  }
  std::string given = req.Param("token");
  bool from_query = !given.empty();
  if (given.empty()) given = CookieToken(req.cookie, cookie_);
  if (given.empty() && req.authorization.rfind("Bearer ", 0) == 0)
    given = req.authorization.substr(7);
  if (!SameSecret(given, token_)) {
    res->headers.emplace_back("WWW-Authenticate", "Bearer");
    res->SetError(401, "this dashboard needs the token it printed when it started (?token=...)");
    return false;
  }
  if (from_query) {
    res->headers.emplace_back("Set-Cookie",
                              cookie_ + "=" + token_ + "; Path=/; HttpOnly; SameSite=Strict");
  }
  return true;
}

void DashboardHandler::ServeAsset(const std::string& name, HttpAnswer* res) {
  const Asset* a = FindAsset(name);
  if (!a) return res->SetError(404, "/assets/" + name + ": no such asset");
  res->body = a->body;  // built into the binary: nothing to keep alive
  res->content_type = std::string(a->content_type);
}

void DashboardHandler::ServeApi(const std::string& path, HttpAnswer* res) {
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
    return res->SetError(json.status().code() == StatusCode::kNotFound ? 404 : 500,
                         json.status().message());
  }
  if (!answer) answer = std::make_shared<const std::string>(std::move(*json));
  // Sent from the shared copy, not copied into the answer: a study's trials
  // are megabytes.
  res->SetShared(std::move(answer), "application/json; charset=utf-8");
}

// The answer at the database's version now, kept or made once. The version
// is read before the answer, so an answer is at least as new as the version
// it is kept under.
Result<std::shared_ptr<const std::string>> DashboardHandler::Cached(const std::string& path,
                                                                    double now) {
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

void DashboardHandler::WarmUp(const std::atomic<bool>& stopping) {
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
    for (const char* view : {"curves", "trials", "importance", "rungs", "lineage", "front"}) {
      if (stopping) return;
      (void)Cached("/api/studies/" + std::to_string(s.ref.id) + "/" + view, 0);
    }
  }
}

DashboardHandler::Lease::Lease(DashboardHandler* h) : handler(h) {
  std::unique_lock<std::mutex> lock(h->mu_);
  h->freed_.wait(lock, [&] { return !h->free_.empty(); });
  api = std::move(h->free_.back());
  h->free_.pop_back();
}

DashboardHandler::Lease::~Lease() {
  {
    std::lock_guard<std::mutex> lock(handler->mu_);
    handler->free_.push_back(std::move(api));
  }
  handler->freed_.notify_one();
}

}  // namespace sweep
