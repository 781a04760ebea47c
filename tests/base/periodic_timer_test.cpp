#include "base/periodic_timer.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <memory>
#include <thread>

namespace sparse::base {
namespace {

using namespace std::chrono_literals;

// Runs the loop until `done` holds, or gives up (then the test fails on what it expected).
template <class Pred>
void RunTimerLoopUntil(boost::asio::io_context& io, Pred done) {
  const auto give_up = std::chrono::steady_clock::now() + 20s;
  while (!done() && std::chrono::steady_clock::now() < give_up) {
    io.restart();
    if (io.run_for(5ms) == 0) std::this_thread::sleep_for(1ms);
  }
}

TEST(PeriodicTimer, CallsEveryPeriodUntilStoppedFromInsideTheCall) {
  boost::asio::io_context io;
  PeriodicTimer timer(io);
  EXPECT_FALSE(timer.running());
  int calls = 0;
  timer.Start(1ms, [&] {
    if (++calls == 3) timer.Stop();
  });
  EXPECT_TRUE(timer.running());
  RunTimerLoopUntil(io, [&] { return calls >= 3; });
  EXPECT_EQ(calls, 3);
  EXPECT_FALSE(timer.running());
  io.restart();
  io.run_for(20ms);
  EXPECT_EQ(calls, 3) << "called after Stop";
}

TEST(PeriodicTimer, AFiredCallQueuedBeforeStopDoesNotRun) {
  boost::asio::io_context io;
  PeriodicTimer timer(io);
  int calls = 0;
  timer.Start(1ms, [&] { ++calls; });
  std::this_thread::sleep_for(10ms);  // the timer has expired; its handler is not run yet
  // Queued ahead of the timer's handler: stops it before that handler runs.
  boost::asio::post(io, [&] { timer.Stop(); });
  io.run_for(20ms);
  EXPECT_EQ(calls, 0);
}

TEST(PeriodicTimer, RestartingFromInsideTheCallReplacesPeriodAndFunction) {
  boost::asio::io_context io;
  PeriodicTimer timer(io);
  int first = 0, second = 0;
  timer.Start(1ms, [&] {
    ++first;
    timer.Start(1ms, [&] {
      if (++second == 2) timer.Stop();
    });
  });
  RunTimerLoopUntil(io, [&] { return second >= 2; });
  EXPECT_EQ(first, 1);
  EXPECT_EQ(second, 2);
}

TEST(PeriodicTimer, TheCallMayDestroyTheTimer) {
  boost::asio::io_context io;
  auto timer = std::make_unique<PeriodicTimer>(io);
  int calls = 0;
  timer->Start(1ms, [&] {
    ++calls;
    timer.reset();
  });
  RunTimerLoopUntil(io, [&] { return calls >= 1; });
  io.restart();
  io.run_for(20ms);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(timer);
}

}  // namespace
}  // namespace sparse::base
