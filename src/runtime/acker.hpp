// Tracks the tuple tree of every reliable spout tuple, Storm's way: a tree is one 64-bit value,
// the XOR of the ids of every edge created (emit) and closed (ack); it is complete when the value
// returns to zero. Memory is O(pending trees), whatever the size of the trees.
//
// Single-threaded (the cluster's event loop). Completion, failure and timeout are reported through
// the callback exactly once per root; after that the root is forgotten, so late acks and fails for
// it are ignored (counted by the caller if it wants).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>

#include "runtime/pool_allocator.hpp"

namespace sparse::runtime {

enum class TreeOutcome { kAcked, kFailed, kTimedOut, kAbandoned };

class Acker {
 public:
  using Clock = std::chrono::steady_clock;
  using Callback = std::function<void(int spout_task, std::string message_id, TreeOutcome outcome,
                                      std::chrono::nanoseconds age)>;

  Acker(std::chrono::milliseconds timeout, Callback callback)
      : timeout_(timeout), callback_(std::move(callback)) {}

  // Starts tracking `root` for a spout emit whose deliveries carry edge ids XORing to
  // `edges_xor`. With no receivers (edges_xor == 0) the tree completes at once.
  void Init(std::uint64_t root, std::uint64_t edges_xor, int spout_task, std::string message_id,
            Clock::time_point now);
  // XORs `value` into the tree (ack of a tuple: its id XOR the edges it created).
  void Update(std::uint64_t root, std::uint64_t value);
  // Fails the tree (explicit fail, or a task failure).
  void Fail(std::uint64_t root);
  // Times out every tree older than the timeout.
  void Expire(Clock::time_point now);
  // Forgets the trees of a spout task that died: they complete as kAbandoned.
  void AbandonSpoutTask(int spout_task);

  bool Tracking(std::uint64_t root) const { return trees_.count(root) != 0; }
  // The spout task and message id of a tree still pending; false when `root` is not tracked
  // (never was, or already completed, failed or timed out).
  bool Origin(std::uint64_t root, int& spout_task, const std::string*& message_id) const {
    auto it = trees_.find(root);
    if (it == trees_.end()) return false;
    spout_task = it->second.spout_task;
    message_id = &it->second.message_id;
    return true;
  }
  std::size_t pending() const { return trees_.size(); }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  struct Tree {
    std::uint64_t value = 0;
    int spout_task = 0;
    std::string message_id;
    Clock::time_point started;
  };
  void Complete(PooledHashMap<std::uint64_t, Tree>::iterator it, TreeOutcome outcome);

  std::chrono::milliseconds timeout_;
  Callback callback_;
  PooledHashMap<std::uint64_t, Tree> trees_;
  // Roots in start order; start times only grow, so expiry pops from the front. Completed roots
  // are skipped lazily. Bounded by (trees started per timeout period).
  std::deque<std::pair<Clock::time_point, std::uint64_t>> by_age_;
};

}  // namespace sparse::runtime
