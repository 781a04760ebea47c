#include "runtime/spout_ledger.hpp"

#include "runtime/config.hpp"

namespace sparse::runtime {

SpoutLedger::Limits SpoutLedger::LimitsOf(const ConfigView& conf) {
  Limits l;
  l.acking = conf.AckingEnabled();
  l.max_pending = conf.Int(keys::kMaxSpoutPending);
  return l;
}

SpoutLedger::Emit SpoutLedger::Emitted(std::string_view message_id) {
  if (message_id.empty()) return Emit::kUntracked;
  if (limits_.acking) {
    stats_.pending++;
    return Emit::kTracked;
  }
  stats_.acked++;
  return Emit::kAckAtOnce;
}

bool SpoutLedger::Full(std::int64_t asked) const {
  if (!limits_.acking || !limits_.max_pending || *limits_.max_pending <= 0) return false;
  return static_cast<std::int64_t>(stats_.pending) + asked >= *limits_.max_pending;
}

SpoutLedger::Tell SpoutLedger::TreeDone(TreeOutcome outcome) {
  stats_.pending = stats_.pending ? stats_.pending - 1 : 0;
  switch (outcome) {
    case TreeOutcome::kAcked:
      stats_.acked++;
      return Tell::kAck;
    case TreeOutcome::kFailed:
      stats_.failed++;
      return Tell::kFail;
    case TreeOutcome::kTimedOut:
      stats_.failed++;
      stats_.timed_out++;
      return Tell::kFail;
    case TreeOutcome::kAbandoned:
      stats_.abandoned++;
      return Tell::kNothing;
  }
  return Tell::kNothing;
}

SpoutLedger::Throttle SpoutLedger::Throttled(bool throttled, Clock::time_point now) {
  if (throttled) {
    if (throttled_since_) return Throttle::kUnchanged;
    throttled_since_ = now;
    return Throttle::kStarted;
  }
  if (!throttled_since_) return Throttle::kUnchanged;
  stats_.backpressure_ms += static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now - *throttled_since_).count());
  throttled_since_.reset();
  return Throttle::kEnded;
}

}  // namespace sparse::runtime
