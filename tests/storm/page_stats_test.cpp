// storm/page_stats: Storm's TopologyPageInfo (what Nimbus's getTopologyPageInfo answers) as the
// snapshot `sparse stats` prints. The page is built field by field as Storm fills it; the real
// cluster's answer is checked end to end in real/cluster_test.cpp.
#include "storm/page_stats.hpp"

#include <gtest/gtest.h>

namespace sparse::storm {
namespace {

gen::ComponentAggregateStats Common(int tasks, std::int64_t emitted, std::int64_t transferred,
                                    std::int64_t acked, std::int64_t failed) {
  gen::CommonAggregateStats common;
  common.__set_num_tasks(tasks);
  common.__set_emitted(emitted);
  common.__set_transferred(transferred);
  common.__set_acked(acked);
  common.__set_failed(failed);
  gen::ComponentAggregateStats agg;
  agg.__set_common_stats(common);
  return agg;
}

gen::TopologyPageInfo WordCountPage(const std::string& status) {
  gen::TopologyPageInfo page;
  page.__set_id("wc-1-1700000000");
  page.__set_name("wc");
  page.__set_status(status);
  page.__set_uptime_secs(125);
  page.__set_num_tasks(4);

  auto spout = Common(1, 2000, 2000, 1980, 20);
  gen::SpoutAggregateStats s;
  s.__set_complete_latency_ms(12.5);
  gen::SpecificAggregateStats spout_specific;
  spout_specific.__set_spout(s);
  spout.__set_specific_stats(spout_specific);

  auto bolt = Common(2, 0, 0, 3960, 40);
  gen::BoltAggregateStats b;
  b.__set_executed(4000);
  b.__set_process_latency_ms(0.25);
  b.__set_execute_latency_ms(0.2);
  b.__set_capacity(0.031);
  gen::SpecificAggregateStats bolt_specific;
  bolt_specific.__set_bolt(b);
  bolt.__set_specific_stats(bolt_specific);
  gen::ErrorInfo error;
  error.__set_error("java.lang.RuntimeException: boom");
  error.__set_error_time_secs(1000);
  bolt.__set_last_error(error);

  page.__set_id_to_spout_agg_stats({{"words", spout}});
  page.__set_id_to_bolt_agg_stats({{"count", bolt}});
  return page;
}

TEST(PageStats, ComponentsCarryStormsTotalsLatenciesCapacityAndLastError) {
  const auto s = SnapshotFromPageInfo(WordCountPage("ACTIVE"), 1030);
  EXPECT_EQ(s.state, "running");
  EXPECT_TRUE(s.active);
  EXPECT_EQ(s.uptime_secs, 125);
  EXPECT_EQ(s.tasks_total, 4);
  ASSERT_EQ(s.components.size(), 2u);

  const auto& count = s.components[0];  // sorted by id
  EXPECT_EQ(count.id, "count");
  EXPECT_FALSE(count.spout);
  EXPECT_EQ(count.tasks, 2);
  EXPECT_EQ(count.totals.executed, 4000u);
  EXPECT_EQ(count.totals.acked, 3960u);
  EXPECT_EQ(count.totals.failed, 40u);
  EXPECT_DOUBLE_EQ(count.totals.process_latency.Average(), 0.25);
  EXPECT_DOUBLE_EQ(count.totals.execute_latency.Average(), 0.2);
  EXPECT_DOUBLE_EQ(count.capacity, 0.031);
  EXPECT_EQ(count.last_error, "java.lang.RuntimeException: boom");
  EXPECT_EQ(count.last_error_age_secs, 30);

  const auto& words = s.components[1];
  EXPECT_EQ(words.id, "words");
  EXPECT_TRUE(words.spout);
  EXPECT_EQ(words.tasks, 1);
  EXPECT_EQ(words.totals.emitted, 2000u);
  EXPECT_EQ(words.totals.transferred, 2000u);
  EXPECT_EQ(words.totals.acked, 1980u);
  EXPECT_EQ(words.totals.failed, 20u);
  EXPECT_DOUBLE_EQ(words.totals.complete_latency.Average(), 12.5);
  EXPECT_TRUE(words.last_error.empty());
  EXPECT_EQ(words.last_error_age_secs, -1);
}

TEST(PageStats, StormsStatusBecomesTheSnapshotsState) {
  struct Case {
    const char* status;
    const char* state;
    bool active;
  };
  for (const Case& c :
       {Case{"ACTIVE", "running", true}, Case{"INACTIVE", "running", false},
        Case{"REBALANCING", "rebalancing", false}, Case{"KILLED", "stopping", false}}) {
    const auto s = SnapshotFromPageInfo(WordCountPage(c.status), 0);
    EXPECT_EQ(s.state, c.state) << c.status;
    EXPECT_EQ(s.active, c.active) << c.status;
  }
}

// A page from an older Storm, or of a topology whose executors sent no heartbeat yet, lacks
// fields: they read as zero, and a latency without tuples still shows its average.
TEST(PageStats, MissingFieldsReadAsZero) {
  gen::TopologyPageInfo page;
  page.__set_id("t-1-1");
  gen::ComponentAggregateStats empty;
  gen::ComponentAggregateStats latency_only;
  gen::SpoutAggregateStats s;
  s.__set_complete_latency_ms(3.0);
  gen::SpecificAggregateStats specific;
  specific.__set_spout(s);
  latency_only.__set_specific_stats(specific);
  page.__set_id_to_spout_agg_stats({{"a", empty}, {"b", latency_only}});
  const auto snap = SnapshotFromPageInfo(page, 0);
  EXPECT_EQ(snap.state, "stopping");  // no status at all
  ASSERT_EQ(snap.components.size(), 2u);
  EXPECT_EQ(snap.components[0].tasks, 0);
  EXPECT_EQ(snap.components[0].totals.emitted, 0u);
  EXPECT_EQ(snap.components[0].totals.complete_latency.count, 0u);
  EXPECT_DOUBLE_EQ(snap.components[1].totals.complete_latency.Average(), 3.0);
}

TEST(PageStats, OnlyStormsWindowsAreAccepted) {
  for (const char* w : {"600", "10800", "86400", ":all-time"}) EXPECT_TRUE(IsStormWindow(w)) << w;
  for (const char* w : {"60", "all-time", "", "600 "}) EXPECT_FALSE(IsStormWindow(w)) << w;
}

}  // namespace
}  // namespace sparse::storm
