#include "kafka/offset_tracker.hpp"

#include <algorithm>
#include <utility>

namespace sparse::kafka {

namespace {
constexpr std::size_t kMinCapacity = 64;
}

void PartitionOffsets::Resize(std::size_t capacity) {
  std::vector<Record> bigger(capacity);
  for (std::size_t i = 0; i < size_; ++i) bigger[i] = std::move(At(i));
  ring_.swap(bigger);
  head_ = 0;
}

PartitionOffsets::Record* PartitionOffsets::Add(std::int64_t offset) {
  if (next_ && offset < *next_) return nullptr;
  if (!first_) first_ = offset;
  next_ = offset + 1;
  if (size_ == ring_.size()) Resize(ring_.empty() ? kMinCapacity : 2 * ring_.size());
  Record& r = At(size_++);
  r.offset = offset;
  r.done = false;
  r.failures = 0;
  ++pending_;
  return &r;
}

PartitionOffsets::Record* PartitionOffsets::Find(std::int64_t offset) {
  if (size_ == 0 || offset < At(0).offset) return nullptr;
  // Offsets are usually contiguous: try the direct position before searching.
  const auto guess = static_cast<std::uint64_t>(offset - At(0).offset);
  std::size_t i = 0;
  if (guess < size_ && At(guess).offset == offset) {
    i = guess;
  } else {
    std::size_t lo = 0, hi = size_;  // first record at or after `offset`
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (At(mid).offset < offset) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (lo == size_ || At(lo).offset != offset) return nullptr;
    i = lo;
  }
  Record& r = At(i);
  return r.done ? nullptr : &r;
}

bool PartitionOffsets::Done(std::int64_t offset) {
  Record* r = Find(offset);
  if (!r) return false;
  r->done = true;
  r->tuple.reset();
  r->raw.reset();
  --pending_;
  PopDone();
  return true;
}

void PartitionOffsets::PopDone() {
  while (size_ > 0 && At(0).done) {
    head_ = (head_ + 1) & (ring_.size() - 1);
    --size_;
  }
  // Give back what a burst grew, without bouncing at the edge.
  if (ring_.size() > kMinCapacity && size_ < ring_.size() / 8) Resize(ring_.size() / 2);
}

std::optional<std::int64_t> PartitionOffsets::CommitPoint() const {
  if (size_ > 0) return At(0).offset;
  return next_;
}

bool PartitionOffsets::NeedsCommit() const {
  const auto point = CommitPoint();
  return point && (!committed_ || *point > *committed_);
}

void PartitionOffsets::Committed(std::int64_t offset) {
  if (!committed_ || offset > *committed_) committed_ = offset;
}

std::int64_t PartitionOffsets::PastCommit(std::optional<std::int64_t> offset) const {
  if (!offset) return 0;
  // Set with next_ by the first Add, so present whenever an offset is.
  const std::int64_t base = committed_ ? *committed_ : *first_;
  return std::max<std::int64_t>(0, *offset - base);
}

std::int64_t PartitionOffsets::Uncommitted() const {
  return PastCommit(next_);
}

std::int64_t PartitionOffsets::Committable() const {
  return PastCommit(CommitPoint());
}

void PartitionOffsets::Reset() {
  ring_.clear();
  head_ = 0;
  size_ = 0;
  next_.reset();
  first_.reset();
  committed_.reset();
  pending_ = 0;
}

}  // namespace sparse::kafka
