// Test harness: plays the host side of the multilang protocol against a component running in a
// child process (forked from the test, or an executable). Every wait has a timeout, so a broken
// component fails the test instead of hanging it; the child is killed when the harness goes away.
// The host speaks JSON or MessagePack (Wire); MessagePack is encoded and decoded with nlohmann's
// to_msgpack/from_msgpack, independently of the adapter's own codec.
#pragma once

#include <sparse/protocol.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"

namespace sparse_test {

// Everything readable now from a non-blocking pipe end.
inline std::string drain(int fd) {
  std::string all;
  char buffer[4096];
  ssize_t got;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0) all.append(buffer, std::size_t(got));
  return all;
}

using sparse::json;
using sparse::detail::Wire;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// Long: it bounds waits that end as soon as the expected thing happens, and a sanitized child on
// a loaded machine can take seconds; the "nothing more arrives" checks pass their own short one.
inline constexpr std::chrono::milliseconds kTimeout = 30000ms;

/// One host message as bytes on the wire.
inline std::string encode(Wire wire, const json& message) {
  if (wire == Wire::msgpack) {
    const std::vector<std::uint8_t> bytes = json::to_msgpack(message);
    return std::string(bytes.begin(), bytes.end());
  }
  return message.dump() + "\nend\n";
}

/// One component message from its bytes on the wire.
inline json decode(Wire wire, std::string_view bytes) {
  if (wire == Wire::msgpack) return json::from_msgpack(bytes.begin(), bytes.end());
  return json::parse(bytes.data(), bytes.data() + bytes.size());
}

/// For test names: "json", "msgpack".
inline std::string wire_label(Wire wire) {
  return wire == Wire::msgpack ? "msgpack" : "json";
}

/// The host end of a component's stdin/stdout/stderr.
class ComponentProcess {
 public:
  /// Forks; the child runs `body` with the pipes on fds 0/1/2 and exits with its result.
  /// The host speaks `wire`.
  static std::unique_ptr<ComponentProcess> fork(const std::function<int()>& body,
                                                Wire wire = Wire::json) {
    return std::unique_ptr<ComponentProcess>(new ComponentProcess(body, {}, wire));
  }
  /// Runs an executable with the pipes on fds 0/1/2.
  static std::unique_ptr<ComponentProcess> exec(std::vector<std::string> argv,
                                                Wire wire = Wire::json) {
    return std::unique_ptr<ComponentProcess>(new ComponentProcess(nullptr, std::move(argv), wire));
  }

  /// Closes the component's input and lets it exit (so sanitizers can report), then kills it if
  /// it is still running. A sanitizer report on its stderr fails the test.
  ~ComponentProcess() {
    close_input();
    if (!exited_ && !wait_exit(2000ms)) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
    for (const char* report : {"Sanitizer", "runtime error:"}) {
      EXPECT_EQ(stderr_.find(report), std::string::npos) << stderr_;
    }
    ::close(from_child_);
    ::close(err_);
  }

  pid_t pid() const { return pid_; }
  Wire wire() const { return wire_; }

  /// A host message in the host's format: JSON text and an `end` line, or a MessagePack value.
  void send(const json& message) { send_raw(encode(wire_, message)); }

