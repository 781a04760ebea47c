// Drives headless chromium through the DevTools protocol over a pipe (--remote-debugging-pipe:
// the browser reads NUL-terminated JSON commands on fd 3 and answers on fd 4), so a browser test
// can click on the page and read what it shows afterwards, with no WebSocket client and no
// third-party driver.
#pragma once

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "support/process.hpp"
#include "support/wait_for.hpp"

namespace sparse::testing {

// Debian's chromium, or "" when it is not installed.
inline std::string Chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (::access(p, X_OK) == 0) return p;
  }
  return "";
}

// Chromium's command line for a quiet headless browser with its own state in `profile`.
inline std::vector<std::string> HeadlessChromium(const std::filesystem::path& profile) {
  return {Chromium(),
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-dev-shm-usage",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--window-size=1400,1500",
          "--user-data-dir=" + profile.string()};
}

class Cdp {
 public:
  // Starts chromium headless on about:blank; `profile` is a fresh directory for its state.
  Cdp(const std::filesystem::path& profile, const std::filesystem::path& logs_dir) {
    int to_browser[2], from_browser[2];
    if (::pipe(to_browser) != 0 || ::pipe(from_browser) != 0) return;
    test::Command command{HeadlessChromium(profile), {}, {}};
    command.argv.push_back("--remote-debugging-pipe");
    command.argv.push_back("about:blank");
    test::Streams streams;
    streams.err = logs_dir / "chromium-cdp.err";
    streams.more_fds = {{to_browser[0], 3}, {from_browser[1], 4}};
    pid_ = test::Spawn(command, streams);
    ::close(to_browser[0]);
    ::close(from_browser[1]);
    out_ = to_browser[1];
    in_ = from_browser[0];
  }
  ~Cdp() {
    if (out_ >= 0) ::close(out_);  // the browser exits when its pipe closes
    if (in_ >= 0) ::close(in_);
    if (pid_ > 0) {
      test::WaitExit(pid_, std::chrono::seconds(10));  // SIGKILLs it after that
    }
  }
  bool ok() const { return pid_ > 0; }

  // Opens `url` in a new page and attaches to it; false when the browser does not answer.
  bool Open(const std::string& url) {
    const auto target = Call("Target.createTarget", {{"url", url}});
    if (!target) return false;
    const auto attached =
        Call("Target.attachToTarget", {{"targetId", (*target)["targetId"]}, {"flatten", true}});
    if (!attached) return false;
    session_ = (*attached)["sessionId"].get<std::string>();
    return true;
  }

  // Evaluates a JavaScript expression in the page (awaiting a promise) and returns its value;
  // nullopt when it throws or the browser does not answer.
  std::optional<nlohmann::json> Eval(const std::string& expression) {
    const auto r =
        Call("Runtime.evaluate",
             {{"expression", expression}, {"awaitPromise", true}, {"returnByValue", true}});
    if (!r || r->contains("exceptionDetails")) return std::nullopt;
    return (*r)["result"].value("value", nlohmann::json());
  }

  // Polls a boolean expression until it is true.
  bool WaitFor(const std::string& expression,
               std::chrono::seconds deadline = std::chrono::seconds(30)) {
    return test::WaitFor(
        [&] {
          const auto v = Eval(expression);
          return v && v->is_boolean() && v->get<bool>();
        },
        deadline);
  }

 private:
  std::optional<nlohmann::json> Call(const std::string& method, nlohmann::json params) {
    const int id = ++last_id_;
    nlohmann::json msg{{"id", id}, {"method", method}, {"params", std::move(params)}};
    if (!session_.empty() && method.rfind("Target.", 0) != 0) msg["sessionId"] = session_;
    const std::string text = msg.dump() + std::string(1, '\0');
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(out_, text.data() + done, text.size() - done);
      if (n <= 0) return std::nullopt;
      done += static_cast<std::size_t>(n);
    }
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < until) {
      const auto nul = buffer_.find('\0');
      if (nul == std::string::npos) {
        pollfd p{in_, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0) continue;
        char chunk[65536];
        const ssize_t n = ::read(in_, chunk, sizeof chunk);
        if (n <= 0) return std::nullopt;
        buffer_.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      const auto reply = nlohmann::json::parse(buffer_.substr(0, nul), nullptr, false);
      buffer_.erase(0, nul + 1);
      if (reply.is_discarded() || reply.value("id", -1) != id) continue;  // events, others
      if (reply.contains("error")) return std::nullopt;
      return reply["result"];
    }
    return std::nullopt;
  }

  pid_t pid_ = -1;
  int out_ = -1;
  int in_ = -1;
  int last_id_ = 0;
  std::string buffer_;
  std::string session_;
};

}  // namespace sparse::testing
