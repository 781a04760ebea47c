// A small HTTP/1.1 server (Boost.Beast) for a few JSON endpoints, running on a caller's
// io_context: every handler runs on that loop's thread, and nothing here blocks it (reads and
// writes are asynchronous, idle connections time out, the number of connections is bounded).
//
// By default it binds 127.0.0.1. When bound to a loopback address it also refuses requests
// whose Host header names another host, so a web page elsewhere cannot read it through DNS
// rebinding. POST is passed to the handler only from a loopback peer with a loopback Host name
// (whatever the bind address), so a request that changes something comes from this machine and
// from a page served by this server; the handler checks its token.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparse::web {

struct HttpRequest {
  std::string method;  // GET, HEAD or POST (others are answered 405 before a handler sees them)
  std::string path;    // percent-decoded, without the query
  std::vector<std::string> segments;         // the path's non-empty segments, each percent-decoded
  std::map<std::string, std::string> query;  // percent-decoded
  std::string token;                         // the X-Sparse-Token header, if any
};

// The header a POST carries its token in.
inline constexpr const char* kTokenHeader = "X-Sparse-Token";

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::map<std::string, std::string> headers;  // extra headers
};

// An error in Storm UI's shape, for every error the server answers (400, 403, 404, 405, 500):
// {"error": "<reason phrase>", "errorMessage": "<message>"}, not cached.
HttpResponse JsonError(int status, const std::string& message);

// Decodes %XX and (in queries) '+'. Invalid escapes are kept as they are.
std::string PercentDecode(std::string_view text, bool plus_is_space);
// Splits a request target into a decoded path and query parameters.
HttpRequest ParseTarget(std::string_view target);

using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

// What a connection does with one request's bytes, without a socket (for tests and fuzzing):
// parses them with the server's limits and answers as the server would (the method and Host
// checks, then `handler` with the parsed target). nullopt when the bytes are not one complete,
// well-formed request within the limits: a connection drops those unanswered.
// `peer_loopback`: the request came from a loopback address.
std::optional<HttpResponse> AnswerRequestBytes(std::string_view bytes, bool loopback,
                                               const HttpHandler& handler,
                                               bool peer_loopback = true);

class HttpServer {
 public:
  using Handler = HttpHandler;

  // Binds and listens immediately; throws std::runtime_error naming the address on failure.
  // `port` 0 lets the OS choose a free port (see port()). Call Start() to accept.
  HttpServer(boost::asio::io_context& io, const std::string& address, std::uint16_t port,
             Handler handler);
  ~HttpServer();  // Stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  void Start();
  // Closes the listening socket and every open connection. Idempotent. Must run on the loop's
  // thread (or when the loop is not running).
  void Stop();

  std::uint16_t port() const { return port_; }
  const std::string& address() const { return address_; }
  std::string Url() const;  // http://ADDRESS:PORT/ (loopback when bound to 0.0.0.0 or ::)

  struct Shared;  // what connections share with the server (implementation detail)

 private:
  void Accept();

  std::string address_;
  std::uint16_t port_ = 0;
  boost::asio::ip::tcp::acceptor acceptor_;
  std::shared_ptr<Shared> shared_;  // what connections need, outliving the server if need be
};

}  // namespace sparse::web
