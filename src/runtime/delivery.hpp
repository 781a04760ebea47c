// Delivering an emitted tuple to its receiving tasks with Storm's acking identities. Shared by
// shell and built-in tasks so the XOR bookkeeping lives in one place.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/task.hpp"

namespace sparse::runtime {

// An input tuple an emit is anchored to: its roots, and the ack value that collects the edges
// created from it.
struct AnchorRef {
  const RootEdges* roots;
  std::uint64_t* ack_val;
};

// Spout emit. When `tracked`, starts a tree rooted at a new id (before any delivery, so acks can
// only follow) and returns true.
void DeliverFromSpout(TupleHost& host, int spout_task, std::shared_ptr<const EmittedTuple> tuple,
                      const std::vector<int>& targets, const std::string& message_id, bool tracked);

// Bolt emit: one new edge per (delivery, anchor), recorded in the anchor's ack value and carried
// by the delivery for each of the anchor's roots.
void DeliverFromBolt(TupleHost& host, std::shared_ptr<const EmittedTuple> tuple,
                     const std::vector<int>& targets, const std::vector<AnchorRef>& anchors);

std::int64_t NowNs();

}  // namespace sparse::runtime
