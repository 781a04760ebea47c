#include "broker_helpers.hpp"

#include <chrono>
#include <stdexcept>
#include <thread>

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka::testing {

namespace {

ClientPtr Client(rd_kafka_type_t type, const std::string& bootstrap, const std::string& group,
                 int* failures = nullptr,
                 const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  ConfPtr conf(rd_kafka_conf_new());
  for (const auto& [k, v] : extra) {
    if (auto err = SetProperty(conf.get(), k, v)) throw std::runtime_error(k + ": " + *err);
  }
  rd_kafka_conf_set_opaque(conf.get(), failures);
  SetProperty(conf.get(), "bootstrap.servers", bootstrap);
  SetProperty(conf.get(), "log_level", "2");
  if (!group.empty()) {
    SetProperty(conf.get(), "group.id", group);
    SetProperty(conf.get(), "enable.auto.commit", "false");
  }
  if (type == RD_KAFKA_PRODUCER) {
    SetProperty(conf.get(), "linger.ms", "2");
    rd_kafka_conf_set_dr_msg_cb(conf.get(),
                                [](rd_kafka_t*, const rd_kafka_message_t* m, void* opaque) {
                                  if (m->err && opaque) ++*static_cast<int*>(opaque);
                                });
  }
  std::string error;
  auto c = NewClient(type, std::move(conf), error);
  if (!c) throw std::runtime_error("client: " + error);
  return c;
}

// A consumed record with its key, value and headers.
TestRecord RecordOf(const rd_kafka_message_t& m) {
  TestRecord r;
  r.partition = m.partition;
  r.offset = m.offset;
  if (m.key) r.key = std::string(static_cast<const char*>(m.key), m.key_len);
  if (m.payload) r.value = std::string(static_cast<const char*>(m.payload), m.len);
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(&m, &hdrs) == 0) {
    const char* name = nullptr;
    const void* v = nullptr;
    std::size_t len = 0;
    for (std::size_t i = 0; rd_kafka_header_get_all(hdrs, i, &name, &v, &len) == 0; ++i) {
      r.headers[name] = std::string(static_cast<const char*>(v), len);
    }
  }
  return r;
}

}  // namespace

