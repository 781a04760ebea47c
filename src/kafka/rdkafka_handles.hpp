// RAII ownership of librdkafka's C handles, and small helpers around its configuration API.
//
// Every handle sparse takes from librdkafka lives in one of these smart pointers, so an early
// return or an exception can never leak a consumer, a message or a partition list. None of these
// helpers block, except where a comment says so.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace sparse::kafka {

struct ConfDeleter {
  void operator()(rd_kafka_conf_t* p) const { rd_kafka_conf_destroy(p); }
};
struct TopicConfDeleter {
  void operator()(rd_kafka_topic_conf_t* p) const { rd_kafka_topic_conf_destroy(p); }
};
// Destroying a client flushes nothing and may block briefly while its threads stop; consumers
// and producers call ConsumerClose / Flush first where that matters.
struct ClientDeleter {
  void operator()(rd_kafka_t* p) const { rd_kafka_destroy(p); }
};
struct MessageDeleter {
  void operator()(rd_kafka_message_t* p) const { rd_kafka_message_destroy(p); }
};
struct PartitionListDeleter {
  void operator()(rd_kafka_topic_partition_list_t* p) const {
    rd_kafka_topic_partition_list_destroy(p);
  }
};
struct TopicDeleter {
  void operator()(rd_kafka_topic_t* p) const { rd_kafka_topic_destroy(p); }
};
struct QueueDeleter {
  void operator()(rd_kafka_queue_t* p) const { rd_kafka_queue_destroy(p); }
};
struct MetadataDeleter {
  void operator()(const rd_kafka_metadata_t* p) const { rd_kafka_metadata_destroy(p); }
};
struct ErrorDeleter {
  void operator()(rd_kafka_error_t* p) const { rd_kafka_error_destroy(p); }
};
struct HeadersDeleter {
  void operator()(rd_kafka_headers_t* p) const { rd_kafka_headers_destroy(p); }
};
struct MockClusterDeleter {
  void operator()(rd_kafka_mock_cluster_t* p) const { rd_kafka_mock_cluster_destroy(p); }
};

using ConfPtr = std::unique_ptr<rd_kafka_conf_t, ConfDeleter>;
using TopicConfPtr = std::unique_ptr<rd_kafka_topic_conf_t, TopicConfDeleter>;
using ClientPtr = std::unique_ptr<rd_kafka_t, ClientDeleter>;
using MessagePtr = std::unique_ptr<rd_kafka_message_t, MessageDeleter>;
using PartitionListPtr = std::unique_ptr<rd_kafka_topic_partition_list_t, PartitionListDeleter>;
using TopicPtr = std::unique_ptr<rd_kafka_topic_t, TopicDeleter>;
using QueuePtr = std::unique_ptr<rd_kafka_queue_t, QueueDeleter>;
using MetadataPtr = std::unique_ptr<const rd_kafka_metadata_t, MetadataDeleter>;
using ErrorPtr = std::unique_ptr<rd_kafka_error_t, ErrorDeleter>;
using HeadersPtr = std::unique_ptr<rd_kafka_headers_t, HeadersDeleter>;
using MockClusterPtr = std::unique_ptr<rd_kafka_mock_cluster_t, MockClusterDeleter>;

inline PartitionListPtr NewPartitionList(int size_hint) {
  return PartitionListPtr(rd_kafka_topic_partition_list_new(size_hint));
}

// Sets one property; returns librdkafka's message (naming the property) when it refuses it.
std::optional<std::string> SetProperty(rd_kafka_conf_t* conf, const std::string& key,
                                       const std::string& value);

// Applies a JSON object of librdkafka properties (`{"linger.ms": 5, "acks": "all"}`); numbers and
// booleans are written as librdkafka expects them. Returns the first refusal as
// "properties.KEY: reason".
std::optional<std::string> ApplyProperties(rd_kafka_conf_t* conf, const nlohmann::json& props);

// sparse's default for one property: sets `key` to `value` unless the user's properties object
// `user_props` (as given to ApplyProperties; may be null) names it, so the user always wins.
std::optional<std::string> SetDefault(rd_kafka_conf_t* conf, const nlohmann::json& user_props,
                                      const std::string& key, const std::string& value);

// An integer property's value in `conf` (set, or librdkafka's default); nullopt when `key` is
// unknown or not an integer.
std::optional<std::int64_t> IntProperty(const rd_kafka_conf_t* conf, const std::string& key);

// A JSON scalar as the string librdkafka's configuration takes (true -> "true", 5 -> "5").
std::optional<std::string> PropertyText(const nlohmann::json& value);

// Creates a client from `conf` (which it consumes, also on failure).
ClientPtr NewClient(rd_kafka_type_t type, ConfPtr conf, std::string& error);

// One record for Produce. librdkafka copies key and value before Produce returns
// (RD_KAFKA_MSG_F_COPY), so they only need to live for the call. No key is a null key, which
// Kafka tells apart from an empty one (compaction, the default partitioner); the same for values.
struct OutRecord {
  const char* topic = nullptr;
  std::int32_t partition = RD_KAFKA_PARTITION_UA;  // unassigned: the partitioner chooses
  std::optional<std::string_view> key;
  std::optional<std::string_view> value;
  rd_kafka_headers_t* headers = nullptr;  // becomes the message's on success only
  void* opaque = nullptr;                 // comes back in the delivery report
};

// Enqueues one record (rd_kafka_produceva: the argument list as data, not the producev macros,
// whose C casts the strict warnings refuse). Never blocks: a full queue is
// RD_KAFKA_RESP_ERR__QUEUE_FULL.
rd_kafka_resp_err_t Produce(rd_kafka_t* producer, const OutRecord& record);

}  // namespace sparse::kafka
