// TickSource through its public API on a real io_context. Periods are whole seconds, so the
// tests that tick use 1 s and stop the source from a delivery: the loop then runs out of work and
// returns. They assert what was delivered and in which order, never how long it took. (The timer
// underneath, base::PeriodicTimer, has its own tests.)
#include "runtime/tick_source.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <vector>

namespace sparse::runtime {
namespace {

// Runs the loop until it has no work left (the source is stopped or never armed). The bound only
// keeps a broken source from hanging the suite; a test that hits it fails on `stopped()`.
void RunTickLoopDry(boost::asio::io_context& io) {
  io.run_for(std::chrono::seconds(60));
  EXPECT_TRUE(io.stopped()) << "the source is still armed";
}

TEST(TickSource, ANonPositivePeriodArmsNothing) {
  for (std::int64_t period : {0, -1, -30}) {
    SCOPED_TRACE("period " + std::to_string(period));
    boost::asio::io_context io;
    TickSource source(io);
    int ticks = 0;
    source.Start(period, [&](InputTuple&&) { ++ticks; });
    RunTickLoopDry(io);
    EXPECT_EQ(ticks, 0);
  }
}

TEST(TickSource, StartWithANonPositivePeriodStopsARunningSource) {
  boost::asio::io_context io;
  TickSource source(io);
  std::vector<std::string> seen;
  source.Start(1, [&](InputTuple&&) { seen.push_back("first"); });
  source.Start(0, [&](InputTuple&&) { seen.push_back("second"); });
  RunTickLoopDry(io);
  EXPECT_TRUE(seen.empty());
}

TEST(TickSource, StopOrDestructionBeforeTheFirstTickDeliversNothing) {
  boost::asio::io_context io;
  int ticks = 0;
  TickSource stopped(io);
  stopped.Start(1, [&](InputTuple&&) { ++ticks; });
  stopped.Stop();
  stopped.Stop();  // twice is fine
  {
    TickSource destroyed(io);
    destroyed.Start(1, [&](InputTuple&&) { ++ticks; });
  }
  RunTickLoopDry(io);
  EXPECT_EQ(ticks, 0);
}

TEST(TickSource, TicksAreSystemTuplesCarryingTheirPeriodUntilStopped) {
  boost::asio::io_context io;
  TickSource source(io);
  std::vector<InputTuple> ticks;
  source.Start(1, [&](InputTuple&& t) {
    ticks.push_back(std::move(t));
    if (ticks.size() == 2) source.Stop();
  });
  RunTickLoopDry(io);
  ASSERT_EQ(ticks.size(), 2u);
  for (const auto& t : ticks) {
    EXPECT_TRUE(t.tick);
    EXPECT_EQ(t.tick_freq_secs, 1);
    EXPECT_EQ(t.tuple, nullptr);
    EXPECT_TRUE(t.roots.empty());
    EXPECT_GT(t.arrived_ns, 0);
    EXPECT_EQ(t.ValueBytes(), 0u);
  }
  EXPECT_LE(ticks[0].arrived_ns, ticks[1].arrived_ns) << "stamped in delivery order";
}

TEST(TickSource, RestartFromInsideADeliveryReplacesTheFunction) {
  boost::asio::io_context io;
  TickSource source(io);
  std::vector<std::string> seen;
  source.Start(1, [&](InputTuple&&) {
    seen.push_back("first");
    source.Start(1, [&](InputTuple&&) {
      seen.push_back("second");
      source.Stop();
    });
    seen.push_back("first, after the restart");  // its own function is still alive
  });
  RunTickLoopDry(io);
  EXPECT_EQ(seen, (std::vector<std::string>{"first", "first, after the restart", "second"}));
}

TEST(TickSource, ADeliveryMayDestroyItsSource) {
  boost::asio::io_context io;
  auto source = std::make_unique<TickSource>(io);
  auto deliveries = std::make_shared<int>(0);
  source->Start(1, [&source, deliveries](InputTuple&&) {
    source.reset();
    ++*deliveries;  // the captured state outlives the source for the rest of this call
  });
  RunTickLoopDry(io);
  EXPECT_EQ(source, nullptr);
  EXPECT_EQ(*deliveries, 1);
}

}  // namespace
}  // namespace sparse::runtime
