#include "runtime/inflight_table.hpp"

#include <charconv>

#include "runtime/delivery.hpp"

namespace sparse::runtime {

std::optional<std::uint64_t> InFlightTable::ParseId(std::string_view text) {
  std::uint64_t id = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return id;
}

std::optional<std::string> InFlightTable::Anchor(const std::vector<std::string>& anchors,
                                                 std::vector<AnchorRef>& refs) {
  refs.clear();
  for (const auto& a : anchors) {
    const auto id = ParseId(a);
    if (id) {
      if (Input* in = Find(*id)) {
        refs.push_back({&in->roots, &in->ack_val});
        continue;
      }
      if (expired_.count(*id)) continue;
    }
    return a;
  }
  return std::nullopt;
}

void InFlightTable::Settle(const Input& in, bool ack, Acker& acker) {
  for (const auto& r : in.roots) {
    if (ack) {
      acker.Update(r.root, r.id ^ in.ack_val);
    } else {
      acker.Fail(r.root);
    }
  }
}

std::size_t InFlightTable::FailAll(Acker& acker) {
  std::size_t work = 0;
  for (auto& [id, in] : inputs_) {
    Settle(in, false, acker);
    if (!in.tick) ++work;
  }
  inputs_.clear();
  return work;
}

void InFlightTable::Expire(Clock::time_point now, Clock::duration max_age, TaskStats& stats) {
  for (auto it = inputs_.begin(); it != inputs_.end();) {
    if (it->second.timed && now - it->second.handed > max_age) {
      expired_.insert(it->first);
      expired_order_.push_back(it->first);
      stats.expired_inputs++;
      it = inputs_.erase(it);
    } else {
      ++it;
    }
  }
  while (expired_order_.size() > kExpiredMemory) {
    expired_.erase(expired_order_.front());
    expired_order_.pop_front();
  }
}

}  // namespace sparse::runtime
