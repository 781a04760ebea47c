// A short history of cluster snapshots and the window arithmetic on top of it.
//
// The cluster reports a snapshot about once a second; its counters are totals since the start of
// the run (a restarted task keeps its counters). Stats over a window are the difference between
// the newest snapshot and the newest one at least `window` seconds older. Values that describe
// the present (queue depth, pending, capacity, gauges, last error) are taken from the newest
// snapshot as they are.
//
// Not thread-safe: owned and used on the cluster's event loop.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string_view>

#include "runtime/local_cluster.hpp"

namespace sparse::web {

// The stats between `older` and `newer` (both from the same run): counters and latency sums
// subtracted (never below zero), current values from `newer`. Components are matched by id; one
// missing from `older` counts from zero.
runtime::ClusterSnapshot WindowDelta(const runtime::ClusterSnapshot& older,
                                     const runtime::ClusterSnapshot& newer);
// The same for one set of counters (a component's totals or a task's).
runtime::TaskStats TaskStatsDelta(const runtime::TaskStats& older, const runtime::TaskStats& newer);

// A window: a number of seconds up to now, or all of the run (Storm's `:all-time`).
struct Window {
  std::optional<double> secs;  // nullopt: all time
  bool all_time() const { return !secs.has_value(); }
  std::string Name() const;    // "600" or ":all-time", as in Storm UI's `window` field
  std::string Pretty() const;  // "10m 0s" or "All time", as in Storm UI's `windowPretty`
};

inline constexpr double kTenMinutes = 600;
// Parses Storm UI's `window` query parameter: empty or ":all-time", or whole seconds in
// 1..max_secs. nullopt on anything else.
std::optional<Window> ParseWindow(std::string_view text, double max_secs = kTenMinutes);

struct WindowStats {
  runtime::ClusterSnapshot stats;
  double covered_secs = 0;  // how much time the numbers actually cover (less early in a run)
};

class SnapshotHistory {
 public:
  // Keeps enough snapshots to answer windows up to `keep_secs`, and at most `max_entries`.
  explicit SnapshotHistory(double keep_secs = kTenMinutes, std::size_t max_entries = 1300);

  // Snapshots must come in order of uptime.
  void Add(runtime::ClusterSnapshot snapshot);
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  const runtime::ClusterSnapshot& latest() const { return entries_.back(); }
  // Oldest first: the snapshots kept.
  const std::deque<runtime::ClusterSnapshot>& entries() const { return entries_; }

  // Stats over the window ending at the latest snapshot. Requires !empty().
  WindowStats Stats(const Window& window) const;

 private:
  double keep_secs_;
  std::size_t max_entries_;
  std::deque<runtime::ClusterSnapshot> entries_;
  bool dropped_any_ = false;  // false: entries_.front() is the first snapshot of the run
};

}  // namespace sparse::web
