// exactly_once: how many epochs each record aborted, so that a record that always fails is given
// up in a replay instead of aborting epochs forever. Pure (no Kafka, no I/O).
//
// A failed tuple aborts its whole epoch, and the spout forgets the epoch's records when it
// rewinds; the counts here are kept across that, by topic, partition and offset. When a record
// that aborted more than max_retries epochs is read again, it is given up (on_give_up) instead
// of emitted. An epoch that commits a partition forgets the counts of its records before the
// committed offset.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>

namespace sparse::kafka {

class RecordAborts {
 public:
  // -1: never give up.
  explicit RecordAborts(int max_retries) : max_retries_(max_retries) {}

  // The record's tuple failed, aborting its epoch. Returns how many epochs it aborted so far.
  int Failed(const std::string& topic, std::int32_t partition, std::int64_t offset);
  // The record is read again (in a replay): when it aborted more than max_retries epochs, returns
  // that number and forgets the record (the caller gives it up); otherwise nothing.
  std::optional<int> GiveUpOnReplay(const std::string& topic, std::int32_t partition,
                                    std::int64_t offset);
  // An epoch committed the partition up to `offset`: its records before are done.
  void Committed(const std::string& topic, std::int32_t partition, std::int64_t offset);
  std::size_t size() const { return aborts_.size(); }

 private:
  int max_retries_;
  std::map<std::tuple<std::string, std::int32_t, std::int64_t>, int> aborts_;
};

}  // namespace sparse::kafka
