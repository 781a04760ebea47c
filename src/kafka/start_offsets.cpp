#include "kafka/start_offsets.hpp"

namespace sparse::kafka {

std::int64_t StartPositions::For(const std::string& topic, std::int32_t partition) {
  if (!started_.emplace(topic, partition).second) return RD_KAFKA_OFFSET_STORED;
  switch (start_) {
    case StartPosition::kEarliest:
      return RD_KAFKA_OFFSET_BEGINNING;
    case StartPosition::kLatest:
      return RD_KAFKA_OFFSET_END;
    case StartPosition::kCommittedOrEarliest:
    case StartPosition::kCommittedOrLatest:
      return RD_KAFKA_OFFSET_STORED;
    case StartPosition::kTimestamp:
      return timestamp_ms_;
  }
  return RD_KAFKA_OFFSET_STORED;
}

std::int64_t StartPositions::WithoutCommit() const {
  return start_ == StartPosition::kCommittedOrLatest || start_ == StartPosition::kLatest
             ? RD_KAFKA_OFFSET_END
             : RD_KAFKA_OFFSET_BEGINNING;
}

const char* StartPositions::AutoOffsetReset() const {
  return WithoutCommit() == RD_KAFKA_OFFSET_END ? "latest" : "earliest";
}

void ApplyOffsetsForTimes(
    rd_kafka_topic_partition_list_t* asked, const rd_kafka_topic_partition_list_t* answered,
    rd_kafka_resp_err_t err,
    const std::function<void(const rd_kafka_topic_partition_t&, rd_kafka_resp_err_t)>& failed) {
  for (int i = 0; i < asked->cnt; ++i) {
    auto& e = asked->elems[i];
    if (e.offset < 0) continue;  // not a timestamp
    const rd_kafka_topic_partition_t* r =
        answered && i < answered->cnt ? &answered->elems[i] : nullptr;
    const rd_kafka_resp_err_t why = err      ? err
                                    : !r     ? RD_KAFKA_RESP_ERR__FAIL
                                    : r->err ? r->err
                                             : RD_KAFKA_RESP_ERR_NO_ERROR;
    if (why) {
      failed(e, why);
      e.offset = RD_KAFKA_OFFSET_STORED;
    } else {
      // -1: no record at or after the timestamp yet.
      e.offset = r->offset >= 0 ? r->offset : RD_KAFKA_OFFSET_END;
    }
  }
}

}  // namespace sparse::kafka
