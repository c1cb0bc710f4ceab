// One HTTP request as the dashboard's handler sees it, and its answer: the
// seam between the transport (http_server.h, which reads and writes bytes
// under caps and deadlines) and what the dashboard answers (handler.h).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sweep {

struct HttpRequest {
  std::string method;  // "GET", "HEAD", ...
  std::string path;    // percent-decoded, without the query
  std::string query;   // as sent, after '?'
  // The headers the dashboard reads; empty when absent.
  std::string host;
  std::string cookie;
  std::string authorization;

  // The query parameter `name`, percent-decoded; empty when absent.
  std::string Param(std::string_view name) const;
};

struct HttpAnswer {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string content_type;
  // The body is a view of bytes `owner` keeps alive: an answer shared with
  // the cache (megabytes) or an asset built into the binary is not copied.
  std::string_view body;
  std::shared_ptr<const void> owner;

  void SetBody(std::string text, std::string type);
  void SetShared(std::shared_ptr<const std::string> text, std::string type);
  // {"error": message} with `status`.
  void SetError(int code, const std::string& message);
};

// "%41b+c" -> "Ab c" when `plus_is_space`; a bad escape stays as it is.
std::string PercentDecode(std::string_view text, bool plus_is_space);

}  // namespace sweep
