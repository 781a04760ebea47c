#include "runtime/acker.hpp"

#include <vector>

#include "multilang/loop_clock.hpp"

namespace sparse::runtime {

void Acker::Init(std::uint64_t root, std::uint64_t edges_xor, int spout_task,
                 std::string message_id, Clock::time_point now) {
  if (edges_xor == 0) {
    callback_(spout_task, std::move(message_id), TreeOutcome::kAcked, std::chrono::nanoseconds(0));
    return;
  }
  trees_[root] = Tree{edges_xor, spout_task, std::move(message_id), now};
  by_age_.emplace_back(now, root);
}

void Acker::Update(std::uint64_t root, std::uint64_t value) {
  auto it = trees_.find(root);
  if (it == trees_.end()) return;
  it->second.value ^= value;
  if (it->second.value == 0) Complete(it, TreeOutcome::kAcked);
}

void Acker::Fail(std::uint64_t root) {
  auto it = trees_.find(root);
  if (it != trees_.end()) Complete(it, TreeOutcome::kFailed);
}

void Acker::Expire(Clock::time_point now) {
  while (!by_age_.empty() && now - by_age_.front().first >= timeout_) {
    auto [started, root] = by_age_.front();
    by_age_.pop_front();
    auto it = trees_.find(root);
    if (it != trees_.end() && it->second.started == started) Complete(it, TreeOutcome::kTimedOut);
  }
  // Completed roots linger in by_age_ until their deadline; compact when they dominate.
  if (by_age_.size() > 4 * trees_.size() + 1024) {
    std::deque<std::pair<Clock::time_point, std::uint64_t>> live;
    for (const auto& e : by_age_) {
      auto it = trees_.find(e.second);
      if (it != trees_.end() && it->second.started == e.first) live.push_back(e);
    }
    by_age_.swap(live);
  }
}

void Acker::AbandonSpoutTask(int spout_task) {
  std::vector<std::uint64_t> roots;
  for (const auto& [root, tree] : trees_) {
    if (tree.spout_task == spout_task) roots.push_back(root);
  }
  for (auto root : roots) Complete(trees_.find(root), TreeOutcome::kAbandoned);
}

void Acker::Complete(PooledHashMap<std::uint64_t, Tree>::iterator it, TreeOutcome outcome) {
  Tree tree = std::move(it->second);
  trees_.erase(it);
  callback_(tree.spout_task, std::move(tree.message_id), outcome,
            multilang::LoopClock::Now() - tree.started);
}

}  // namespace sparse::runtime
