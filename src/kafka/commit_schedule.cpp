#include "kafka/commit_schedule.hpp"

namespace sparse::kafka {

std::optional<std::int64_t> CommitSchedule::Take(SpoutPartition& p) const {
  if (p.commit_in_flight || !p.offsets.NeedsCommit()) return std::nullopt;
  p.commit_in_flight = true;
  return p.offsets.CommitPoint();
}

bool CommitSchedule::Uncap(SpoutPartition& p) const {
  if (!p.capped || p.offsets.Uncommitted() >= max_uncommitted_) return false;
  p.capped = false;
  return true;
}

CommitSchedule::Result CommitSchedule::Settled(SpoutPartition& p, std::int64_t offset, bool ok) {
  if (!p.commit_in_flight) return Result::kIgnored;
  p.commit_in_flight = false;
  if (!ok) return Result::kFailed;
  p.offsets.Committed(offset);
  if (Uncap(p)) return Result::kUncapped;
  // Still capped with more done than committed: the next commit should not wait the interval.
  if (p.capped && p.offsets.NeedsCommit()) requested_ = true;
  return Result::kCommitted;
}

bool CommitSchedule::CommittedElsewhere(SpoutPartition& p, std::int64_t offset) const {
  p.offsets.Committed(offset);
  return Uncap(p);
}

}  // namespace sparse::kafka
