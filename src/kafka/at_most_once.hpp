// The Kafka spout's at-most-once delivery (guarantee: at_most_once), as a pure state machine: no
// Kafka call, the time is an argument. The Session takes records, commits and emits as told.
//
// Records are read in batches. A batch's offsets (per partition, the one after its last record)
// are committed first; only once the broker confirmed that commit are its tuples emitted,
// unanchored: a crash before the commit reads the batch again, one after it never does, so no
// record is emitted twice. A failed commit is retried after a backoff and the batch waits;
// records that cannot be decoded are skipped (counted by the caller) but still committed.
//
//   kFill -> (records added) -> kCommit -> CommitStarted -> kWait -> Committed(ok) -> kEmit
//                                                                 -> Committed(failed): retry
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kafka/partition_table.hpp"

namespace sparse::kafka {

class AtMostOnceBatch {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Step {
    kEmit,    // the batch is committed: emit its tuples (TakeCommitted)
    kWait,    // a commit is in flight, or the retry's backoff has not passed
    kFill,    // no batch: read records into one (Add), then commit it
    kCommit,  // a batch waits for its commit (again, after a failure): send it (offsets)
  };

  explicit AtMostOnceBatch(std::chrono::milliseconds retry_delay) : retry_delay_(retry_delay) {}

  Step Next(Clock::time_point now) const;

  // A record of the batch being filled; `values` is its tuple, or nothing when it was skipped.
  void Add(const TopicPartition& tp, std::int64_t offset, std::optional<std::string> values);
  // Records in the batch (skipped ones excluded), for the caller's batch size.
  std::size_t size() const { return values_.size(); }
  // The offsets to commit: per partition, the one after its last record in the batch.
  const std::map<TopicPartition, std::int64_t>& offsets() const { return offsets_; }

  void CommitStarted() { committing_ = true; }
  bool committing() const { return committing_; }
  // The commit's result; a failure keeps the batch and waits the retry delay from `now`.
  void Committed(bool ok, Clock::time_point now);
  // The committed batch's tuples, in read order; the batch is over.
  std::vector<std::string> TakeCommitted();

 private:
  std::chrono::milliseconds retry_delay_;
  std::vector<std::string> values_;
  std::map<TopicPartition, std::int64_t> offsets_;
  bool committing_ = false;
  bool committed_ = false;
  Clock::time_point retry_at_{};
};

}  // namespace sparse::kafka
