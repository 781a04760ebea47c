// The Kafka spout's partitions: the state it keeps per partition it reads (its offsets, the
// records it holds back, whether it is paused or capped) and the table that finds a partition by
// slot (from a message id) or by topic and partition (from a record). No Kafka call and no I/O:
// the spout's Session does the librdkafka work and keeps this table current.
//
// Slots: every partition the spout starts to read gets a new slot, numbered across the spout's
// sessions (the caller owns the counter), and message ids name the slot. A partition taken away
// and given back, or rewound, gets a new slot, so an ack for a tuple of its old life finds no
// partition (it is stale) instead of marking a record of the new one done.
//
// Held records: records taken from librdkafka that may not be emitted yet (their partition is
// capped, or older records of it wait) stay with their partition, in order. Past kMaxHeld of
// them the partition asks to be paused, so the spout never buffers without bound.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kafka/offset_tracker.hpp"
#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

using TopicPartition = std::pair<std::string, std::int32_t>;

// Records held per partition before it is paused.
inline constexpr std::size_t kMaxHeld = 1000;

// "topic[partition]", as messages name a partition.
std::string PartitionName(const std::string& topic, std::int32_t partition);

struct SpoutPartition {
  std::int64_t slot = 0;
  std::string topic;
  std::int32_t partition = 0;
  std::string name;  // topic[partition], for messages
  PartitionOffsets offsets;
  std::deque<MessagePtr> held;  // taken from librdkafka, not emitted yet (in order)
  bool assigned = false;        // handed to librdkafka (timestamp starts wait for a lookup)
  bool paused = false;          // as told to librdkafka
  bool capped = false;          // max_uncommitted_offsets reached
  bool commit_in_flight = false;
  // exactly_once: where an abort goes back to when no epoch committed this partition yet (the
  // first offset read), and where a rewound partition resumes before it read again.
  std::optional<std::int64_t> first_read;

  // Whether librdkafka should be fetching it: not while the spout is inactive, its
  // backpressure pause is on, the partition is capped or it holds kMaxHeld records.
  bool WantsPause(bool active, bool backpressure_paused) const {
    return !active || backpressure_paused || capped || held.size() >= kMaxHeld;
  }
};

class PartitionTable {
 public:
  // `next_slot` numbers the partitions; it outlives the table (slots are never reused).
  explicit PartitionTable(std::int64_t& next_slot) : next_slot_(next_slot) {}

  // A partition the spout starts to read, under a new slot; it becomes the owner of its topic
  // and partition (replacing the old entry, which the caller has removed).
  SpoutPartition& Add(const std::string& topic, std::int32_t partition);
  // Forgets the partition (and drops what it held); `p` dangles afterwards.
  void Remove(SpoutPartition& p);
  // Its topic and partition are no longer found (an assignment librdkafka refused). The slot
  // stays in the table (it read nothing, so it holds nothing) until Clear.
  void Disown(const std::string& topic, std::int32_t partition);
  // Forgets every partition.
  void Clear();

  // (Inline: every ack looks its partition up.)
  SpoutPartition* BySlot(std::int64_t slot) {
    auto it = by_slot_.find(slot);
    return it == by_slot_.end() ? nullptr : it->second.get();
  }
  SpoutPartition* Owned(const std::string& topic, std::int32_t partition);
  // Owned() for a record's partition, remembering the last answer: records come in runs from
  // one partition. `topic` is an opaque handle naming the topic (librdkafka's rd_kafka_topic_t,
  // stable while the client lives); `name_of(topic)` gives its name on a miss.
  template <class NameOf>
  SpoutPartition* OwnedCached(const void* topic, std::int32_t partition, NameOf&& name_of) {
    if (topic != last_.topic || partition != last_.partition) {
      last_.topic = topic;
      last_.partition = partition;
      last_.p = topic ? Owned(name_of(topic), partition) : nullptr;
    }
    return last_.p;
  }

  std::size_t size() const { return by_slot_.size(); }
  bool empty() const { return by_slot_.empty(); }
  // Every partition, in the table's (unspecified but stable) order.
  template <class F>
  void ForEach(F&& f) {
    for (auto& [_, p] : by_slot_) f(*p);
  }
  template <class F>
  void ForEach(F&& f) const {
    for (const auto& [_, p] : by_slot_) f(static_cast<const SpoutPartition&>(*p));
  }
  // Every partition, ordered by topic and partition.
  std::vector<SpoutPartition*> Sorted();
  // Records added and not done, over all partitions.
  std::int64_t Pending() const;

  // Held records.
  void Hold(SpoutPartition& p, MessagePtr msg);
  // The oldest held record of the first partition that may emit (not capped), or null. (Asked
  // before every record is taken: the usual answer, nothing held, is inline.)
  MessagePtr TakeHeld(SpoutPartition*& from) {
    return held_ == 0 ? nullptr : TakeHeldFromTable(from);
  }
  void DropHeld(SpoutPartition& p);
  void DropAllHeld();
  std::size_t held() const { return held_; }

 private:
  MessagePtr TakeHeldFromTable(SpoutPartition*& from);

  std::int64_t& next_slot_;
  std::unordered_map<std::int64_t, std::unique_ptr<SpoutPartition>> by_slot_;
  std::map<TopicPartition, std::int64_t> owned_;
  std::size_t held_ = 0;
  struct {
    const void* topic = nullptr;
    std::int32_t partition = -1;
    SpoutPartition* p = nullptr;
  } last_;  // OwnedCached's last answer; every change to owned_ clears it
};

}  // namespace sparse::kafka
