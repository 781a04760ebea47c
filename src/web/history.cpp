#include "web/history.hpp"

#include <charconv>
#include <cmath>
#include <string>

namespace sparse::web {

namespace {

std::uint64_t Minus(std::uint64_t newer, std::uint64_t older) {
  return newer > older ? newer - older : 0;
}

runtime::LatencyStat Minus(const runtime::LatencyStat& newer, const runtime::LatencyStat& older) {
  runtime::LatencyStat d;
  if (newer.count <= older.count) return d;
  d.count = newer.count - older.count;
  d.total_ms = std::max(0.0, newer.total_ms - older.total_ms);
  return d;
}

runtime::TaskStats Minus(const runtime::TaskStats& n, const runtime::TaskStats& o) {
  runtime::TaskStats d = n;  // current values (queue depth, pending, gauges) as they are
  d.emitted = Minus(n.emitted, o.emitted);
  d.transferred = Minus(n.transferred, o.transferred);
  d.executed = Minus(n.executed, o.executed);
  d.acked = Minus(n.acked, o.acked);
  d.failed = Minus(n.failed, o.failed);
  d.timed_out = Minus(n.timed_out, o.timed_out);
  d.errors = Minus(n.errors, o.errors);
  d.restarts = Minus(n.restarts, o.restarts);
  d.dropped = Minus(n.dropped, o.dropped);
  d.expired_inputs = Minus(n.expired_inputs, o.expired_inputs);
  d.abandoned = Minus(n.abandoned, o.abandoned);
  d.logs = Minus(n.logs, o.logs);
  d.metrics_received = Minus(n.metrics_received, o.metrics_received);
  d.backpressure_ms = Minus(n.backpressure_ms, o.backpressure_ms);
  d.complete_latency = Minus(n.complete_latency, o.complete_latency);
  d.process_latency = Minus(n.process_latency, o.process_latency);
  d.execute_latency = Minus(n.execute_latency, o.execute_latency);
  return d;
}

std::string Pretty(double secs) {
  const auto total = static_cast<long long>(std::llround(secs));
  const long long d = total / 86400, h = total % 86400 / 3600, m = total % 3600 / 60,
                  s = total % 60;
  std::string out;
  if (d) out += std::to_string(d) + "d ";
  if (d || h) out += std::to_string(h) + "h ";
  if (d || h || m) out += std::to_string(m) + "m ";
  return out + std::to_string(s) + "s";
}

}  // namespace

runtime::TaskStats TaskStatsDelta(const runtime::TaskStats& older,
                                  const runtime::TaskStats& newer) {
  return Minus(newer, older);
}

runtime::ClusterSnapshot WindowDelta(const runtime::ClusterSnapshot& older,
                                     const runtime::ClusterSnapshot& newer) {
  runtime::ClusterSnapshot d = newer;
  for (auto& c : d.components) {
    for (const auto& o : older.components) {
      if (o.id != c.id) continue;
      c.totals = Minus(c.totals, o.totals);
      for (auto& row : c.per_task) {
        for (const auto& old : o.per_task) {
          if (old.task == row.task) row.stats = Minus(row.stats, old.stats);
        }
      }
      for (auto& stream : c.per_stream) {
        for (const auto& old : o.per_stream) {
          if (old.stream != stream.stream) continue;
          stream.emitted = Minus(stream.emitted, old.emitted);
          stream.transferred = Minus(stream.transferred, old.transferred);
        }
      }
      break;
    }
  }
  return d;
}

std::string Window::Name() const {
  if (all_time()) return ":all-time";
  return std::to_string(static_cast<long long>(std::llround(*secs)));
}

std::string Window::Pretty() const {
  return all_time() ? "All time" : web::Pretty(*secs);
}

std::optional<Window> ParseWindow(std::string_view text, double max_secs) {
  if (text.empty() || text == ":all-time") return Window{};
  long long secs = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), secs);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  if (secs < 1 || static_cast<double>(secs) > max_secs) return std::nullopt;
  return Window{static_cast<double>(secs)};
}

SnapshotHistory::SnapshotHistory(double keep_secs, std::size_t max_entries)
    : keep_secs_(keep_secs), max_entries_(std::max<std::size_t>(max_entries, 2)) {}

void SnapshotHistory::Add(runtime::ClusterSnapshot snapshot) {
  entries_.push_back(std::move(snapshot));
  // Keep the newest snapshot that is at least keep_secs old: it is the base of the longest
  // window. Everything older is no longer needed.
  const double cutoff = entries_.back().uptime_secs - keep_secs_;
  while (entries_.size() >= 2 && entries_[1].uptime_secs <= cutoff) {
    entries_.pop_front();
    dropped_any_ = true;
  }
  while (entries_.size() > max_entries_) {
    entries_.pop_front();
    dropped_any_ = true;
  }
}

WindowStats SnapshotHistory::Stats(const Window& window) const {
  const runtime::ClusterSnapshot& newest = entries_.back();
  if (window.all_time()) return {newest, newest.uptime_secs};
  const double cutoff = newest.uptime_secs - *window.secs;
  // The newest snapshot at or before the cutoff.
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    if (it->uptime_secs <= cutoff) {
      return {WindowDelta(*it, newest), newest.uptime_secs - it->uptime_secs};
    }
  }
  // The run (or what is left of its history) is younger than the window.
  if (!dropped_any_) return {newest, newest.uptime_secs};
  const auto& oldest = entries_.front();
  return {WindowDelta(oldest, newest), newest.uptime_secs - oldest.uptime_secs};
}

}  // namespace sparse::web
