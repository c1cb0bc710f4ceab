// The HTTP transport (see http_server.h). Every Session's reads and writes
// run on the io thread; its request goes to a worker and its answer comes
// back to the io thread to be written.
#include "dashboard/http_server.h"

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <iterator>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "common/posix_error.h"

namespace sweep {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// How many connections each address holds, and all together. Sessions end
// on the io thread or a worker's, so it has a lock of its own.
class ConnectionCounts {
 public:
  explicit ConnectionCounts(const HttpLimits& limits) : limits_(limits) {}

  enum class Verdict { kAdmitted, kAddressFull, kTotalFull };
  // Whether `address` may open one more; `over_total`: even past the total
  // (a waiting connection was just closed to make room).
  Verdict Admit(const std::string& address, bool over_total) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = per_address_.find(address);
    const int mine = it == per_address_.end() ? 0 : it->second;
    if (mine >= limits_.max_per_address) return Verdict::kAddressFull;
    if (total_ >= limits_.max_connections && !over_total) return Verdict::kTotalFull;
    ++per_address_[address];
    ++total_;
    return Verdict::kAdmitted;
  }

  void Release(const std::string& address) {
    std::lock_guard<std::mutex> lock(mu_);
    --total_;
    auto it = per_address_.find(address);
    if (it != per_address_.end() && --it->second == 0) per_address_.erase(it);
  }

 private:
  const HttpLimits& limits_;
  std::mutex mu_;
  int total_ = 0;                                     // guarded by mu_
  std::unordered_map<std::string, int> per_address_;  // guarded by mu_
};

}  // namespace

namespace {
class Session;
}  // namespace

struct HttpServer::Impl {
  Impl(HttpHandler h, int workers_count, HttpLimits l)
      : handler(std::move(h)), limits(l), counts(limits), workers(workers_count) {}
  void Accept();
  // At the total cap: closes the connection that has waited longest for
  // its request (idle, or sending slowly), so that a full dashboard still
  // takes a new client. False when none waits.
  bool EvictOldestWaiting();