void CreateTopic(const std::string& bootstrap, const std::string& topic, int partitions) {
  auto c = Client(RD_KAFKA_PRODUCER, bootstrap, "");
  std::unique_ptr<rd_kafka_NewTopic_t, decltype(&rd_kafka_NewTopic_destroy)> spec(
      rd_kafka_NewTopic_new(topic.c_str(), partitions, 1, nullptr, 0), &rd_kafka_NewTopic_destroy);
  QueuePtr queue(rd_kafka_queue_new(c.get()));
  rd_kafka_NewTopic_t* specs[] = {spec.get()};
  rd_kafka_CreateTopics(c.get(), specs, 1, nullptr, queue.get());
  std::unique_ptr<rd_kafka_event_t, decltype(&rd_kafka_event_destroy)> event(
      rd_kafka_queue_poll(queue.get(), 30000), &rd_kafka_event_destroy);
  if (!event) throw std::runtime_error("create topic " + topic + ": no answer in 30 s");
  if (rd_kafka_event_error(event.get())) {
    throw std::runtime_error("create topic " + topic + ": " +
                             rd_kafka_event_error_string(event.get()));
  }
  std::size_t n = 0;
  const auto* results =
      rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(event.get()), &n);
  for (std::size_t i = 0; i < n; ++i) {
    if (rd_kafka_topic_result_error(results[i])) {
      throw std::runtime_error("create topic " + topic + ": " +
                               rd_kafka_topic_result_error_string(results[i]));
    }
  }
  // The controller has it; wait until the broker serves every partition.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  TopicPtr handle(rd_kafka_topic_new(c.get(), topic.c_str(), nullptr));
  for (;;) {
    const rd_kafka_metadata_t* md = nullptr;
    if (rd_kafka_metadata(c.get(), 0, handle.get(), &md, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      MetadataPtr owned(md);
      int led = 0;
      if (md->topic_cnt == 1 && !md->topics[0].err) {
        for (int p = 0; p < md->topics[0].partition_cnt; ++p) {
          if (md->topics[0].partitions[p].leader >= 0 && !md->topics[0].partitions[p].err) ++led;
        }
      }
      if (led == partitions) return;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("create topic " + topic +
                               ": partitions without a leader after 30 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void Produce(const std::string& bootstrap, const std::string& topic,
             const std::vector<TestRecord>& records) {
  int failures = 0;
  auto p = Client(RD_KAFKA_PRODUCER, bootstrap, "", &failures);
  for (const auto& r : records) {
    HeadersPtr headers(rd_kafka_headers_new(r.headers.size()));
    for (const auto& [k, v] : r.headers) {
      rd_kafka_header_add(headers.get(), k.c_str(), -1, v.data(), static_cast<ssize_t>(v.size()));
    }
    const void* key = r.key ? r.key->data() : nullptr;
    const std::size_t key_len = r.key ? r.key->size() : 0;
    void* value = r.value ? const_cast<char*>(r.value->data()) : nullptr;
    const std::size_t value_len = r.value ? r.value->size() : 0;
    for (;;) {
      const auto err = rd_kafka_producev(
          p.get(), RD_KAFKA_V_TOPIC(topic.c_str()),
          RD_KAFKA_V_PARTITION(r.partition < 0 ? RD_KAFKA_PARTITION_UA : r.partition),
          RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE(value, value_len),
          RD_KAFKA_V_TIMESTAMP(r.timestamp), RD_KAFKA_V_HEADERS(headers.get()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(p.get(), 50);
        continue;
      }
      if (err) throw std::runtime_error(std::string("produce: ") + rd_kafka_err2str(err));
      headers.release();
      break;
    }
  }
  if (rd_kafka_flush(p.get(), 30000)) throw std::runtime_error("produce: flush timed out");
  if (failures) throw std::runtime_error("produce: " + std::to_string(failures) + " failed");
}

void ProduceNumbered(const std::string& bootstrap, const std::string& topic, int n, int partitions,
                     const std::string& prefix) {
  std::vector<TestRecord> records;
  records.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    TestRecord r;
    r.partition = partitions > 0 ? i % partitions : -1;
    r.key = "k" + std::to_string(i);
    r.value = prefix + std::to_string(i);
    records.push_back(std::move(r));
  }
  Produce(bootstrap, topic, records);
}

std::int64_t CountRecords(const std::string& bootstrap, const std::string& topic, int partitions) {
  auto c = Client(RD_KAFKA_CONSUMER, bootstrap, "");
  std::int64_t total = 0;
  for (int p = 0; p < partitions; ++p) {
    std::int64_t lo = 0, hi = 0;
    const auto err = rd_kafka_query_watermark_offsets(c.get(), topic.c_str(), p, &lo, &hi, 10000);
    if (err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) return 0;
    if (err) throw std::runtime_error(std::string("watermarks: ") + rd_kafka_err2str(err));
    total += hi - lo;
  }
  return total;
}

std::vector<TestRecord> ReadCommitted(const std::string& bootstrap, const std::string& topic,
                                      int partitions) {
  auto c = Client(RD_KAFKA_CONSUMER, bootstrap, "sparse-test-committed-reader", nullptr,
                  {{"enable.partition.eof", "true"}, {"isolation.level", "read_committed"}});
  auto list = NewPartitionList(partitions);
  for (int p = 0; p < partitions; ++p) {
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  }
  if (auto err = rd_kafka_assign(c.get(), list.get())) {
    throw std::runtime_error(std::string("assign: ") + rd_kafka_err2str(err));
  }
  std::vector<TestRecord> out;
  std::vector<bool> at_end(static_cast<std::size_t>(partitions), false);
  int ended = 0;
  int idle = 0;
  while (ended < partitions) {
    MessagePtr m(rd_kafka_consumer_poll(c.get(), 500));
    if (!m) {
      if (++idle > 60) throw std::runtime_error("read_committed: timed out");
      continue;
    }
    idle = 0;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      if (!at_end[static_cast<std::size_t>(m->partition)]) {
        at_end[static_cast<std::size_t>(m->partition)] = true;
        ++ended;
      }
      continue;
    }
    if (m->err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) return out;
    if (m->err) continue;
    out.push_back(RecordOf(*m));
  }
  rd_kafka_consumer_close(c.get());
  return out;
}

std::vector<TestRecord> ReadAll(const std::string& bootstrap, const std::string& topic,
                                int partitions) {
  auto c = Client(RD_KAFKA_CONSUMER, bootstrap, "sparse-test-reader");
  std::vector<std::int64_t> high(static_cast<std::size_t>(partitions));
  auto list = NewPartitionList(partitions);
  std::int64_t expected = 0;
  for (int p = 0; p < partitions; ++p) {
    std::int64_t lo = 0, hi = 0;
    const auto err = rd_kafka_query_watermark_offsets(c.get(), topic.c_str(), p, &lo, &hi, 10000);
    if (err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) return {};
    if (err) throw std::runtime_error(std::string("watermarks: ") + rd_kafka_err2str(err));
    high[static_cast<std::size_t>(p)] = hi;
    expected += hi - lo;
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  }
  std::vector<TestRecord> out;
  if (expected == 0) return out;
  if (auto err = rd_kafka_assign(c.get(), list.get())) {
    throw std::runtime_error(std::string("assign: ") + rd_kafka_err2str(err));
  }
  int idle = 0;
  while (static_cast<std::int64_t>(out.size()) < expected) {
    MessagePtr m(rd_kafka_consumer_poll(c.get(), 500));
    if (!m) {
      if (++idle > 60) throw std::runtime_error("read: timed out");
      continue;
    }
    idle = 0;
    if (m->err) continue;
    out.push_back(RecordOf(*m));
  }
  return out;
}

std::vector<std::int64_t> Committed(const std::string& bootstrap, const std::string& group,
                                    const std::string& topic, int partitions) {
  auto c = Client(RD_KAFKA_CONSUMER, bootstrap, group);
  auto list = NewPartitionList(partitions);
  for (int p = 0; p < partitions; ++p)
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
  // A broker that has just restarted answers "not coordinator" or "loading" for a while.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    const auto err = rd_kafka_committed(c.get(), list.get(), 10000);
    if (!err) break;
    const bool transient = err == RD_KAFKA_RESP_ERR_NOT_COORDINATOR ||
                           err == RD_KAFKA_RESP_ERR_COORDINATOR_LOAD_IN_PROGRESS ||
                           err == RD_KAFKA_RESP_ERR_COORDINATOR_NOT_AVAILABLE ||
                           err == RD_KAFKA_RESP_ERR__TIMED_OUT ||
                           err == RD_KAFKA_RESP_ERR__TRANSPORT;
    if (!transient || std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error(std::string("committed: ") + rd_kafka_err2str(err));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::vector<std::int64_t> out;
  for (int i = 0; i < list->cnt; ++i) out.push_back(list->elems[i].offset);
  return out;
}

int GroupMembers(const std::string& bootstrap, const std::string& group) {
  auto c = Client(RD_KAFKA_PRODUCER, bootstrap, "");
  const rd_kafka_group_list* list = nullptr;
  if (auto err = rd_kafka_list_groups(c.get(), group.c_str(), &list, 10000)) {
    throw std::runtime_error(std::string("list groups: ") + rd_kafka_err2str(err));
  }
  int members = 0;
  for (int i = 0; i < list->group_cnt; ++i) {
    if (list->groups[i].group == group) members += list->groups[i].member_cnt;
  }
  rd_kafka_group_list_destroy(list);
  return members;
}

void Commit(const std::string& bootstrap, const std::string& group, const std::string& topic,
            std::int32_t partition, std::int64_t offset) {
  auto c = Client(RD_KAFKA_CONSUMER, bootstrap, group);
  auto list = NewPartitionList(1);
  rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset = offset;
  if (auto err = rd_kafka_commit(c.get(), list.get(), 0)) {
    throw std::runtime_error(std::string("commit: ") + rd_kafka_err2str(err));
  }
}

}  // namespace sparse::kafka::testing
