// BlockingWorker without a broker: jobs are plain functions, the event loop is a local
// io_context run by the test.
#include "kafka/blocking_worker.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

namespace sparse::kafka {
namespace {

using namespace std::chrono_literals;

// Runs the loop until `done` holds (run_for returns at once while the loop has nothing to do,
// so it naps between tries); bounded so that a broken worker fails the test instead of hanging.
template <class Pred>
bool RunLoopUntil(boost::asio::io_context& io, Pred done) {
  const auto give_up = std::chrono::steady_clock::now() + 20s;
  while (!done() && std::chrono::steady_clock::now() < give_up) {
    io.restart();
    if (io.run_for(5ms) == 0) std::this_thread::sleep_for(1ms);
  }
  return done();
}

// A job that waits until the test opens the latch, so the queue behind it stays put.
struct JobLatch {
  std::mutex mu;
  std::condition_variable cv;
  bool open = false;
  bool entered = false;
  void Wait() {
    std::unique_lock lock(mu);
    entered = true;
    cv.notify_all();
    cv.wait(lock, [this] { return open; });
  }
  void WaitEntered() {
    std::unique_lock lock(mu);
    cv.wait(lock, [this] { return entered; });
  }
  void Open() {
    std::lock_guard lock(mu);
    open = true;
    cv.notify_all();
  }
};

TEST(BlockingWorker, NothingRunsBeforeStart) {
  boost::asio::io_context io;
  BlockingWorker w(io);
  std::atomic<bool> ran{false};
  ASSERT_TRUE(w.Submit([&] {
    ran = true;
    return BlockingWorker::Continuation();
  }));
  std::this_thread::sleep_for(20ms);
  EXPECT_FALSE(ran) << "the constructor started the thread";
  EXPECT_TRUE(w.Busy());
  w.Start();
  EXPECT_TRUE(RunLoopUntil(io, [&] { return ran.load() && !w.Busy(); }));
}

TEST(BlockingWorker, RunsJobsInOrderAndContinuationsOnTheLoop) {
  boost::asio::io_context io;
  BlockingWorker w(io);
  w.Start();
  const auto loop_thread = std::this_thread::get_id();
  std::vector<int> order;  // continuations only: they run on the loop
  std::vector<std::thread::id> where;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(w.Submit([&, i]() -> BlockingWorker::Continuation {
      EXPECT_NE(std::this_thread::get_id(), loop_thread);
      return [&, i] {
        order.push_back(i);
        where.push_back(std::this_thread::get_id());
      };
    }));
  }
  ASSERT_TRUE(RunLoopUntil(io, [&] { return order.size() == 5; }));
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
  for (const auto& id : where) EXPECT_EQ(id, loop_thread);
}

TEST(BlockingWorker, AFullQueueRefusesAndTakesJobsAgainOnceItDrains) {
  boost::asio::io_context io;
  BlockingWorker w(io, 2);
  EXPECT_EQ(w.capacity(), 2u);
  w.Start();
  JobLatch latch;
  int done = 0;
  auto count = [&]() -> BlockingWorker::Continuation { return [&] { ++done; }; };
  ASSERT_TRUE(w.Submit([&]() -> BlockingWorker::Continuation {
    latch.Wait();
    return [&] { ++done; };
  }));
  latch.WaitEntered();  // the running job does not count against the capacity
  EXPECT_TRUE(w.Submit(count));
  EXPECT_TRUE(w.Submit(count));
  EXPECT_FALSE(w.Submit(count)) << "a third queued job is over the capacity of 2";
  latch.Open();
  ASSERT_TRUE(RunLoopUntil(io, [&] { return done == 3 && !w.Busy(); }));
  EXPECT_TRUE(w.Submit(count));
  ASSERT_TRUE(RunLoopUntil(io, [&] { return done == 4; }));
}

TEST(BlockingWorker, StopDropsQueuedJobsRefusesNewOnesAndRunsNoContinuation) {
  boost::asio::io_context io;
  BlockingWorker w(io);
  w.Start();
  JobLatch latch;
  bool continued = false;
  std::atomic<int> ran{0};
  ASSERT_TRUE(w.Submit([&]() -> BlockingWorker::Continuation {
    ++ran;
    latch.Wait();
    return [&] { continued = true; };
  }));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(w.Submit([&]() -> BlockingWorker::Continuation {
      ++ran;
      return [&] { continued = true; };
    }));
  }
  latch.WaitEntered();
  EXPECT_FALSE(w.cancelled());
  // Stop waits for the running job: let it finish from another thread once Stop has begun.
  auto opener = std::async(std::launch::async, [&] {
    while (!w.cancelled()) std::this_thread::sleep_for(1ms);
    latch.Open();
  });
  w.Stop();
  opener.get();
  EXPECT_TRUE(w.cancelled());
  EXPECT_EQ(ran, 1) << "queued jobs were dropped";
  EXPECT_FALSE(w.Submit([&]() -> BlockingWorker::Continuation {
    ++ran;
    return nullptr;
  }));
  io.restart();
  io.run_for(20ms);
  EXPECT_FALSE(continued) << "a continuation ran after Stop";
  EXPECT_FALSE(w.Busy());
  w.Stop();   // idempotent
  w.Start();  // a stopped worker stays stopped
  EXPECT_FALSE(w.Submit([]() -> BlockingWorker::Continuation { return nullptr; }));
}

TEST(BlockingWorker, StopWithoutStartAndDestroyingAStartedWorkerAreFine) {
  boost::asio::io_context io;
  {
    BlockingWorker w(io);
    EXPECT_TRUE(w.Submit([]() -> BlockingWorker::Continuation { return nullptr; }));
    w.Stop();
    EXPECT_FALSE(w.Busy());
  }
  {
    BlockingWorker w(io);
    w.Start();
  }
}

}  // namespace
}  // namespace sparse::kafka
