// The at-least-once bookkeeping of one Kafka partition, as a plain data structure (no Kafka, no
// I/O), so it can be tested alone.
//
// Records are added in offset order as they are taken from the broker; each is later marked done
// (its tuple tree was acked, or it was skipped or dead-lettered after its last retry). The commit
// point is the first offset not yet done: every record before it has been fully processed, so
// committing it can never lose a record. Offsets need not be contiguous (compacted topics and
// transaction markers leave gaps); only offsets that were added matter.
//
// A tracked record keeps the tuple it was emitted as (shared with its receivers, not a copy) and
// its failure count, so that a retry can emit it again without fetching it again.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/tuple.hpp"

namespace sparse::kafka {

class PartitionOffsets {
 public:
  // The raw key and value of a record, kept only when a dead-letter topic may need them.
  struct Raw {
    std::optional<std::string> key;
    std::optional<std::string> value;
  };
  struct Record {
    std::int64_t offset = 0;
    bool done = false;
    int failures = 0;
    std::shared_ptr<const runtime::EmittedTuple> tuple;  // what was emitted; released once done
    std::unique_ptr<Raw> raw;                            // released once done
  };

  // Adds the next record taken from the broker (the caller fills in what it keeps). Offsets must
  // increase: returns nullptr and changes nothing for an offset at or below the last one added
  // (a rewind; see Reset). The pointer is valid until the next Add, Done or Reset.
  Record* Add(std::int64_t offset);
  // The record is fully processed. Returns false when it is not tracked or already done (a late
  // or duplicate ack), which changes nothing.
  bool Done(std::int64_t offset);
  // A tracked record that is not done yet, or nullptr.
  Record* Find(std::int64_t offset);

  // The offset to commit (the next one to read after a restart): the first record not done, or
  // one past the last record added when all are done. Empty before the first record.
  std::optional<std::int64_t> CommitPoint() const;
  // True when CommitPoint is ahead of the last confirmed commit.
  bool NeedsCommit() const;
  // The broker confirmed a commit of `offset` (commits never move the confirmed offset back).
  void Committed(std::int64_t offset);
  std::optional<std::int64_t> committed() const { return committed_; }

  // Offsets taken from the broker since the last confirmed commit (or since the first record),
  // counting gaps: after a crash, at most this many offsets are read again.
  std::int64_t Uncommitted() const;
  // Offsets before the commit point and past the last confirmed commit (or the first record):
  // what a commit now would free of the Uncommitted window.
  std::int64_t Committable() const;
  // Records added and not done (in flight or waiting for a retry).
  std::size_t Pending() const { return pending_; }
  // One past the last offset added, if any.
  std::optional<std::int64_t> next() const { return next_; }

  // Forgets everything (after a seek or rewind); the next Add starts afresh.
  void Reset();

 private:
  // Offsets from the last confirmed commit (or the first record) up to `offset`; 0 without one.
  std::int64_t PastCommit(std::optional<std::int64_t> offset) const;
  void PopDone();
  Record& At(std::size_t i) { return ring_[(head_ + i) & (ring_.size() - 1)]; }
  const Record& At(std::size_t i) const { return ring_[(head_ + i) & (ring_.size() - 1)]; }
  void Resize(std::size_t capacity);

  // Tracked records, ascending, in a ring (a power-of-two capacity that grows and shrinks with
  // the window): records come and go in order, once per tuple, and a ring does that without an
  // allocation each time. At(0) is the first record not done.
  std::vector<Record> ring_;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
  std::optional<std::int64_t> next_;
  std::optional<std::int64_t> first_;
  std::optional<std::int64_t> committed_;
  std::size_t pending_ = 0;
};

}  // namespace sparse::kafka
