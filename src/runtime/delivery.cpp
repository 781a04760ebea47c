#include "runtime/delivery.hpp"

#include <algorithm>

#include "multilang/loop_clock.hpp"

namespace sparse::runtime {

std::int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             multilang::LoopClock::Now().time_since_epoch())
      .count();
}

void DeliverFromSpout(TupleHost& host, int spout_task, std::shared_ptr<const EmittedTuple> tuple,
                      const std::vector<int>& targets, const std::string& message_id,
                      bool tracked) {
  const auto now = multilang::LoopClock::Now();
  const std::int64_t now_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  // The last target takes the caller's reference to the tuple, sparing a count up and down.
  const std::size_t last = targets.empty() ? 0 : targets.size() - 1;
  if (!tracked) {
    for (std::size_t i = 0; i < targets.size(); ++i) {
      InputTuple in;
      in.tuple = i == last ? std::move(tuple) : tuple;
      in.arrived_ns = now_ns;
      host.Deliver(targets[i], std::move(in));
    }
    return;
  }
  const std::uint64_t root = host.ids().Next();
  // The edge ids are drawn before any delivery, so the tree is registered (with their XOR) before
  // a receiving task can ack; a spout tuple rarely goes to more than a few tasks, so they live on
  // the stack.
  constexpr std::size_t kInline = 8;
  std::uint64_t inline_edges[kInline];
  std::vector<std::uint64_t> more;
  std::uint64_t* edges = inline_edges;
  if (targets.size() > kInline) {
    more.resize(targets.size());
    edges = more.data();
  }
  std::uint64_t all = 0;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    edges[i] = host.ids().Next();
    all ^= edges[i];
  }
  host.acker().Init(root, all, spout_task, message_id, now);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    InputTuple in;
    in.tuple = i == last ? std::move(tuple) : tuple;
    in.arrived_ns = now_ns;
    in.roots.push_back({root, edges[i]});
    host.Deliver(targets[i], std::move(in));
  }
}

void DeliverFromBolt(TupleHost& host, std::shared_ptr<const EmittedTuple> tuple,
                     const std::vector<int>& targets, const std::vector<AnchorRef>& anchors) {
  const std::int64_t now_ns = NowNs();
  const std::size_t last = targets.empty() ? 0 : targets.size() - 1;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const int target = targets[i];
    InputTuple in;
    in.tuple = i == last ? std::move(tuple) : tuple;
    in.arrived_ns = now_ns;
    for (const AnchorRef& a : anchors) {
      if (a.roots->empty()) continue;
      const std::uint64_t edge = host.ids().Next();
      *a.ack_val ^= edge;
      for (const auto& r : *a.roots) {
        auto pos = std::find_if(in.roots.begin(), in.roots.end(),
                                [&](const RootEdge& e) { return e.root == r.root; });
        if (pos == in.roots.end()) {
          in.roots.push_back({r.root, edge});
        } else {
          pos->id ^= edge;
        }
      }
    }
    host.Deliver(target, std::move(in));
  }
}

}  // namespace sparse::runtime
