// A blocking HTTP/1.1 GET (and an empty POST) for command-line clients of the web view (`sparse
// stats`) and tests. It runs its own short-lived io_context: never call it from a loop that serves
// requests.
#pragma once

#include <chrono>
#include <map>
#include <string>

namespace sparse::web {

struct HttpResult {
  int status = 0;
  std::string content_type;
  std::string body;
};

// `url` is http://HOST:PORT/PATH (no https). Throws std::runtime_error naming the URL when it
// cannot connect, the answer is not HTTP, or the whole exchange takes longer than `timeout`.
HttpResult HttpGet(const std::string& url,
                   std::chrono::milliseconds timeout = std::chrono::seconds(5));
// A POST without a body, with extra headers; otherwise as HttpGet.
HttpResult HttpPost(const std::string& url, const std::map<std::string, std::string>& headers,
                    std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace sparse::web
