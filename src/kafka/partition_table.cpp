#include "kafka/partition_table.hpp"

#include <algorithm>

namespace sparse::kafka {

std::string PartitionName(const std::string& topic, std::int32_t partition) {
  return topic + "[" + std::to_string(partition) + "]";
}

SpoutPartition& PartitionTable::Add(const std::string& topic, std::int32_t partition) {
  auto p = std::make_unique<SpoutPartition>();
  p->slot = next_slot_++;
  p->topic = topic;
  p->partition = partition;
  p->name = PartitionName(topic, partition);
  SpoutPartition& ref = *p;
  owned_[{topic, partition}] = p->slot;
  last_ = {};
  by_slot_[p->slot] = std::move(p);
  return ref;
}

void PartitionTable::Remove(SpoutPartition& p) {
  DropHeld(p);
  if (auto it = owned_.find({p.topic, p.partition}); it != owned_.end() && it->second == p.slot) {
    owned_.erase(it);
  }
  last_ = {};
  by_slot_.erase(p.slot);
}

void PartitionTable::Disown(const std::string& topic, std::int32_t partition) {
  owned_.erase({topic, partition});
  last_ = {};
}

void PartitionTable::Clear() {
  by_slot_.clear();
  owned_.clear();
  held_ = 0;
  last_ = {};
}

SpoutPartition* PartitionTable::Owned(const std::string& topic, std::int32_t partition) {
  auto it = owned_.find({topic, partition});
  return it == owned_.end() ? nullptr : BySlot(it->second);
}

std::vector<SpoutPartition*> PartitionTable::Sorted() {
  std::vector<SpoutPartition*> all;
  for (const auto& [_, slot] : owned_) {
    if (SpoutPartition* p = BySlot(slot)) all.push_back(p);
  }
  return all;
}

std::int64_t PartitionTable::Pending() const {
  std::int64_t n = 0;
  for (const auto& [_, p] : by_slot_) n += static_cast<std::int64_t>(p->offsets.Pending());
  return n;
}

void PartitionTable::Hold(SpoutPartition& p, MessagePtr msg) {
  p.held.push_back(std::move(msg));
  ++held_;
}

MessagePtr PartitionTable::TakeHeldFromTable(SpoutPartition*& from) {
  for (auto& [_, p] : by_slot_) {
    if (!p->held.empty() && !p->capped) {
      MessagePtr m = std::move(p->held.front());
      p->held.pop_front();
      --held_;
      from = p.get();
      return m;
    }
  }
  return nullptr;
}

void PartitionTable::DropHeld(SpoutPartition& p) {
  held_ -= p.held.size();
  p.held.clear();
}

void PartitionTable::DropAllHeld() {
  for (auto& [_, p] : by_slot_) p->held.clear();
  held_ = 0;
}

}  // namespace sparse::kafka
