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
  const std::string* key = raw && raw->key ? &*raw->key : nullptr;
  const std::string* value = raw && raw->value ? &*raw->value : nullptr;
  // RD_KAFKA_MSG_F_COPY: librdkafka copies the value and never writes to it.
  const auto err =
      rd_kafka_producev(producer, RD_KAFKA_V_TOPIC(dead_letter_topic.c_str()),
                        RD_KAFKA_V_KEY(key ? key->data() : nullptr, key ? key->size() : 0),
                        RD_KAFKA_V_VALUE(value ? const_cast<char*>(value->data()) : nullptr,
                                         value ? value->size() : 0),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(headers.get()),
                        RD_KAFKA_V_OPAQUE(ref.get()), RD_KAFKA_V_END);
  if (err) return err;
  headers.release();  // owned by the message now
  ref.release();      // comes back in the delivery report
  return RD_KAFKA_RESP_ERR_NO_ERROR;
}

}  // namespace sparse::kafka
