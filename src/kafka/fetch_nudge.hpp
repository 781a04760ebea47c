// When the Kafka spout wakes librdkafka's fetcher. librdkafka before 2.2 (Debian 12 has 2.0)
// stops fetching once its consumer queue holds queued.min.messages records, and looks again only
// when the broker thread next wakes: on a response, on a request to send, or after up to a second.
// A consumer that drains the queue while no fetch is in flight waits for that second, then reads
// again, and so on, unless the queue holds a second's worth of records: 1,000,000 small records,
// some 400 MiB, per spout task. Instead the spout watches whether records still arrive and, when
// none arrived for a while although the queue is below the threshold (so librdkafka would fetch if
// it looked), sends a cheap request to the partition's leader (a watermark query), whose sending
// wakes that broker's thread. Later librdkafka (fetch.queue.backoff.ms) needs no nudge; one costs
// it two small ListOffsets requests.
//
// Pure: the time and the counts are arguments. Backs off (doubling, up to a second, where
// librdkafka's own wake-up takes over) while nudges bring nothing, as when the topic has no new
// records; any arrival starts afresh.
#pragma once

#include <chrono>
#include <cstdint>

namespace sparse::kafka {

class FetchNudge {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::milliseconds kFirstWait{20};
  static constexpr std::chrono::milliseconds kLongestWait{1000};

  // `threshold`: the consumer's queued.min.messages.
  explicit FetchNudge(std::int64_t threshold) : threshold_(threshold) {}

  // Called often (every tick). `arrived`: records received from librdkafka so far plus those in
  // its queue now; `queued`: those in its queue now. True when a nudge is to be sent now (then
  // Sent, and Done once it returned).
  bool Due(Clock::time_point now, std::int64_t arrived, std::int64_t queued);
  void Sent(Clock::time_point now);
  void Done() { in_flight_ = false; }

  std::int64_t sent() const { return sent_; }

 private:
  std::int64_t threshold_;
  std::int64_t last_arrived_ = -1;
  Clock::time_point quiet_since_{};  // the last arrival, or the last nudge
  std::chrono::milliseconds wait_ = kFirstWait;
  bool in_flight_ = false;
  std::int64_t sent_ = 0;
};

}  // namespace sparse::kafka
