// Which spouts are throttled because a task downstream of them holds too much.
//
// A task is *hot* once its queue reaches the high watermark in tuples or in bytes held, and stays
// hot until both are at or below the low watermarks (hysteresis, so a queue near the mark does not
// flap). A spout component is throttled while any task its tuples can reach is hot: it gets no
// `next` (its tuples already in flight still finish). Storm's backpressure works the same way,
// per worker, with its own watermarks.
//
// Pure: the cluster reports queue sizes and asks; it wakes the spouts that Cool() releases.
#pragma once

#include <cstddef>
#include <functional>
#include <set>
#include <vector>

namespace sparse::runtime {

struct Plan;

class Backpressure {
 public:
  struct Watermarks {
    std::size_t high = 1000;
    std::size_t low = 500;
    std::size_t high_bytes = 64u << 20;
    std::size_t low_bytes = 32u << 20;
  };
  // What a task holds: tuples queued and bytes of their values.
  struct Load {
    std::size_t depth = 0;
    std::size_t bytes = 0;
  };

  // `upstream_spouts[c]`: the spout components whose tuples can reach component c.
  // `component_of[t]`: task t's component. A low watermark at or above its high one is halved from
  // the high one (configuration validation refuses it; a plan built without it stays sane).
  Backpressure(std::vector<std::vector<int>> upstream_spouts, std::vector<int> component_of,
               Watermarks marks);

  // The spout components whose tuples can reach each component of `plan`.
  static std::vector<std::vector<int>> UpstreamSpouts(const Plan& plan);

  // After a tuple was queued for `task`: true when this made it hot.
  bool Queued(int task, Load load);
  // Tasks whose load (from `load_of`) is back under the low watermarks stop being hot. Returns the
  // spout components no longer throttled (to wake).
  std::vector<int> Cool(const std::function<Load(int task)>& load_of);

  bool Throttled(int spout_component) const {
    return throttle_[static_cast<std::size_t>(spout_component)] > 0;
  }
  bool AnyHot() const { return !hot_.empty(); }

 private:
  void SetHot(int task, bool hot, std::vector<int>* released);

  std::vector<std::vector<int>> upstream_;
  std::vector<int> component_of_;
  Watermarks marks_;
  std::set<int> hot_;
  std::vector<int> throttle_;  // by component: hot tasks it feeds
};

}  // namespace sparse::runtime
