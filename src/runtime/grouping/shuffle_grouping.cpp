// Shuffle: Storm deals tuples round-robin over a shuffled task list, reshuffling after each
// round, which is even in the short run and random in order. Also used for none and
// local_or_shuffle (every task is local in one process).
#include <algorithm>
#include <random>

#include "runtime/grouping/grouping.hpp"

namespace sparse::runtime {

namespace {
class ShuffleGrouping final : public GroupingStrategy {
 public:
  ShuffleGrouping(std::vector<int> tasks, std::uint64_t seed)
      : tasks_(std::move(tasks)), rng_(seed) {
    std::shuffle(tasks_.begin(), tasks_.end(), rng_);
  }
  void Choose(const EmittedTuple&, std::vector<int>& out) override {
    if (tasks_.empty()) return;
    if (next_ == tasks_.size()) {
      std::shuffle(tasks_.begin(), tasks_.end(), rng_);
      next_ = 0;
    }
    out.push_back(tasks_[next_++]);
  }

 private:
  std::vector<int> tasks_;
  std::mt19937_64 rng_;
  std::size_t next_ = 0;
};
}  // namespace

std::unique_ptr<GroupingStrategy> MakeShuffleGrouping(std::vector<int> tasks, std::uint64_t seed) {
  return std::make_unique<ShuffleGrouping>(std::move(tasks), seed);
}

}  // namespace sparse::runtime
