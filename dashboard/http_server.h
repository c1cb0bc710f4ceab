// The dashboard's HTTP/1.1 transport, on Boost.Beast and Asio: one thread
// reads and writes every connection, a pool of worker threads answers the
// requests (HttpHandler). A service's dashboard is reached by a team, so it
// stays up under hostile clients, with or without the token:
//  - connections are capped per address (an IPv6 /64 counts as one) and
//    in all; one over its address's cap gets a 503 and is closed at once;
//    at the total cap, the connection that has waited longest for its
//    request is closed to make room (so a full dashboard still takes a
//    new client), and only when none waits is the newcomer refused;
//  - a request (head and body) must arrive whole within request_timeout of
//    the server starting to wait for it, so a client sending a byte every
//    few seconds is closed like an idle one; an idle keep-alive connection
//    is closed after the same time;
//  - the request line and headers are capped in bytes and in count (431),
//    the body in bytes (413), before anything else is read or checked;
//  - a request that waited queue_timeout for a worker is answered 503
//    without being worked on, and an answer must be written within
//    write_timeout;
//  - an answer that refuses (4xx, 5xx) ends its connection, so a client
//    without the token cannot keep one open; a request refused before it
//    was read whole is answered, then drained for up to 2 s before the
//    close, so the answer is not lost to a reset.
// Nothing here knows the dashboard; server.cc wires it to the handler.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "common/status.h"
#include "dashboard/http.h"

namespace sweep {

struct HttpLimits {
  int max_connections = 256;  // open at once, every address together
  int max_per_address = 32;   // open at once from one address
  std::chrono::milliseconds request_timeout{10000};
  std::chrono::milliseconds queue_timeout{10000};
  std::chrono::milliseconds write_timeout{60000};
  size_t max_header_bytes = 16 << 10;  // request line and headers
  size_t max_header_count = 64;
  size_t max_body_bytes = 4096;
};

// Called on a worker thread; may block (a Reader's query).
using HttpHandler = std::function<void(const HttpRequest&, HttpAnswer*)>;

class HttpServer {
 public:
  HttpServer(HttpHandler handler, int workers, HttpLimits limits = {});
  ~HttpServer();

  // Listens on host:port (a name or an address; port 0 picks a free one)
  // and returns the port.
  Result<int> Bind(const std::string& host, int port);
  // Serves on the calling thread until Stop().
  void Run();
  // From any thread, before or during Run (Run then returns at once).
  void Stop();

  struct Impl;  // http_server.cc's alone (public so its sessions can name it)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace sweep
