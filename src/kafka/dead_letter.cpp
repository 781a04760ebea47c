#include "kafka/dead_letter.hpp"

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

std::vector<std::pair<std::string, std::string>> DeadLetterHeaders(const std::string& topic,
                                                                   std::int32_t partition,
                                                                   std::int64_t offset,
                                                                   const std::string& reason) {
  return {{"sparse.source.topic", topic},
          {"sparse.source.partition", std::to_string(partition)},
          {"sparse.source.offset", std::to_string(offset)},
          {"sparse.error", reason}};
}

rd_kafka_resp_err_t ProduceDeadLetter(rd_kafka_t* producer, const std::string& dead_letter_topic,
                                      const std::string& topic, std::int32_t partition,
                                      const PartitionOffsets::Raw* raw,
                                      std::unique_ptr<DeadLetterRef>& ref) {
  const auto fields = DeadLetterHeaders(topic, partition, ref->offset, ref->reason);
  HeadersPtr headers(rd_kafka_headers_new(fields.size()));
  for (const auto& [name, value] : fields) {
    rd_kafka_header_add(headers.get(), name.c_str(), -1, value.data(),
                        static_cast<ssize_t>(value.size()));
  }
  OutRecord record;
  record.topic = dead_letter_topic.c_str();
  if (raw && raw->key) record.key = *raw->key;
  if (raw && raw->value) record.value = *raw->value;
  record.headers = headers.get();
  record.opaque = ref.get();
  const auto err = Produce(producer, record);
  if (err) return err;
  static_cast<void>(headers.release());  // owned by the message now
  static_cast<void>(ref.release());      // comes back in the delivery report
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

}  // namespace sparse::kafka