  /// Writes `bytes` one write(2) per byte, pausing now and then, so the component's reads see
  /// messages split everywhere.
  void send_byte_by_byte(std::string_view bytes) {
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      send_raw(bytes.substr(i, 1));
      if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  /// Writes bytes to the component's stdin, draining its stdout meanwhile (no pipe deadlock).
  void send_raw(std::string_view bytes) {
    const auto deadline = Clock::now() + kTimeout;
    while (!bytes.empty()) {
      pollfd fds[3] = {{to_child_, POLLOUT, 0}, {from_child_, POLLIN, 0}, {err_, POLLIN, 0}};
      if (!poll_until(fds, 3, deadline)) {
        ADD_FAILURE() << "timed out writing to the component";
        return;
      }
      if (fds[1].revents != 0) read_stdout();
      if (fds[2].revents != 0) read_stderr();
      if (fds[0].revents & (POLLERR | POLLHUP)) {
        ADD_FAILURE() << "the component closed its stdin";
        return;
      }
      if (fds[0].revents & POLLOUT) {
        const ssize_t wrote = ::write(to_child_, bytes.data(), bytes.size());
        if (wrote > 0) bytes.remove_prefix(static_cast<std::size_t>(wrote));
      }
    }
  }

  void close_input() {
    if (to_child_ >= 0) ::close(to_child_);
    to_child_ = -1;
  }

  /// The next message from the component, or nothing on timeout or end of its output.
  std::optional<json> read(std::chrono::milliseconds timeout = kTimeout) {
    const auto deadline = Clock::now() + timeout;
    for (;;) {
      std::string_view text;
      if (decoder_.next(text)) return decode(wire_, text);
      if (stdout_closed_) return std::nullopt;
      pollfd fds[2] = {{from_child_, POLLIN, 0}, {err_, POLLIN, 0}};
      if (!poll_until(fds, 2, deadline)) return std::nullopt;
      if (fds[1].revents != 0) read_stderr();
      if (fds[0].revents != 0) read_stdout();
    }
  }

  /// The next message; a test failure (and null) if none arrives in time.
  json expect(std::chrono::milliseconds timeout = kTimeout) {
    auto message = read(timeout);
    if (!message) {
      ADD_FAILURE() << "no message from the component within " << timeout.count()
                    << " ms; stderr: " << stderr_text();
      return json();
    }
    return *message;
  }

  /// Expects exactly `expected` as the next message.
  void expect_eq(const json& expected) {
    const json got = expect();
    EXPECT_EQ(got, expected) << "stderr: " << stderr_text();
  }

  /// Waits for the component to exit; its exit code, or 128 + signal, or nothing on timeout.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout = kTimeout) {
    const auto deadline = Clock::now() + timeout;
    while (Clock::now() < deadline) {
      int status = 0;
      const pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        exited_ = true;
        read_stderr();
        if (WIFEXITED(status)) return WEXITSTATUS(status);
        return 128 + WTERMSIG(status);
      }
      // Keep its pipes drained so it can finish writing.
      pollfd fds[2] = {{from_child_, POLLIN, 0}, {err_, POLLIN, 0}};
      ::poll(fds, 2, 5);
      if (fds[1].revents != 0) read_stderr();
      if (fds[0].revents != 0) read_stdout();
    }
    return std::nullopt;
  }

  /// Everything the component wrote to stderr so far.
  const std::string& stderr_text() {
    read_stderr();
    return stderr_;
  }

 private:
  ComponentProcess(const std::function<int()>& body, std::vector<std::string> argv, Wire wire)
      : wire_(wire), decoder_(std::size_t{256} << 20, wire) {
    ::signal(SIGPIPE, SIG_IGN);  // a dead component must fail a test, not kill the runner
    int in[2], out[2], err[2];
    if (::pipe(in) != 0 || ::pipe(out) != 0 || ::pipe(err) != 0) std::abort();
    std::cout.flush();
    std::fflush(nullptr);  // or the child inherits unwritten test output
    pid_ = ::fork();
    if (pid_ < 0) std::abort();
    if (pid_ == 0) {
      ::dup2(in[0], 0);
      ::dup2(out[1], 1);
      ::dup2(err[1], 2);
      for (int fd = 3; fd < 1024; ++fd) ::close(fd);
      if (body) ::_exit(body());
      std::vector<char*> args;
      for (auto& arg : argv) args.push_back(arg.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      std::perror("execv");
      ::_exit(127);
    }
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    to_child_ = in[1];
    from_child_ = out[0];
    err_ = err[0];
    ::fcntl(to_child_, F_SETFL, O_NONBLOCK);
    ::fcntl(err_, F_SETFL, O_NONBLOCK);
  }

  static bool poll_until(pollfd* fds, nfds_t count, Clock::time_point deadline) {
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) return false;
      const int ready = ::poll(fds, count, static_cast<int>(left));
      if (ready > 0) return true;
      if (ready == 0) return false;
    }
  }

  void read_stdout() {
    char* area = decoder_.write_area(64 * 1024);
    const ssize_t got = ::read(from_child_, area, decoder_.write_capacity());
    if (got > 0) decoder_.commit(static_cast<std::size_t>(got));
    if (got == 0) stdout_closed_ = true;
  }

  void read_stderr() {
    char buffer[4096];
    ssize_t got;
    while ((got = ::read(err_, buffer, sizeof buffer)) > 0) {
      stderr_.append(buffer, static_cast<std::size_t>(got));
    }
  }

  Wire wire_;
  pid_t pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  int err_ = -1;
  bool exited_ = false;
  bool stdout_closed_ = false;
  sparse::detail::FrameDecoder decoder_;
  std::string stderr_;
};