  const HttpHandler handler;
  const HttpLimits limits;
  ConnectionCounts counts;  // outlives the sessions the io_context still holds
  // The sessions waiting for a request, oldest first (io thread only).
  std::map<uint64_t, std::weak_ptr<Session>> waiting;
  uint64_t wait_seq = 0;
  asio::io_context io{1};
  tcp::acceptor acceptor{io};
  asio::steady_timer retry{io};  // accepting again after running out of descriptors
  asio::thread_pool workers;     // destroyed first: joined before io goes
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, HttpServer::Impl* server, std::string address)
      : stream_(std::move(socket)),
        server_(server),
        limits_(server->limits),
        address_(std::move(address)),
        buffer_(limits_.max_header_bytes + limits_.max_body_bytes + 1024) {}
  ~Session() {
    if (wait_id_) server_->waiting.erase(wait_id_);
    server_->counts.Release(address_);
  }

  // Closed to make room: its read ends with an error and it goes.
  void Evict() {
    wait_id_ = 0;
    beast::error_code ignored;
    stream_.socket().close(ignored);
  }

  void Read() {
    wait_id_ = ++server_->wait_seq;
    server_->waiting[wait_id_] = weak_from_this();
    parser_.emplace();
    parser_->header_limit(limits_.max_header_bytes);
    parser_->body_limit(limits_.max_body_bytes);
    stream_.expires_after(limits_.request_timeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnRead(ec); });
  }

 private:
  void OnRead(beast::error_code ec) {
    if (wait_id_) server_->waiting.erase(std::exchange(wait_id_, 0));
    if (ec == http::error::header_limit || ec == http::error::buffer_overflow)
      return Refuse(431, "the request's line and headers pass " +
                             std::to_string(limits_.max_header_bytes) + " bytes");
    if (ec == http::error::body_limit)
      return Refuse(413, "the request's body passes " + std::to_string(limits_.max_body_bytes) +
                             " bytes (the dashboard takes none)");
    if (ec == http::error::end_of_stream || ec == http::error::partial_message) return Close();
    if (ec.category() == http::make_error_code(http::error::end_of_stream).category())
      return Refuse(400, "not an HTTP/1.1 request: " + ec.message());
    if (ec) return Close();  // timed out (closed), reset, or stopping
    const auto& req = parser_->get();
    size_t fields = std::distance(req.begin(), req.end());
    if (fields > limits_.max_header_count)
      return Refuse(431, "the request has " + std::to_string(fields) + " headers; " +
                             std::to_string(limits_.max_header_count) + " at most");
    HttpRequest request;
    request.method = std::string(req.method_string());
    std::string_view target(req.target().data(), req.target().size());
    size_t q = target.find('?');
    request.path = PercentDecode(target.substr(0, q), false);
    if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
    auto header = [&](http::field f) {
      auto it = req.find(f);
      return it == req.end() ? std::string() : std::string(it->value());
    };
    request.host = header(http::field::host);
    request.cookie = header(http::field::cookie);
    request.authorization = header(http::field::authorization);
    head_ = req.method() == http::verb::head;
    keep_alive_ = req.keep_alive();
    stream_.expires_never();  // the worker's time is the queue's and the handler's
    auto queued = Clock::now();
    asio::post(server_->workers, [self = shared_from_this(), request = std::move(request), queued] {
      auto answer = std::make_shared<HttpAnswer>();
      if (Clock::now() - queued > self->limits_.queue_timeout) {
        answer->SetError(503, "the dashboard is busy: the request waited too long; ask again");
      } else {
        try {
          self->server_->handler(request, answer.get());
        } catch (const std::exception& e) {
          *answer = HttpAnswer();
          answer->SetError(500, std::string("the dashboard failed: ") + e.what());
        }
      }
      // An answer that refuses (401, 403, 405, ...) ends the connection: a
      // client without the token cannot hold one open with requests.
      const bool close = answer->status >= 400;
      asio::post(self->stream_.get_executor(),
                 [self, answer, close] { self->Write(answer, close); });
    });
  }

  // Answers `status` and closes: the connection's bytes can no longer be
  // trusted to start a request.
  void Refuse(int status, const std::string& why) {
    auto answer = std::make_shared<HttpAnswer>();
    answer->SetError(status, why);
    head_ = false;
    linger_ = true;
    Write(answer, true);
  }

  void Write(std::shared_ptr<HttpAnswer> answer, bool close) {
    answer_ = std::move(answer);
    res_.emplace();
    res_->version(11);
    res_->result(static_cast<unsigned>(answer_->status));
    for (const auto& [name, value] : answer_->headers) res_->set(name, value);
    if (!answer_->content_type.empty()) res_->set(http::field::content_type, answer_->content_type);
    res_->keep_alive(keep_alive_ && !close);
    if (head_) {
      res_->content_length(answer_->body.size());
    } else {
      res_->body() =
          http::span_body<const char>::value_type(answer_->body.data(), answer_->body.size());
      res_->prepare_payload();
    }
    serializer_.emplace(*res_);
    stream_.expires_after(limits_.write_timeout);
    auto done = [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWrite(ec); };
    if (head_) {
      http::async_write_header(stream_, *serializer_, std::move(done));
    } else {
      http::async_write(stream_, *serializer_, std::move(done));
    }
  }

  void OnWrite(beast::error_code ec) {
    bool again = !ec && res_->keep_alive();
    serializer_.reset();
    res_.reset();
    answer_.reset();
    if (ec) return;
    if (!again) return linger_ ? Linger() : Close();
    Read();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.close();
  }

  // After refusing a request whose bytes were not all read: the answer is
  // sent and the sending side shut, and what the client still sends is
  // read and dropped (2 s in all, however much it sends) before the close,
  // so that the close does not reset the connection and lose the answer on
  // its way.
  void Linger() {
    if (!lingering_) {
      lingering_ = true;
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
      stream_.expires_after(std::chrono::seconds(2));
    }
    stream_.async_read_some(asio::buffer(drain_),
                            [self = shared_from_this()](beast::error_code ec, size_t) {
                              if (ec) return self->stream_.close();
                              self->Linger();
                            });
  }

  using Response = http::response<http::span_body<const char>>;
  beast::tcp_stream stream_;
  HttpServer::Impl* const server_;
  const HttpLimits& limits_;
  const std::string address_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  bool head_ = false;
  bool keep_alive_ = false;
  bool linger_ = false;     // refused mid-request: Linger before the close
  bool lingering_ = false;  // Linger's deadline is set
  uint64_t wait_id_ = 0;    // its key in server_->waiting while it waits
  char drain_[4096];
  std::shared_ptr<HttpAnswer> answer_;  // what res_'s body points into
  std::optional<Response> res_;
  std::optional<http::response_serializer<http::span_body<const char>>> serializer_;
};

