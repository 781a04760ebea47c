#include "web/http_server.hpp"

#include <boost/asio/ip/address.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <stdexcept>

namespace sparse::web {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr auto kIdleTimeout = std::chrono::seconds(30);
constexpr std::size_t kMaxConnections = 64;
constexpr std::size_t kMaxHeaderBytes = 8 * 1024;
constexpr std::size_t kMaxBodyBytes = 16 * 1024;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The host part of a Host header ("name", "name:port", "[v6]:port").
std::string_view HostName(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    const auto close = host.find(']');
    return close == std::string_view::npos ? host : host.substr(0, close + 1);
  }
  const auto colon = host.rfind(':');
  return colon == std::string_view::npos ? host : host.substr(0, colon);
}

bool IsLoopbackName(std::string_view name) {
  if (name == "localhost" || name == "[::1]") return true;
  boost::system::error_code ec;
  const auto a = asio::ip::make_address(std::string(name), ec);
  return !ec && a.is_loopback();
}

// The server's limits on what it reads of a request.
void Limit(http::request_parser<http::string_body>& parser) {
  parser.header_limit(kMaxHeaderBytes);
  parser.body_limit(kMaxBodyBytes);
}

// The answer to one parsed request: only GET, HEAD and POST; only loopback Host names when bound
// to a loopback address; POST only from a loopback peer naming a loopback host; then the handler
// with the parsed target (its exceptions become a 500).
HttpResponse Answer(const http::request<http::string_body>& req, bool loopback,
                    const HttpHandler& handler, bool peer_loopback) {
  const bool post = req.method() == http::verb::post;
  if (req.method() != http::verb::get && req.method() != http::verb::head && !post) {
    HttpResponse bad = JsonError(405, "only GET, HEAD and POST");
    bad.headers["Allow"] = "GET, HEAD, POST";
    return bad;
  }
  const auto host = req.find(http::field::host);
  const bool loopback_host =
      host != req.end() &&
      IsLoopbackName(HostName(std::string_view(host->value().data(), host->value().size())));
  if (loopback && host != req.end() && !loopback_host) {
    return JsonError(403, "this server only answers requests for a loopback host name");
  }
  if (post && !(peer_loopback && loopback_host)) {
    return JsonError(403, "POST is only accepted from this machine, for a loopback host name");
  }
  try {
    HttpRequest parsed = ParseTarget(std::string_view(req.target().data(), req.target().size()));
    parsed.method = std::string(req.method_string());
    if (const auto t = req.find(kTokenHeader); t != req.end()) {
      parsed.token = std::string(t->value().data(), t->value().size());
    }
    return handler(parsed);
  } catch (const std::exception& e) {
    return JsonError(500, std::string("internal error: ") + e.what());
  }
}

}  // namespace

HttpResponse JsonError(int status, const std::string& message) {
  HttpResponse r;
  r.status = status;
  const auto reason = http::obsolete_reason(static_cast<http::status>(status));
  r.body = nlohmann::json{{"error", std::string(reason.data(), reason.size())},
                          {"errorMessage", message}}
               .dump();
  r.headers["Cache-Control"] = "no-store";
  return r;
}

std::string PercentDecode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%' && i + 2 < text.size()) {
      const int hi = HexValue(text[i + 1]), lo = HexValue(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        continue;
      }
    }
    out += (plus_is_space && c == '+') ? ' ' : c;
  }
  return out;
}

HttpRequest ParseTarget(std::string_view target) {
  HttpRequest r;
  const auto q = target.find('?');
  const std::string_view raw_path = target.substr(0, q);
  r.path = PercentDecode(raw_path, false);
  for (std::size_t start = 0; start <= raw_path.size();) {
    const auto slash = std::min(raw_path.find('/', start), raw_path.size());
    if (slash > start)
      r.segments.push_back(PercentDecode(raw_path.substr(start, slash - start), false));
    start = slash + 1;
  }
  if (q == std::string_view::npos) return r;
  std::string_view rest = target.substr(q + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    const std::string key = PercentDecode(pair.substr(0, eq), true);
    const std::string value =
        eq == std::string_view::npos ? "" : PercentDecode(pair.substr(eq + 1), true);
    r.query.emplace(key, value);
  }
  return r;
}

std::optional<HttpResponse> AnswerRequestBytes(std::string_view bytes, bool loopback,
                                               const HttpHandler& handler, bool peer_loopback) {
  http::request_parser<http::string_body> parser;
  Limit(parser);
  parser.eager(true);
  beast::error_code ec;
  while (!parser.is_done() && !bytes.empty()) {
    const std::size_t used = parser.put(asio::buffer(bytes.data(), bytes.size()), ec);
    if (ec || used == 0) return std::nullopt;
    bytes.remove_prefix(used);
  }
  if (!parser.is_done()) return std::nullopt;
  return Answer(parser.get(), loopback, handler, peer_loopback);
}

