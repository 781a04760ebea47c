#include "storm/page_stats.hpp"

#include <algorithm>
#include <array>

namespace sparse::storm {

namespace {

std::uint64_t Count(bool set, std::int64_t v) {
  return set && v > 0 ? static_cast<std::uint64_t>(v) : 0;
}

// Storm reports an average only; a LatencyStat keeps count and total, so the average is
// weighted by the tuples it covers (at least one, so that an average with no count still shows).
runtime::LatencyStat Latency(bool set, double average_ms, std::uint64_t tuples) {
  runtime::LatencyStat l;
  if (!set || !(average_ms > 0)) return l;
  l.count = std::max<std::uint64_t>(tuples, 1);
  l.total_ms = average_ms * static_cast<double>(l.count);
  return l;
}

runtime::ComponentStats Component(const std::string& id, const gen::ComponentAggregateStats& agg,
                                  bool spout, std::int64_t now_secs) {
  runtime::ComponentStats c;
  c.id = id;
  c.spout = spout;
  if (agg.__isset.common_stats) {
    const auto& common = agg.common_stats;
    c.tasks = common.__isset.num_tasks ? common.num_tasks : 0;
    c.totals.emitted = Count(common.__isset.emitted, common.emitted);
    c.totals.transferred = Count(common.__isset.transferred, common.transferred);
    c.totals.acked = Count(common.__isset.acked, common.acked);
    c.totals.failed = Count(common.__isset.failed, common.failed);
  }
  if (agg.__isset.specific_stats) {
    const auto& specific = agg.specific_stats;
    if (spout && specific.__isset.spout) {
      const auto& s = specific.spout;
      c.totals.complete_latency =
          Latency(s.__isset.complete_latency_ms, s.complete_latency_ms, c.totals.acked);
    } else if (!spout && specific.__isset.bolt) {
      const auto& b = specific.bolt;
      c.totals.executed = Count(b.__isset.executed, b.executed);
      c.totals.process_latency =
          Latency(b.__isset.process_latency_ms, b.process_latency_ms, c.totals.executed);
      c.totals.execute_latency =
          Latency(b.__isset.execute_latency_ms, b.execute_latency_ms, c.totals.executed);
      c.capacity = b.__isset.capacity ? b.capacity : 0;
    }
  }
  if (agg.__isset.last_error && agg.last_error.__isset.error && !agg.last_error.error.empty()) {
    c.last_error = agg.last_error.error;
    if (agg.last_error.__isset.error_time_secs) {
      c.last_error_age_secs =
          static_cast<double>(std::max<std::int64_t>(0, now_secs - agg.last_error.error_time_secs));
    }
  }
  return c;
}

}  // namespace

runtime::ClusterSnapshot SnapshotFromPageInfo(const gen::TopologyPageInfo& page,
                                              std::int64_t now_secs) {
  runtime::ClusterSnapshot s;
  s.uptime_secs = page.__isset.uptime_secs ? page.uptime_secs : 0;
  const std::string status = page.__isset.status ? page.status : "";
  s.active = status == "ACTIVE";
  if (status == "ACTIVE" || status == "INACTIVE") {
    s.state = "running";
  } else if (status == "REBALANCING") {
    s.state = "rebalancing";
  } else {
    s.state = "stopping";
  }
  s.tasks_total = s.tasks_ready = page.__isset.num_tasks ? page.num_tasks : 0;
  for (const auto& [id, agg] : page.id_to_spout_agg_stats) {
    s.components.push_back(Component(id, agg, true, now_secs));
  }
  for (const auto& [id, agg] : page.id_to_bolt_agg_stats) {
    s.components.push_back(Component(id, agg, false, now_secs));
  }
  std::sort(s.components.begin(), s.components.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  return s;
}

bool IsStormWindow(const std::string& window) {
  static constexpr std::array<const char*, 4> kWindows = {"600", "10800", "86400", ":all-time"};
  return std::find(kWindows.begin(), kWindows.end(), window) != kWindows.end();
}

}  // namespace sparse::storm