// A connection over a cap gets this and is closed; written without waiting
// (it is short enough for any socket buffer), so a client that reads
// nothing costs nothing.
void RefuseConnection(tcp::socket socket, const std::string& why) {
  std::string body = "{\"error\":\"" + why + "; close some and ask again\"}\n";
  std::string text = "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n" +
                     std::string("Content-Type: application/json; charset=utf-8\r\n") +
                     "Retry-After: 1\r\nContent-Length: " + std::to_string(body.size()) +
                     "\r\n\r\n" + body;
  beast::error_code ignored;
  socket.non_blocking(true, ignored);
  socket.send(asio::buffer(text), 0, ignored);
  socket.shutdown(tcp::socket::shutdown_send, ignored);
  socket.close(ignored);
}

// Who a connection counts against: its address, or for IPv6 its /64 (one
// host commonly holds a whole /64).
std::string Peer(const tcp::socket& socket) {
  beast::error_code ec;
  tcp::endpoint peer = socket.remote_endpoint(ec);
  if (ec) return "";
  asio::ip::address a = peer.address();
  if (!a.is_v6() || a.to_v6().is_v4_mapped()) return a.to_string();
  asio::ip::address_v6::bytes_type b = a.to_v6().to_bytes();
  std::fill(b.begin() + 8, b.end(), 0);
  return asio::ip::address_v6(b).to_string() + "/64";
}

}  // namespace

bool HttpServer::Impl::EvictOldestWaiting() {
  while (!waiting.empty()) {
    std::shared_ptr<Session> s = waiting.begin()->second.lock();
    waiting.erase(waiting.begin());
    if (!s) continue;
    s->Evict();
    return true;
  }
  return false;
}

void HttpServer::Impl::Accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
    if (ec) {
      // Out of descriptors or memory, or another error: accepting again at
      // once would spin this thread, which every connection needs.
      retry.expires_after(std::chrono::milliseconds(100));
      retry.async_wait([this](beast::error_code) { Accept(); });
      return;
    }
    const std::string address = Peer(socket);
    using V = ConnectionCounts::Verdict;
    V verdict = counts.Admit(address, false);
    if (verdict == V::kTotalFull && EvictOldestWaiting()) verdict = counts.Admit(address, true);
    if (verdict == V::kAdmitted) {
      std::make_shared<Session>(std::move(socket), this, address)->Read();
    } else if (verdict == V::kAddressFull) {
      RefuseConnection(std::move(socket), "your address has " +
                                              std::to_string(limits.max_per_address) +
                                              " connections open, the most one address may");
    } else {
      RefuseConnection(std::move(socket), "the dashboard has " +
                                              std::to_string(limits.max_connections) +
                                              " connections open and none idle, its most");
    }
    Accept();
  });
}

HttpServer::HttpServer(HttpHandler handler, int workers, HttpLimits limits)
    : impl_(std::make_unique<Impl>(std::move(handler), workers, limits)) {}

HttpServer::~HttpServer() {
  Stop();
  impl_->workers.join();
}

Result<int> HttpServer::Bind(const std::string& host, int port) {
  beast::error_code ec;
  tcp::resolver resolver(impl_->io);
  auto found = resolver.resolve(host, std::to_string(port),
                                tcp::resolver::numeric_service | tcp::resolver::passive, ec);
  if (ec || found.empty())
    return Status::Unavailable("--bind " + host + ": no such address (" + ec.message() + ")");
  tcp::endpoint at = found.begin()->endpoint();
  tcp::acceptor& a = impl_->acceptor;
  a.open(at.protocol(), ec);
  if (!ec) a.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) a.bind(at, ec);
  if (!ec) a.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    a.close();
    return PosixError("cannot listen there", ec.value(), "is another program using the port?");
  }
  impl_->Accept();
  return static_cast<int>(a.local_endpoint().port());
}

void HttpServer::Run() { impl_->io.run(); }

void HttpServer::Stop() { impl_->io.stop(); }

}  // namespace sweep
