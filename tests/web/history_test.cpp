// Window arithmetic over cluster snapshots (web/history.hpp).
#include "web/history.hpp"

#include <gtest/gtest.h>

namespace sparse::web {
namespace {

runtime::ComponentStats Component(const std::string& id, bool spout, std::uint64_t n) {
  runtime::ComponentStats c;
  c.id = id;
  c.spout = spout;
  c.tasks = 2;
  c.totals.emitted = n;
  c.totals.transferred = 2 * n;
  c.totals.executed = spout ? 0 : n;
  c.totals.acked = n;
  c.totals.failed = n / 10;
  c.totals.errors = n / 100;
  c.totals.backpressure_ms = 3 * n;
  c.totals.queue_depth = n % 7;  // a current value, not a counter
  c.totals.pending = n % 5;
  for (std::uint64_t i = 0; i < n % 4 + 1; ++i) {
    c.totals.process_latency.Add(static_cast<double>(n));
    c.totals.complete_latency.Add(static_cast<double>(n));
  }
  c.capacity = static_cast<double>(n % 10) / 10;
  return c;
}

runtime::ClusterSnapshot At(double uptime, std::uint64_t n) {
  runtime::ClusterSnapshot s;
  s.uptime_secs = uptime;
  s.state = "running";
  s.components = {Component("bolt", false, n), Component("spout", true, n)};
  return s;
}

TEST(WindowDelta, SubtractsCountersAndKeepsCurrentValues) {
  const auto older = At(10, 100);
  const auto newer = At(20, 253);
  const auto d = WindowDelta(older, newer);
  ASSERT_EQ(d.components.size(), 2u);
  const auto& b = d.components[0];
  EXPECT_EQ(b.id, "bolt");
  EXPECT_EQ(b.totals.emitted, 153u);
  EXPECT_EQ(b.totals.transferred, 306u);
  EXPECT_EQ(b.totals.executed, 153u);
  EXPECT_EQ(b.totals.failed, 25u - 10u);
  EXPECT_EQ(b.totals.errors, 2u - 1u);
  EXPECT_EQ(b.totals.backpressure_ms, 459u);
  // Current values come from the newer snapshot.
  EXPECT_EQ(b.totals.queue_depth, 253u % 7);
  EXPECT_EQ(b.totals.pending, 253u % 5);
  EXPECT_DOUBLE_EQ(b.capacity, 0.3);
  EXPECT_DOUBLE_EQ(d.uptime_secs, 20);
}

TEST(WindowDelta, LatencyIsTheAverageOfTheWindowOnly) {
  runtime::ClusterSnapshot older, newer;
  runtime::ComponentStats c;
  c.id = "b";
  c.totals.process_latency.Add(100);  // a slow start
  older.components = {c};
  c.totals.process_latency.Add(2);
  c.totals.process_latency.Add(4);
  newer.components = {c};
  const auto d = WindowDelta(older, newer);
  EXPECT_EQ(d.components[0].totals.process_latency.count, 2u);
  EXPECT_DOUBLE_EQ(d.components[0].totals.process_latency.Average(), 3.0);
}

TEST(WindowDelta, NeverNegativeAndNewComponentsCountFromZero) {
  runtime::ClusterSnapshot older = At(1, 50);
  runtime::ClusterSnapshot newer = At(2, 40);  // counters cannot go back, but if they did
  runtime::ComponentStats extra;
  extra.id = "late";
  extra.totals.emitted = 7;
  newer.components.push_back(extra);
  const auto d = WindowDelta(older, newer);
  EXPECT_EQ(d.components[0].totals.emitted, 0u);
  EXPECT_EQ(d.components[0].totals.process_latency.count, 0u);
  EXPECT_EQ(d.components[2].totals.emitted, 7u);
}

TEST(Window, ParsesStormNames) {
  EXPECT_TRUE(ParseWindow("")->all_time());
  EXPECT_TRUE(ParseWindow(":all-time")->all_time());
  EXPECT_EQ(ParseWindow("600")->secs, 600.0);
  EXPECT_EQ(ParseWindow("1")->secs, 1.0);
  EXPECT_FALSE(ParseWindow("0"));
  EXPECT_FALSE(ParseWindow("601"));  // only 10 minutes of history are kept
  EXPECT_FALSE(ParseWindow("10800"));
  EXPECT_FALSE(ParseWindow("60s"));
  EXPECT_FALSE(ParseWindow("-5"));
  EXPECT_FALSE(ParseWindow("all"));
  EXPECT_EQ(Window{}.Name(), ":all-time");
  EXPECT_EQ(Window{}.Pretty(), "All time");
  EXPECT_EQ(Window{600}.Name(), "600");
  EXPECT_EQ(Window{600}.Pretty(), "10m 0s");
  EXPECT_EQ(Window{3725}.Pretty(), "1h 2m 5s");
}

TEST(SnapshotHistory, TenMinuteWindowOfALongRun) {
  SnapshotHistory h;
  // One snapshot a second for 700 s; the spout has emitted 10 per second.
  for (int t = 1; t <= 700; ++t) h.Add(At(t, static_cast<std::uint64_t>(t) * 10));
  // Only what the longest window needs is kept.
  EXPECT_LE(h.size(), 602u);
  const auto w = h.Stats(Window{600});
  EXPECT_DOUBLE_EQ(w.covered_secs, 600);
  EXPECT_EQ(w.stats.components[1].totals.emitted, 6000u);
  const auto minute = h.Stats(Window{60});
  EXPECT_EQ(minute.stats.components[1].totals.emitted, 600u);
  const auto all = h.Stats(Window{});
  EXPECT_EQ(all.stats.components[1].totals.emitted, 7000u);
  EXPECT_DOUBLE_EQ(all.covered_secs, 700);
}

TEST(SnapshotHistory, UnevenSpacingUsesTheNewestSnapshotBeforeTheCutoff) {
  SnapshotHistory h;
  h.Add(At(1.0, 10));
  h.Add(At(2.2, 20));
  h.Add(At(3.9, 30));
  h.Add(At(5.0, 50));
  const auto w = h.Stats(Window{2});  // cutoff 3.0: the snapshot at 2.2
  EXPECT_DOUBLE_EQ(w.covered_secs, 5.0 - 2.2);
  EXPECT_EQ(w.stats.components[0].totals.emitted, 30u);
}

TEST(SnapshotHistory, AYoungRunCountsFromItsStart) {
  SnapshotHistory h;
  h.Add(At(1, 10));
  h.Add(At(2, 25));
  const auto w = h.Stats(Window{600});
  EXPECT_DOUBLE_EQ(w.covered_secs, 2);
  EXPECT_EQ(w.stats.components[1].totals.emitted, 25u);
}

TEST(SnapshotHistory, BoundedByEntriesTheWindowStartsAtTheOldestKept) {
  SnapshotHistory h(600, 10);
  for (int t = 1; t <= 100; ++t) h.Add(At(t, static_cast<std::uint64_t>(t)));
  EXPECT_EQ(h.size(), 10u);
  const auto w = h.Stats(Window{600});
  EXPECT_DOUBLE_EQ(w.covered_secs, 9);  // 91 .. 100
  EXPECT_EQ(w.stats.components[0].totals.emitted, 9u);
}

}  // namespace
}  // namespace sparse::web
