#include "kafka/fetch_nudge.hpp"

#include <algorithm>

namespace sparse::kafka {

bool FetchNudge::Due(Clock::time_point now, std::int64_t arrived, std::int64_t queued) {
  if (arrived != last_arrived_) {
    last_arrived_ = arrived;
    quiet_since_ = now;
    wait_ = kFirstWait;
    return false;
  }
  // At or above the threshold librdkafka would not fetch even if woken.
  if (in_flight_ || queued >= threshold_) return false;
  return now - quiet_since_ >= wait_;
}

void FetchNudge::Sent(Clock::time_point now) {
  in_flight_ = true;
  ++sent_;
  quiet_since_ = now;
  wait_ = std::min(wait_ * 2, kLongestWait);
}

}  // namespace sparse::kafka
