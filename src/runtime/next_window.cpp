#include "runtime/next_window.hpp"

#include <algorithm>

namespace sparse::runtime {

NextWindow::NextWindow(std::size_t most_ahead)
    : most_ahead_(std::max<std::size_t>(most_ahead, 1)) {}

void NextWindow::Synced(Clock::time_point sent, Clock::time_point now) {
  busy_ += std::max(now - WorkingSince(sent), Clock::duration::zero());
  last_sync_ = std::max(last_sync_, now);
  // Syncs read together share one timestamp, so the first of them takes all the time and the
  // rest zero; the pace is the sum over the count, so a batch is still its time per command.
  // Every command counts, not only `next`s: a spout that answers `activate` and a slow `next` in
  // one write has the first sync take the `next`'s time. Halving both sums keeps the recent past
  // only: a spout that turns slow narrows its window within a few commands.
  if (++answered_ >= kMemory) {
    busy_ /= 2;
    answered_ /= 2;
  }
}

std::size_t NextWindow::Allowed() const {
  if (answered_ == 0 || busy_ <= Clock::duration::zero()) return most_ahead_;
  // Commands that fit in the budget at busy_ / answered_ each.
  const auto fits = static_cast<std::size_t>(kBudget * answered_ / busy_);
  return std::clamp<std::size_t>(fits, 1, most_ahead_);
}

void NextWindow::Reset() {
  last_sync_ = {};
  busy_ = {};
  answered_ = 0;
}

}  // namespace sparse::runtime
