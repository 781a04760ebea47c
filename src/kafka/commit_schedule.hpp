// When the at-least-once Kafka spout commits offsets, what it commits, and what a commit's
// result changes. Pure (the time is an argument, no Kafka call): the Session sends the commits
// and hands the results back here.
//
// When: every commit_interval_ms, and sooner when asked (a partition reached its cap, or one
//   capped has a record done, or the spout was deactivated), since a capped partition reads
//   nothing until a commit catches up. Also sooner once half the cap is done and uncommitted:
//   a partition whose acks keep up then never reaches its cap, which pauses it (and resuming
//   costs a fetch round trip and the records prefetched); each such commit frees at least half
//   the cap, so there are at most two per cap's worth of records.
// What: per partition, its commit point (PartitionOffsets::CommitPoint: every record before it
//   is done) when it is ahead of the last confirmed commit; one commit in flight per partition.
// Results: a confirmed commit moves the partition's committed offset; a partition capped at
//   max_uncommitted_offsets resumes once the offsets read past its commit fall below the cap,
//   else (it is still capped but has more done) commits again at once. A failed commit is
//   retried with the next one.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>

#include "kafka/partition_table.hpp"

namespace sparse::kafka {

class CommitSchedule {
 public:
  using Clock = std::chrono::steady_clock;

  CommitSchedule(std::chrono::milliseconds interval, std::int64_t max_uncommitted)
      : interval_(interval),
        max_uncommitted_(max_uncommitted),
        commit_early_at_(std::max<std::int64_t>(1, max_uncommitted / 2)) {}

  // The first commit is due one interval after `now`.
  void Start(Clock::time_point now) { next_ = now + interval_; }
  // Commit at the next chance rather than at the interval.
  void Request() { requested_ = true; }
  bool requested() const { return requested_; }
  bool Due(Clock::time_point now) const { return requested_ || now >= next_; }
  // A commit round starts now: the next is due one interval later.
  void Began(Clock::time_point now) {
    requested_ = false;
    next_ = now + interval_;
  }

  // The offset to commit for `p` in this round, marking its commit in flight; nothing when it
  // has a commit in flight or nothing new to commit.
  std::optional<std::int64_t> Take(SpoutPartition& p) const;

  // Read and Done run once per record: inline.
  // The partition read a record: true when it reached max_uncommitted_offsets now (it is capped
  // and a commit is requested; the caller pauses it).
  bool Read(SpoutPartition& p) {
    if (p.offsets.Uncommitted() < max_uncommitted_) return false;
    p.capped = true;
    requested_ = true;
    return true;
  }
  // A record of `p` is done (acked, skipped or dead-lettered). False when it was not tracked (a
  // late or duplicate ack). A capped partition asks for a commit, which may uncap it; so does
  // one with half its cap done and uncommitted and no commit in flight.
  bool Done(SpoutPartition& p, std::int64_t offset) {
    if (!p.offsets.Done(offset)) return false;
    if (p.capped || (!p.commit_in_flight && p.offsets.Committable() >= commit_early_at_)) {
      requested_ = true;
    }
    return true;
  }

  enum class Result {
    kIgnored,    // no commit of ours was in flight for it (an old round, or another session's)
    kFailed,     // the commit failed; the next round retries it
    kCommitted,  // confirmed
    kUncapped,   // confirmed, and the partition is below its cap again: the caller resumes it
  };
  // The broker answered the commit of `offset` for `p` (ok or not).
  Result Settled(SpoutPartition& p, std::int64_t offset, bool ok);
  // A commit of `offset` made elsewhere (an exactly_once epoch's transaction) was confirmed:
  // true when the partition is below its cap again (the caller resumes it).
  bool CommittedElsewhere(SpoutPartition& p, std::int64_t offset) const;

 private:
  bool Uncap(SpoutPartition& p) const;

  std::chrono::milliseconds interval_;
  std::int64_t max_uncommitted_;
  std::int64_t commit_early_at_;  // Committable() at which a commit is asked for before the cap
  bool requested_ = false;
  Clock::time_point next_{};
};

}  // namespace sparse::kafka
