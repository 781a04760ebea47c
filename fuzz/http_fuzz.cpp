// Fuzz target: the web view's HTTP request handling (web/http_server.hpp) on any bytes a client
// sends: Beast's parser with the server's limits, the method and Host checks, and the target
// parser (percent-decoding, path segments, query). The first input byte says whether the server
// is bound to a loopback address.
//
// Properties: the handler only sees GET, HEAD and POST requests, POST only from a loopback peer
// naming a loopback host (the fuzzer varies the peer); bound to loopback, a request naming
// another Host is refused before the handler; what the handler gets is the target as parsed by
// ParseTarget, whose decoding never grows the text and leaves text without escapes as it is.
#include <string>
#include <string_view>

#include "check.hpp"
#include "web/http_server.hpp"

namespace {

using sparse::web::HttpRequest;
using sparse::web::HttpResponse;

void CheckTarget(std::string_view target) {
  const HttpRequest r = sparse::web::ParseTarget(target);
  const std::string_view raw_path = target.substr(0, target.find('?'));
  FUZZ_CHECK(r.path.size() <= raw_path.size(), "decoding made the path longer");
  std::size_t segment_bytes = 0;
  for (const auto& s : r.segments) {
    FUZZ_CHECK(!s.empty(), "an empty path segment");
    segment_bytes += s.size();
  }
  FUZZ_CHECK(segment_bytes <= r.path.size(), "segments longer than the path");
  if (raw_path.find('%') == std::string_view::npos) {
    FUZZ_CHECK(r.path == raw_path, "a path without escapes changed");
  }
  for (const auto& [key, value] : r.query) {
    FUZZ_CHECK(key.size() + value.size() < target.size(), "a query pair longer than the target");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  if (size == 0) return 0;
  const bool loopback = data[0] & 1;
  const bool peer_loopback = data[0] & 2;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  CheckTarget(bytes);

  bool handled = false;
  const auto handler = [&](const HttpRequest& r) {
    handled = true;
    HttpResponse out;
    out.body = r.path;
    return out;
  };
  const auto answer = sparse::web::AnswerRequestBytes(bytes, loopback, handler, peer_loopback);
  if (!answer) {
    FUZZ_CHECK(!handled, "the handler ran for a request that was dropped");
    return 0;
  }
  FUZZ_CHECK(answer->status >= 200 && answer->status < 600, "an impossible status");
  const std::string_view method = bytes.substr(0, bytes.find(' '));
  if (handled) {
    FUZZ_CHECK(method == "GET" || method == "HEAD" || method == "POST",
               "the handler saw a method other than GET/HEAD/POST");
    FUZZ_CHECK(method != "POST" || peer_loopback, "the handler saw a POST from another machine");
  } else {
    FUZZ_CHECK(answer->status == 405 || answer->status == 403, "a request refused for no reason");
  }
  return 0;
}