namespace detail {
class HttpSession;
}  // namespace detail

struct HttpServer::Shared {
  Handler handler;
  bool loopback = true;
  bool stopped = false;
  std::set<detail::HttpSession*> sessions;
};

namespace detail {

// One connection: read a request, answer it, and go on while the client keeps it alive.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  using Shared = HttpServer::Shared;
  HttpSession(tcp::socket socket, std::shared_ptr<Shared> shared)
      : stream_(std::move(socket)), shared_(std::move(shared)) {
    shared_->sessions.insert(this);
  }
  ~HttpSession() { shared_->sessions.erase(this); }

  void Start() { Read(); }
  void Close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ec);
    stream_.socket().close(ec);
  }

 private:
  void Read() {
    parser_.emplace();
    Limit(*parser_);
    stream_.expires_after(kIdleTimeout);
    http::async_read(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, std::size_t) { self->OnRead(ec); });
  }

  void OnRead(beast::error_code ec) {
    if (ec == http::error::end_of_stream) {
      stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
      return;
    }
    if (ec || shared_->stopped) return;  // timeout, reset, oversized request: drop it
    Respond(parser_->release());
  }

  void Respond(const http::request<http::string_body>& req) {
    beast::error_code ec;
    const auto peer = stream_.socket().remote_endpoint(ec);
    const bool peer_loopback = !ec && peer.address().is_loopback();
    HttpResponse out = Answer(req, shared_->loopback, shared_->handler, peer_loopback);
    auto res = std::make_shared<http::response<http::string_body>>(
        static_cast<http::status>(out.status), req.version());
    res->set(http::field::server, "sparse");
    res->set(http::field::content_type, out.content_type);
    res->set("X-Content-Type-Options", "nosniff");
    for (const auto& [k, v] : out.headers) res->set(k, v);
    res->keep_alive(req.keep_alive());
    if (req.method() == http::verb::head) {
      res->content_length(out.body.size());
    } else {
      res->body() = std::move(out.body);
      res->prepare_payload();
    }
    stream_.expires_after(kIdleTimeout);
    http::async_write(stream_, *res,
                      [self = shared_from_this(), res](beast::error_code written, std::size_t) {
                        if (written || self->shared_->stopped) return;
                        if (!res->keep_alive()) {
                          beast::error_code ignored;  // the peer may be gone already
                          self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                          return;
                        }
                        self->Read();
                      });
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace detail

HttpServer::HttpServer(asio::io_context& io, const std::string& address, std::uint16_t port,
                       Handler handler)
    : address_(address), acceptor_(io), shared_(std::make_shared<Shared>()) {
  shared_->handler = std::move(handler);
  boost::system::error_code ec;
  const auto addr = asio::ip::make_address(address, ec);
  if (ec) throw std::runtime_error("web view: `" + address + "` is not an IP address");
  shared_->loopback = addr.is_loopback();
  const tcp::endpoint endpoint(addr, port);
  const std::string where = address + ":" + std::to_string(port);
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) throw std::runtime_error("web view: cannot listen on " + where + ": " + ec.message());
  port_ = acceptor_.local_endpoint().port();
}

HttpServer::~HttpServer() {
  Stop();
}

std::string HttpServer::Url() const {
  // A wildcard address is no place to browse to: this machine answers on loopback.
  const std::string host = address_ == "0.0.0.0" ? "127.0.0.1"
                           : address_ == "::"    ? "::1"
                                                 : address_;
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port_) + "/";
}

void HttpServer::Start() {
  Accept();
}

void HttpServer::Accept() {
  acceptor_.async_accept([this, shared = shared_](boost::system::error_code ec, tcp::socket s) {
    if (shared->stopped) return;  // `this` may be gone
    if (ec) {
      // Out of file descriptors and the like: try again a little later, without spinning.
      auto timer = std::make_shared<asio::steady_timer>(acceptor_.get_executor(),
                                                        std::chrono::milliseconds(100));
      timer->async_wait([this, shared, timer](boost::system::error_code) {
        if (!shared->stopped) Accept();
      });
      return;
    }
    if (shared->sessions.size() >= kMaxConnections) {
      s.close(ec);
    } else {
      std::make_shared<detail::HttpSession>(std::move(s), shared)->Start();
    }
    Accept();
  });
}

void HttpServer::Stop() {
  if (shared_->stopped) return;
  shared_->stopped = true;
  boost::system::error_code ec;
  acceptor_.close(ec);
  const auto sessions = shared_->sessions;  // closing does not remove them; their handlers do
  for (detail::HttpSession* s : sessions) s->Close();
}

}  // namespace sparse::web
