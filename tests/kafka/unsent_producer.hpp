// For tests of what sparse hands librdkafka, without a broker: a producer that never connects
// queues each message, and purging the queue brings back every delivery report with the message
// as librdkafka holds it. Also a message's headers as name/value pairs.
#pragma once

#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <string>
#include <utility>
#include <vector>

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

using DeliveryReportFn = void (*)(rd_kafka_t*, const rd_kafka_message_t*, void*);

// A producer whose bootstrap server never answers, queueing at most `queue` messages; `on_report`
// gets each delivery report with `opaque`.
inline ClientPtr UnsentProducer(int queue, DeliveryReportFn on_report, void* opaque) {
  ConfPtr conf(rd_kafka_conf_new());
  EXPECT_FALSE(SetProperty(conf.get(), "bootstrap.servers", "127.0.0.1:1"));
  EXPECT_FALSE(SetProperty(conf.get(), "queue.buffering.max.messages", std::to_string(queue)));
  EXPECT_FALSE(SetProperty(conf.get(), "log_level", "0"));
  rd_kafka_conf_set_opaque(conf.get(), opaque);
  rd_kafka_conf_set_dr_msg_cb(conf.get(), on_report);
  std::string error;
  ClientPtr p = NewClient(RD_KAFKA_PRODUCER, std::move(conf), error);
  EXPECT_TRUE(p) << error;
  return p;
}

// Drops every queued message; each one's delivery report runs now.
inline void PurgeUnsent(rd_kafka_t* producer) {
  rd_kafka_purge(producer, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_poll(producer, 0);
}

inline std::vector<std::pair<std::string, std::string>> HeadersOf(const rd_kafka_message_t& m) {
  std::vector<std::pair<std::string, std::string>> out;
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(&m, &hdrs) != RD_KAFKA_RESP_ERR_NO_ERROR) return out;
  const char* name = nullptr;
  const void* value = nullptr;
  std::size_t size = 0;
  for (std::size_t i = 0; !rd_kafka_header_get_all(hdrs, i, &name, &value, &size); ++i) {
    out.emplace_back(name, std::string(static_cast<const char*>(value), size));
  }
  return out;
}

}  // namespace sparse::kafka