/// A handshake for `pid_dir`, with a context naming task 7 of component "under_test".
inline json handshake(const std::string& pid_dir, json conf = json::object()) {
  return json{{"pidDir", pid_dir},
              {"conf", std::move(conf)},
              {"context",
               {{"taskid", 7},
                {"componentid", "under_test"},
                {"task->component", {{"7", "under_test"}, {"3", "source"}}}}}};
}

inline json tuple_message(const std::string& id, json values, const std::string& comp = "source",
                          const std::string& stream = "default", int task = 3) {
  return json{{"id", id}, {"comp", comp}, {"stream", stream}, {"task", task}, {"tuple", values}};
}

inline json heartbeat(const std::string& id = "-1") {
  return json{{"id", id},
              {"comp", nullptr},
              {"stream", "__heartbeat"},
              {"task", -1},
              {"tuple", json::array()}};
}

inline json tick(const std::string& id, int freq_secs) {
  return json{{"id", id},
              {"comp", "__system"},
              {"stream", "__tick"},
              {"task", -1},
              {"tuple", json::array({freq_secs})}};
}

inline json command(const std::string& name, json id = "") {
  return json{{"command", name}, {"id", std::move(id)}};
}

inline const json kSync = json{{"command", "sync"}};

inline json ack(const json& id) {
  return json{{"command", "ack"}, {"id", id}};
}
inline json fail(const json& id) {
  return json{{"command", "fail"}, {"id", id}};
}

/// A fresh directory for pid files, removed with its content at the end of the scope.
using TempDir = sparse::test::TempDir;

/// Starts `body` in a child, performs the handshake in `wire` and checks the pid reply.
inline std::unique_ptr<ComponentProcess> start_component(const std::function<int()>& body,
                                                         const TempDir& dir,
                                                         json conf = json::object(),
                                                         Wire wire = Wire::json) {
  auto process = ComponentProcess::fork(body, wire);
  process->send(handshake(dir.path(), std::move(conf)));
  const json reply = process->expect();
  EXPECT_EQ(reply, (json{{"pid", process->pid()}})) << process->stderr_text();
  return process;
}

/// Base of protocol tests that run once per host format (TEST_P; see SPARSE_TEST_BOTH_WIRES).
class WireTest : public ::testing::TestWithParam<Wire> {
 protected:
  Wire wire() const { return GetParam(); }
  std::unique_ptr<ComponentProcess> start(const std::function<int()>& body, const TempDir& dir,
                                          json conf = json::object()) {
    return start_component(body, dir, std::move(conf), GetParam());
  }
};

}  // namespace sparse_test

/// Runs every TEST_P of `suite` (a WireTest) with a JSON host and with a MessagePack host; the
/// tests are named Wire/suite.Name/json and Wire/suite.Name/msgpack.
#define SPARSE_TEST_BOTH_WIRES(suite)                                                          \
  INSTANTIATE_TEST_SUITE_P(                                                                    \
      Wire, suite, ::testing::Values(::sparse_test::Wire::json, ::sparse_test::Wire::msgpack), \
      [](const ::testing::TestParamInfo<::sparse_test::Wire>& info) {                          \
        return ::sparse_test::wire_label(info.param);                                          \
      })
