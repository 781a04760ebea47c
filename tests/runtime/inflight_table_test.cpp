#include "runtime/inflight_table.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "runtime/delivery.hpp"

namespace sparse::runtime {
namespace {

using namespace std::chrono_literals;
using Known = InFlightTable::Known;

struct Settled {
  std::string id;
  TreeOutcome outcome;
};

class InFlightTableTest : public ::testing::Test {
 protected:
  RootEdges Roots(std::initializer_list<RootEdge> edges) { return RootEdges(edges); }
  // Starts a tree `root` whose only delivery carries edge `edge`.
  void Tree(std::uint64_t root, std::uint64_t edge) {
    acker.Init(root, edge, 1, std::to_string(root), t0);
  }
  Known Finish(InFlightTable& table, std::string_view id, bool ack, bool& tick) {
    return table.Finish(
        id, ack, acker, stats, now_ns, [this] { return t0 + 40ms; }, tick);
  }

  std::vector<Settled> done;
  Acker acker{std::chrono::milliseconds(60000),
              [this](int, std::string id, TreeOutcome o, std::chrono::nanoseconds) {
                done.push_back({std::move(id), o});
              }};
  TaskStats stats;
  InFlightTable::Clock::time_point t0 = InFlightTable::Clock::time_point{} + 1h;
  std::int64_t now_ns = 5'000'000;
  std::function<InFlightTable::Clock::time_point()> at_t0 = [this] { return t0; };
};

TEST_F(InFlightTableTest, AnAckClosesTheInputsEdgeAndTheEdgesAnchoredToIt) {
  InFlightTable table;
  Tree(100, 1);
  table.Add(7, Roots({{100, 1}}), 1'000'000, false, at_t0);
  // An emit anchored to input 7 creates edge 4 (recorded in its ack value); the child is acked.
  std::vector<AnchorRef> refs;
  ASSERT_FALSE(table.Anchor({"7"}, refs));
  ASSERT_EQ(refs.size(), 1u);
  *refs[0].ack_val ^= 4;
  bool tick = true;
  EXPECT_EQ(Finish(table, "7", true, tick), Known::kHeld);
  EXPECT_FALSE(tick);
  EXPECT_TRUE(done.empty());  // edge 4 is still open
  acker.Update(100, 4);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].outcome, TreeOutcome::kAcked);
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(stats.executed, 1u);
  EXPECT_EQ(stats.acked, 1u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.process_latency.count, 1u);
  EXPECT_DOUBLE_EQ(stats.process_latency.total_ms, 4.0);  // arrived at 1 ms, acked at 5 ms
  EXPECT_EQ(stats.execute_latency.count, 1u);
  EXPECT_DOUBLE_EQ(stats.execute_latency.total_ms, 40.0);
}

TEST_F(InFlightTableTest, AFailFailsEveryTreeOfTheInput) {
  InFlightTable table;
  Tree(100, 1);
  Tree(200, 2);
  table.Add(3, Roots({{100, 1}, {200, 2}}), 0, false, at_t0);
  bool tick = false;
  EXPECT_EQ(Finish(table, "3", false, tick), Known::kHeld);
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[0].outcome, TreeOutcome::kFailed);
  EXPECT_EQ(done[1].outcome, TreeOutcome::kFailed);
  EXPECT_EQ(stats.executed, 1u);
  EXPECT_EQ(stats.failed, 1u);
}

TEST_F(InFlightTableTest, AnIdNamesAnInputOnlyAsItsExactDecimalText) {
  InFlightTable table;
  table.Add(12, Roots({}), 0, false, at_t0);
  bool tick = false;
  for (std::string_view bad : {"", "12abc", "12.0", " 12", "+12", "0x0c", "-12"}) {
    EXPECT_EQ(Finish(table, bad, true, tick), Known::kUnknown) << bad;
  }
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(stats.executed, 0u);
  EXPECT_EQ(Finish(table, "12", true, tick), Known::kHeld);
  EXPECT_EQ(Finish(table, "12", true, tick), Known::kUnknown);  // already acked
  EXPECT_EQ(stats.executed, 1u);
}

