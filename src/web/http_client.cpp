#include "web/http_client.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <stdexcept>

namespace sparse::web {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

struct Url {
  std::string host;
  std::string port = "80";
  std::string target = "/";
};

Url ParseUrl(const std::string& url) {
  const std::string scheme = "http://";
  if (url.rfind(scheme, 0) != 0) throw std::runtime_error("not an http:// URL: " + url);
  Url u;
  std::string rest = url.substr(scheme.size());
  const auto slash = rest.find('/');
  if (slash != std::string::npos) {
    u.target = rest.substr(slash);
    rest = rest.substr(0, slash);
  }
  if (!rest.empty() && rest.front() == '[') {  // [v6]:port
    const auto close = rest.find(']');
    if (close == std::string::npos) throw std::runtime_error("bad URL: " + url);
    u.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') u.port = rest.substr(close + 2);
  } else if (const auto colon = rest.rfind(':'); colon != std::string::npos) {
    u.host = rest.substr(0, colon);
    u.port = rest.substr(colon + 1);
  } else {
    u.host = rest;
  }
  if (u.host.empty()) throw std::runtime_error("bad URL: " + url);
  return u;
}

HttpResult Exchange(http::verb method, const std::string& url,
                    const std::map<std::string, std::string>& headers,
                    std::chrono::milliseconds timeout) {
  const Url u = ParseUrl(url);
  asio::io_context io;
  tcp::resolver resolver(io);
  beast::tcp_stream stream(io);
  beast::flat_buffer buffer;
  http::request<http::empty_body> req{method, u.target, 11};
  req.set(http::field::host, u.host.find(':') != std::string::npos ? "[" + u.host + "]:" + u.port
                                                                   : u.host + ":" + u.port);
  req.set(http::field::user_agent, "sparse");
  req.set(http::field::connection, "close");
  for (const auto& [k, v] : headers) req.set(k, v);
  if (method == http::verb::post) req.content_length(0);
  http::response<http::string_body> res;
  std::optional<beast::error_code> result;

  stream.expires_after(timeout);
  // Each step stops at the first error, which becomes the result.
  resolver.async_resolve(
      u.host, u.port, [&](beast::error_code resolved, const tcp::resolver::results_type& r) {
        if (resolved) {
          result = resolved;
          return;
        }
        stream.async_connect(r, [&](beast::error_code connected, const tcp::endpoint&) {
          if (connected) {
            result = connected;
            return;
          }
          http::async_write(stream, req, [&](beast::error_code written, std::size_t) {
            if (written) {
              result = written;
              return;
            }
            http::async_read(stream, buffer, res,
                             [&](beast::error_code read, std::size_t) { result = read; });
          });
        });
      });
  io.run_for(timeout + std::chrono::milliseconds(100));
  if (!result) throw std::runtime_error("no answer from " + url + " within the time limit");
  if (*result) throw std::runtime_error("cannot get " + url + ": " + result->message());
  HttpResult out;
  out.status = static_cast<int>(res.result_int());
  out.content_type = std::string(res[http::field::content_type]);
  out.body = std::move(res.body());
  return out;
}

}  // namespace

HttpResult HttpGet(const std::string& url, std::chrono::milliseconds timeout) {
  return Exchange(http::verb::get, url, {}, timeout);
}

HttpResult HttpPost(const std::string& url, const std::map<std::string, std::string>& headers,
                    std::chrono::milliseconds timeout) {
  return Exchange(http::verb::post, url, headers, timeout);
}

}  // namespace sparse::web
