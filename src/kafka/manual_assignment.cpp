#include "kafka/manual_assignment.hpp"

#include <algorithm>
#include <regex>

#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

namespace {
constexpr int kMetadataTimeoutMs = 5000;
}

MetadataResult FetchMetadata(rd_kafka_t* rk, const std::vector<std::string>& topics,
                             const std::string& pattern, const std::set<std::string>& referenced) {
  MetadataResult result;
  const rd_kafka_metadata_t* raw = nullptr;
  result.err = rd_kafka_metadata(rk, 1, nullptr, &raw, kMetadataTimeoutMs);
  MetadataPtr md(raw);
  if (result.err) return result;
  if (!pattern.empty()) {
    const std::regex re(pattern);
    for (int i = 0; i < md->topic_cnt; ++i) {
      const auto& t = md->topics[i];
      const std::string name = t.topic;
      if (name.rfind("__", 0) == 0 || !std::regex_match(name, re)) continue;
      result.topics.push_back({name, t.partition_cnt, t.err});
    }
  } else {
    for (const auto& name : topics) {
      TopicInfo info{name, 0, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART};
      for (int i = 0; i < md->topic_cnt; ++i) {
        if (name == md->topics[i].topic) {
          info.partitions = md->topics[i].partition_cnt;
          info.err = md->topics[i].err;
        }
      }
      result.topics.push_back(info);
    }
  }
  // librdkafka only keeps leaders for topics it has a handle for. Assigned blind, a partition
  // whose leader is not known yet at the moment its fetch starts waits for librdkafka's offset
  // query timer (500 ms) before it reads anything (seen in bench/kafka: 14 of 16 partitions idle
  // for 0.5 s at start). So each topic that exists gets a handle and the leaders are read again,
  // before the partitions are assigned; librdkafka keeps what it learned after the handle goes,
  // so each topic needs this once.
  std::vector<TopicPtr> handles;
  for (const auto& t : result.topics) {
    if (t.err == RD_KAFKA_RESP_ERR_NO_ERROR && t.partitions > 0 && !referenced.count(t.name)) {
      handles.emplace_back(rd_kafka_topic_new(rk, t.name.c_str(), nullptr));
      result.referenced.push_back(t.name);
    }
  }
  if (!handles.empty()) {
    const rd_kafka_metadata_t* again = nullptr;
    if (rd_kafka_metadata(rk, 1, nullptr, &again, kMetadataTimeoutMs) ==
        RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_metadata_destroy(again);
    }
  }
  return result;
}

TopicsRead ReadTopics(const MetadataResult& result, const std::string& topic_pattern,
                      const std::string& bootstrap, std::int64_t refresh_ms) {
  TopicsRead read;
  const std::string every = std::to_string(refresh_ms) + " ms";
  for (const auto& t : result.topics) {
    if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      read.reports.push_back({"unknown_topic:" + t.name, "topic `" + t.name +
                                                             "` does not exist on " + bootstrap +
                                                             "; checking again every " + every});
      continue;
    }
    if (t.err) {
      read.reports.push_back({"topic_error:" + t.name,
                              "topic `" + t.name + "`: " + rd_kafka_err2str(t.err) + "; retrying"});
      read.keep = true;
      return read;
    }
    for (int i = 0; i < t.partitions; ++i) read.partitions.emplace_back(t.name, i);
  }
  if (result.topics.empty() && !topic_pattern.empty()) {
    read.reports.push_back({"no_topics", "no topic on " + bootstrap + " matches topic_pattern `" +
                                             topic_pattern + "`; checking again every " + every});
  }
  return read;
}

std::set<TopicPartition> ManualShare(std::vector<TopicPartition> all, int task_index,
                                     int num_tasks) {
  std::sort(all.begin(), all.end());
  std::set<TopicPartition> mine;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(num_tasks)) == task_index) {
      mine.insert(all[i]);
    }
  }
  return mine;
}

ShareChange ChangeTo(const std::set<TopicPartition>& share,
                     const std::vector<TopicPartition>& owned) {
  const std::set<TopicPartition> now(owned.begin(), owned.end());
  ShareChange change;
  std::set_difference(share.begin(), share.end(), now.begin(), now.end(),
                      std::back_inserter(change.added));
  std::set_difference(now.begin(), now.end(), share.begin(), share.end(),
                      std::back_inserter(change.removed));
  return change;
}

}  // namespace sparse::kafka
