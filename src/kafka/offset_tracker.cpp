#include "kafka/offset_tracker.hpp"

#include <algorithm>

namespace sparse::kafka {

PartitionOffsets::Record* PartitionOffsets::Add(std::int64_t offset, std::string values_json) {
  if (next_ && offset < *next_) return nullptr;
  if (!first_) first_ = offset;
  next_ = offset + 1;
  records_.push_back(Record{offset, false, 0, std::move(values_json), {}, {}});
  ++pending_;
  return &records_.back();
}

PartitionOffsets::Record* PartitionOffsets::Find(std::int64_t offset) {
  if (records_.empty() || offset < records_.front().offset) return nullptr;
  // Offsets are usually contiguous: try the direct position before searching.
  const auto guess = static_cast<std::uint64_t>(offset - records_.front().offset);
  if (guess < records_.size() && records_[guess].offset == offset) {
    Record& r = records_[guess];
    return r.done ? nullptr : &r;
  }
  auto it = std::lower_bound(records_.begin(), records_.end(), offset,
                             [](const Record& r, std::int64_t o) { return r.offset < o; });
  if (it == records_.end() || it->offset != offset || it->done) return nullptr;
  return &*it;
}

bool PartitionOffsets::Done(std::int64_t offset) {
  Record* r = Find(offset);
  if (!r) return false;
  r->done = true;
  r->values_json = std::string();
  r->key.reset();
  r->value.reset();
  --pending_;
  PopDone();
  return true;
}

void PartitionOffsets::PopDone() {
  while (!records_.empty() && records_.front().done) records_.pop_front();
}

std::optional<std::int64_t> PartitionOffsets::CommitPoint() const {
  if (!records_.empty()) return records_.front().offset;
  return next_;
}

bool PartitionOffsets::NeedsCommit() const {
  const auto point = CommitPoint();
  return point && (!committed_ || *point > *committed_);
}

void PartitionOffsets::Committed(std::int64_t offset) {
  if (!committed_ || offset > *committed_) committed_ = offset;
}

std::int64_t PartitionOffsets::Uncommitted() const {
  if (!next_) return 0;
  const std::int64_t base = committed_ ? *committed_ : *first_;
  return std::max<std::int64_t>(0, *next_ - base);
}

void PartitionOffsets::Reset() {
  records_.clear();
  next_.reset();
  first_.reset();
  committed_.reset();
  pending_ = 0;
}

}  // namespace sparse::kafka
