#include "runtime/backpressure.hpp"

#include "runtime/plan.hpp"

namespace sparse::runtime {

Backpressure::Backpressure(std::vector<std::vector<int>> upstream_spouts,
                           std::vector<int> component_of, Watermarks marks)
    : upstream_(std::move(upstream_spouts)),
      component_of_(std::move(component_of)),
      marks_(marks),
      throttle_(upstream_.size(), 0) {
  if (marks_.low >= marks_.high) marks_.low = marks_.high / 2;
  if (marks_.low_bytes >= marks_.high_bytes) marks_.low_bytes = marks_.high_bytes / 2;
}

std::vector<std::vector<int>> Backpressure::UpstreamSpouts(const Plan& plan) {
  const std::size_t n = plan.components.size();
  std::vector<std::vector<int>> upstream(n);
  for (std::size_t s = 0; s < n; ++s) {
    if (!plan.components[s].def->is_spout()) continue;
    std::vector<bool> seen(n, false);
    std::vector<int> stack{static_cast<int>(s)};
    while (!stack.empty()) {
      const int c = stack.back();
      stack.pop_back();
      for (const auto& subs : plan.component(c).subscribers) {
        for (const auto& sub : subs) {
          const std::size_t target = base::Idx(sub.target_component);
          if (!seen[target]) {
            seen[target] = true;
            upstream[target].push_back(static_cast<int>(s));
            stack.push_back(sub.target_component);
          }
        }
      }
    }
  }
  return upstream;
}

bool Backpressure::Queued(int task, Load load) {
  if (load.depth < marks_.high && load.bytes < marks_.high_bytes) return false;
  if (hot_.count(task)) return false;
  SetHot(task, true, nullptr);
  return true;
}

std::vector<int> Backpressure::Cool(const std::function<Load(int task)>& load_of) {
  std::vector<int> released;
  if (hot_.empty()) return released;
  std::vector<int> cooled;
  for (int t : hot_) {
    const Load l = load_of(t);
    if (l.depth <= marks_.low && l.bytes <= marks_.low_bytes) cooled.push_back(t);
  }
  for (int t : cooled) SetHot(t, false, &released);
  return released;
}

void Backpressure::SetHot(int task, bool hot, std::vector<int>* released) {
  if (hot) {
    hot_.insert(task);
  } else {
    hot_.erase(task);
  }
  const auto c = static_cast<std::size_t>(component_of_[static_cast<std::size_t>(task)]);
  for (int spout : upstream_[c]) {
    if (hot) {
      throttle_[base::Idx(spout)]++;
    } else if (--throttle_[base::Idx(spout)] == 0 && released) {
      released->push_back(spout);
    }
  }
}

}  // namespace sparse::runtime
