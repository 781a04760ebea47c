// ConsoleWriter (issue 18, item 4): a console that does not read must never block the caller.
#include "cli/console_writer.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <string>

namespace sparse::cli {
namespace {

// As in the runtime (app.cpp): writing to a console that went away is an error value, not a
// signal. A writer abandoned by a test may still be blocked on its pipe when the pipe closes.
const bool kSigpipeIgnored = (::signal(SIGPIPE, SIG_IGN), true);

struct Pipe {
  int read_end = -1, write_end = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      read_end = fds[0];
      write_end = fds[1];
    }
  }
  ~Pipe() {
    if (read_end >= 0) ::close(read_end);
    if (write_end >= 0) ::close(write_end);
  }
  // Everything currently in the pipe (the write end stays open).
  std::string Drain() const {
    std::string all;
    ::fcntl(read_end, F_SETFL, O_NONBLOCK);
    char buf[65536];
    for (ssize_t n; (n = ::read(read_end, buf, sizeof buf)) > 0;) all.append(buf, n);
    return all;
  }
};

TEST(ConsoleWriter, WritesInOrder) {
  Pipe pipe;
  ConsoleWriter writer(pipe.write_end);
  writer.Start();
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(writer.Submit("line " + std::to_string(i) + "\n"));
  writer.Stop();
  std::string expected;
  for (int i = 0; i < 100; ++i) expected += "line " + std::to_string(i) + "\n";
  EXPECT_EQ(pipe.Drain(), expected);
  EXPECT_EQ(writer.dropped_bytes(), 0u);
}

// Nobody reads the pipe (a paused terminal): Submit keeps returning at once, dropping what does
// not fit, and says so where the gap is once the console reads again.
TEST(ConsoleWriter, NeverBlocksOnAConsoleThatDoesNotRead) {
  Pipe pipe;
  const int pipe_size = ::fcntl(pipe.write_end, F_GETPIPE_SZ);
  ASSERT_GT(pipe_size, 0);
  ConsoleWriter writer(pipe.write_end, /*budget_bytes=*/4096);
  writer.Start();
  const std::string line(99, 'x');
  int accepted = 0;
  // Far more than the pipe and the budget hold: without the writer thread this blocks forever.
  const int lines = 20 * pipe_size / 100;
  for (int i = 0; i < lines; ++i) accepted += writer.Submit(line + "\n") ? 1 : 0;
  EXPECT_LT(accepted, lines);
  EXPECT_GT(writer.dropped_bytes(), 0u);
  // The console reads again: what was kept arrives, then the notice of the gap.
  std::string seen = pipe.Drain();
  EXPECT_TRUE(writer.Submit("after\n"));
  writer.Stop(std::chrono::seconds(10));
  seen += pipe.Drain();
  const auto notice = seen.find("bytes of console output dropped");
  ASSERT_NE(notice, std::string::npos) << seen.size();
  EXPECT_LT(notice, seen.find("after\n"));
  EXPECT_EQ(seen.substr(seen.size() - 6), "after\n");
}

// A console that stays paused: Stop gives up after its grace instead of hanging.
TEST(ConsoleWriter, StopDoesNotHangOnAPausedConsole) {
  Pipe pipe;
  const int pipe_size = ::fcntl(pipe.write_end, F_GETPIPE_SZ);
  ConsoleWriter writer(pipe.write_end);
  writer.Start();
  const std::string chunk(static_cast<std::size_t>(pipe_size), 'y');
  EXPECT_TRUE(writer.Submit(chunk));
  EXPECT_TRUE(writer.Submit(chunk));  // this one cannot be written: the pipe is full
  writer.Stop(std::chrono::milliseconds(100));
  EXPECT_FALSE(writer.Submit("late\n"));
}

// The console went away (EPIPE): later text is dropped, nothing blocks or throws.
TEST(ConsoleWriter, ClosedConsoleDropsText) {
  Pipe pipe;
  ::close(pipe.read_end);
  pipe.read_end = -1;
  ConsoleWriter writer(pipe.write_end);
  writer.Start();
  writer.Submit("first\n");
  writer.Stop();
  EXPECT_FALSE(writer.Submit("second\n"));
  EXPECT_GT(writer.dropped_bytes(), 0u);
}

}  // namespace
}  // namespace sparse::cli