TEST_F(InFlightTableTest, ATickIsSettledButNotCounted) {
  InFlightTable table;
  table.Add(1, Roots({}), 0, true, at_t0);
  bool tick = false;
  EXPECT_EQ(Finish(table, "1", true, tick), Known::kHeld);
  EXPECT_TRUE(tick);
  EXPECT_EQ(stats.executed, 0u);
  EXPECT_EQ(stats.acked, 0u);
  EXPECT_EQ(stats.process_latency.count, 0u);
  EXPECT_EQ(stats.execute_latency.count, 0u);
}

TEST_F(InFlightTableTest, OneInputInSampleEveryIsTimed) {
  InFlightTable table(3);
  int reads = 0;
  auto now = [&] {
    ++reads;
    return t0;
  };
  for (std::uint64_t id = 1; id <= 7; ++id) {
    EXPECT_EQ(table.Add(id, Roots({}), 0, false, now).timed, id % 3 == 0) << id;
  }
  EXPECT_EQ(reads, 2);
  bool tick = false;
  for (int id = 1; id <= 7; ++id) Finish(table, std::to_string(id), true, tick);
  EXPECT_EQ(stats.execute_latency.count, 2u);
  EXPECT_EQ(stats.process_latency.count, 7u);
}

TEST_F(InFlightTableTest, AnUnknownAnchorIsReportedAndAnExpiredOneSkipped) {
  InFlightTable table;
  table.Add(1, Roots({{100, 1}}), 0, false, [this] { return t0; });
  table.Add(2, Roots({{200, 2}}), 0, false, [this] { return t0 + 10s; });
  table.Expire(t0 + 5s, 4s, stats);  // input 1 was handed over 5 s ago
  EXPECT_EQ(stats.expired_inputs, 1u);
  EXPECT_EQ(table.size(), 1u);
  std::vector<AnchorRef> refs;
  EXPECT_FALSE(table.Anchor({"1", "2"}, refs));
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].roots->front().root, 200u);
  auto unknown = table.Anchor({"2", "3"}, refs);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(*unknown, "3");
  unknown = table.Anchor({"x"}, refs);
  ASSERT_TRUE(unknown);
  EXPECT_EQ(*unknown, "x");
  // A late ack of the expired input is told apart from an unknown one, and changes nothing.
  bool tick = false;
  EXPECT_EQ(Finish(table, "1", true, tick), Known::kExpired);
  EXPECT_EQ(Finish(table, "9", true, tick), Known::kUnknown);
  EXPECT_EQ(stats.executed, 0u);
}

TEST_F(InFlightTableTest, OnlyTimedInputsExpire) {
  InFlightTable table(1000);
  table.Add(1, Roots({}), 0, false, at_t0);
  table.Expire(t0 + 1h, 1s, stats);
  EXPECT_EQ(table.size(), 1u);
  EXPECT_EQ(stats.expired_inputs, 0u);
}

TEST_F(InFlightTableTest, FailAllFailsEveryTreeAndCountsTheInputsThatWereNotTicks) {
  InFlightTable table;
  Tree(100, 1);
  Tree(200, 2);
  table.Add(1, Roots({{100, 1}}), 0, false, at_t0);
  table.Add(2, Roots({{200, 2}}), 0, false, at_t0);
  table.Add(3, Roots({}), 0, true, at_t0);
  EXPECT_EQ(table.FailAll(acker), 2u);
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(done.size(), 2u);
  EXPECT_EQ(acker.pending(), 0u);
}

TEST_F(InFlightTableTest, ForgetDropsAnInputWithoutSettlingIt) {
  InFlightTable table;
  Tree(100, 1);
  table.Add(1, Roots({{100, 1}}), 0, false, at_t0);
  table.Forget(1);
  EXPECT_TRUE(table.empty());
  EXPECT_TRUE(done.empty());
  EXPECT_EQ(stats.executed, 0u);
}

}  // namespace
}  // namespace sparse::runtime
