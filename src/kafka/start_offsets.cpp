#include "kafka/start_offsets.hpp"

namespace sparse::kafka {

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
