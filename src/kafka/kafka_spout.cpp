#include "kafka/kafka_spout.hpp"

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <charconv>
#include <chrono>
#include <deque>
#include <map>
#include <queue>
#include <regex>
#include <set>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "base/lifetime_gate.hpp"
#include "kafka/blocking_worker.hpp"
#include "kafka/client_events.hpp"
#include "kafka/exactly_once.hpp"
#include "kafka/message_id.hpp"
#include "kafka/message_reaper.hpp"
#include "kafka/offset_tracker.hpp"
#include "kafka/queue_wakeup.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/record_codec.hpp"
#include "kafka/report_throttle.hpp"
#include "kafka/start_offsets.hpp"
#include "runtime/config.hpp"

namespace sparse::kafka {

namespace {

using Clock = std::chrono::steady_clock;
using TopicPartition = std::pair<std::string, std::int32_t>;

constexpr int kMetadataTimeoutMs = 5000;
constexpr int kOffsetsForTimesTimeoutMs = 10000;
// Looking up committed offsets (see AssignResolvingCommitted): each try's timeout, the pause
// between tries, and how many before leaving it to librdkafka.
constexpr int kCommittedTimeoutMs = 5000;
constexpr auto kCommittedRetryPause = std::chrono::milliseconds(500);
constexpr int kCommittedTries = 20;
// In group mode librdkafka must be polled even while the spout emits nothing (rebalances,
// max.poll.interval.ms): the timer polls when NextTuple has not for this long.
constexpr auto kGroupPollEvery = std::chrono::milliseconds(100);
// Records taken from librdkafka but not emitted yet, per partition, before it is paused.
constexpr std::size_t kMaxHeld = 1000;

std::string PartitionName(const std::string& topic, std::int32_t partition) {
  return topic + "[" + std::to_string(partition) + "]";
}

struct TopicInfo {
  std::string name;
  int partitions = 0;
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
};

struct MetadataResult {
  rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
  std::vector<TopicInfo> topics;
  std::vector<std::string> referenced;  // topics librdkafka now tracks (see FetchMetadata)
};

// Runs on the helper thread (blocks up to 2 x kMetadataTimeoutMs). Always asks for every topic: a
// metadata request naming a topic makes brokers with auto.create.topics.enable create it, and a
// consumer must never create the topics it reads.
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

// What the encoder needs of a message (views into it: valid while the message lives).
RecordView ViewOf(const rd_kafka_message_t& m, const std::string& topic) {
  RecordView view;
  view.topic = topic;
  view.partition = m.partition;
  view.offset = m.offset;
  if (m.key) view.key = std::string_view(static_cast<const char*>(m.key), m.key_len);
  if (m.payload) view.value = std::string_view(static_cast<const char*>(m.payload), m.len);
  rd_kafka_timestamp_type_t ts_type;
  if (const std::int64_t ts = rd_kafka_message_timestamp(&m, &ts_type); ts >= 0) {
    view.timestamp = ts;
  }
  return view;
}

}  // namespace

class KafkaSpout::Session final : public EpochSource {
 public:
  Session(const SpoutOptions& options, std::int64_t& next_slot, runtime::BuiltinCollector& out,
          boost::asio::io_context& io, int task_id, int task_index, int num_tasks)
      : o_(options),
        next_slot_(next_slot),
        out_(out),
        io_(io),
        task_id_(task_id),
        task_index_(task_index),
        num_tasks_(num_tasks),
        encoder_(options),
        timer_(io) {}

  ~Session() override { Close(); }

  std::optional<std::string> Open(const nlohmann::json& conf);
  void NextTuple();
  void Ack(const std::string& id);
  void Fail(const std::string& id);
  void SetActive(bool active) {
    active_ = active;
    UpdateAllPauses();
    if (!active) commit_requested_ = true;
    if (!active && epochs_) epochs_->CloseEpoch();
  }
  // Short episodes of backpressure cost nothing (librdkafka's prefetch queue is bounded, see
  // queued.max.messages.kbytes); pausing and resuming partitions has a price (the prefetched
  // records are dropped and fetched again), so partitions are paused only once backpressure
  // lasted backpressure_pause_ms.
  void SetBackpressure(bool on) {
    backpressure_ = on;
    backpressure_since_ = Clock::now();
    if (!on && backpressure_paused_) {
      backpressure_paused_ = false;
      UpdateAllPauses();
    }
  }
  void Close();

  // EpochSource (exactly_once).
  std::int64_t Outstanding() const override;
  void AppendOffsets(rd_kafka_topic_partition_list_t* list) const override;
  const std::string& group_id() const override { return o_.group_id; }
  void EpochCommitted(const rd_kafka_topic_partition_list_t* offsets) override;
  void Rewind() override;
  void EpochOpened() override { out_.Wakeup(); }
  bool Live(std::string_view message_id) override;

 private:
  struct Partition {
    std::int64_t slot = 0;
    std::string topic;
    std::int32_t partition = 0;
    PartitionOffsets offsets;
    std::deque<MessagePtr> held;  // taken from librdkafka, not emitted yet (in order)
    bool assigned = false;        // handed to librdkafka (timestamp starts wait for a lookup)
    bool paused = false;          // as told to librdkafka
    bool capped = false;          // max_uncommitted_offsets reached
    bool commit_in_flight = false;
    std::string name;  // topic[partition], for messages
    // exactly_once: where an abort goes back to when no epoch committed this partition yet (the
    // first offset read), and where a rewound partition resumes before it read again.
    std::optional<std::int64_t> first_read;
  };
  struct Retry {
    Clock::time_point due;
    std::int64_t slot;
    std::int64_t offset;
    bool dead_letter;  // retry the dead-letter produce, not the tuple
    bool operator>(const Retry& o) const { return due > o.due; }
  };
  struct DeadLetterRef {
    std::int64_t slot;
    std::int64_t offset;
    std::string reason;
  };

  // librdkafka callbacks (served by polls on the loop thread).
  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf);
  static void OnCommit(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                       rd_kafka_topic_partition_list_t* offsets, void* opaque);
  static void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void OnDeadLetterDelivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);

  std::optional<std::string> CreateConsumer();
  std::optional<std::string> CreateDeadLetterProducer();
  void ScheduleTick();
  void Tick();
  void HandleClientError(rd_kafka_t* rk, int err, const char* reason);
  void Report(const std::string& key, const std::string& message);

  // Assignment.
  void RefreshPartitions();
  // Publishes kafka.connected = 1 the first time a broker answers.
  void MarkConnected();
  // Reports a partition whose start_timestamp_ms lookup failed (ApplyOffsetsForTimes).
  std::function<void(const rd_kafka_topic_partition_t&, rd_kafka_resp_err_t)>
  TimestampLookupFailed();
  void OnMetadata(const MetadataResult& result);
  Partition& NewPartition(const std::string& topic, std::int32_t partition);
  void AddPartitions(const std::vector<TopicPartition>& tps);
  void AssignResolvingCommitted(PartitionListPtr list);
  void SeekToOwnPosition(Partition& p);
  void AssignWithOffsets(PartitionListPtr list);
  void RemovePartitions(const std::vector<TopicPartition>& tps);
  void Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts);
  void Forget(Partition& p, const char* why);
  std::int64_t StartOffsetFor(const TopicPartition& tp);
  Partition* FindSlot(std::int64_t slot);
  Partition* FindOwned(const std::string& topic, std::int32_t partition);
  // The owner of a record's partition; remembers the last answer, since records come in runs
  // from one partition. Everything that changes owned_ calls OwnedChanged.
  Partition* FindOwned(const rd_kafka_message_t& msg);
  void OwnedChanged() { last_owned_ = {}; }

  // Pausing.
  void UpdatePause(Partition& p);
  void UpdateAllPauses();

  // The data path.
  MessagePtr TakeMessage(Partition*& from);
  MessagePtr PollOne();
  bool Prefetch();  // takes up to max_batch records from librdkafka into prefetched_
  bool Take(MessagePtr msg, Partition& p);  // true when a tuple was emitted
  void HandleMessageError(const rd_kafka_message_t& msg);
  void Hold(MessagePtr msg);
  void EmitRecord(Partition& p, const PartitionOffsets::Record& rec);
  void RunDueRetries(Clock::time_point now, int& budget);
  void GiveUp(Partition& p, PartitionOffsets::Record& rec, const std::string& reason);
  void SendDeadLetter(Partition& p, PartitionOffsets::Record& rec, const std::string& reason);
  void Done(Partition& p, std::int64_t offset);
  bool CanEmit() const { return !max_pending_ || *max_pending_ <= 0 || in_flight_ < *max_pending_; }

  // At-most-once.
  void NextTupleAtMostOnce();
  // Exactly-once.
  void NextTupleExactlyOnce();
  std::optional<std::string> JoinEpochs(const nlohmann::json& conf);
  void AtMostOnceCommitted(bool ok, const std::string& error);

  // Commits.
  void Commit();
  void Committed(rd_kafka_resp_err_t err, const rd_kafka_topic_partition_list_t* offsets);
  void CommitSync(const std::vector<Partition*>& parts);
  void FinalCommit();

  void PublishMetrics(Clock::time_point now);

  const SpoutOptions& o_;
  std::int64_t& next_slot_;
  runtime::BuiltinCollector& out_;
  boost::asio::io_context& io_;
  int task_id_;
  int task_index_;
  int num_tasks_;
  RecordEncoder encoder_;
  runtime::ValueSpans spans_;  // the last encoded record's (reused, so no allocation per record)
  std::string bootstrap_;
  std::optional<std::int64_t> max_pending_;

  ClientPtr consumer_;
  QueuePtr queue_;  // the consumer's queue (records, and rebalances in group mode)
  // Records taken from librdkafka in one batch and not looked at yet, in the order it gave them.
  std::deque<MessagePtr> prefetched_;
  std::vector<rd_kafka_message_t*> batch_;
  // Destroys emitted records' messages off the loop (declared after the handles it must not
  // outlive; Close drains it before closing them).
  std::unique_ptr<MessageReaper> reaper_;
  std::unique_ptr<QueueWakeup> wakeup_;  // records arrived: NextTuple now, not after a rest
  ClientPtr dead_letter_;
  std::unique_ptr<BlockingWorker> worker_;
  std::shared_ptr<EpochCoordinator> epochs_;  // exactly_once only
  // exactly_once: epochs aborted by each record (topic, partition, offset) not committed yet.
  // Kept across Rewind, which forgets the partitions' records, so a record that always fails is
  // recognised in the replay and given up there (max_retries) instead of aborting forever.
  std::map<std::tuple<std::string, std::int32_t, std::int64_t>, int> epoch_failures_;
  bool rewinding_ = false;
  boost::asio::steady_timer timer_;
  base::LifetimeGate gate_;
  ReportThrottle throttle_;
  bool open_ = false;
  bool closing_ = false;
  bool fatal_ = false;
  bool connected_ = false;  // a metadata request was answered once

  std::unordered_map<std::int64_t, std::unique_ptr<Partition>> by_slot_;
  std::map<TopicPartition, std::int64_t> owned_;
  struct {
    const rd_kafka_topic_t* rkt = nullptr;
    std::int32_t partition = -1;
    Partition* p = nullptr;
  } last_owned_;
  std::set<TopicPartition> started_;         // partitions that used the start position already
  std::set<std::string> referenced_topics_;  // leaders read with a handle (FetchMetadata)
  std::size_t held_total_ = 0;
  std::priority_queue<Retry, std::vector<Retry>, std::greater<>> retries_;
  std::int64_t in_flight_ = 0;  // tuples emitted with a message id, not yet acked or failed
  bool active_ = false;
  bool backpressure_ = false;
  bool backpressure_paused_ = false;
  Clock::time_point backpressure_since_{};
  bool commit_requested_ = false;
  bool refresh_in_flight_ = false;
  Clock::time_point next_refresh_{};
  Clock::time_point next_commit_{};
  Clock::time_point next_metrics_{};
  Clock::time_point last_consumer_poll_{};

  // At-most-once: records polled and committed (or being committed), emitted afterwards.
  std::vector<std::string> amo_batch_;
  std::map<TopicPartition, std::int64_t> amo_offsets_;  // next offset per partition
  bool amo_committing_ = false;
  bool amo_committed_ = false;
  Clock::time_point amo_retry_at_{};

  // Counters (published as gauges).
  std::uint64_t records_ = 0;  // taken from Kafka
  std::uint64_t emitted_ = 0;
  std::uint64_t acked_ = 0;
  std::uint64_t failed_ = 0;
  std::uint64_t retries_done_ = 0;
  std::uint64_t skipped_ = 0;
  std::uint64_t dead_lettered_ = 0;
  std::uint64_t dead_letter_errors_ = 0;
  std::uint64_t decode_errors_ = 0;
  std::uint64_t commits_ = 0;
  std::uint64_t commit_errors_ = 0;
  std::uint64_t stale_acks_ = 0;
  std::uint64_t revoked_pending_ = 0;
  std::uint64_t offset_resets_ = 0;
  std::uint64_t consume_errors_ = 0;
  std::uint64_t client_errors_ = 0;
  std::uint64_t records_at_last_metrics_ = 0;
  Clock::time_point last_metrics_at_{};
};

// ---------------------------------------------------------------------------------------------
// Open / close

std::optional<std::string> KafkaSpout::Session::Open(const nlohmann::json& conf) {
  bootstrap_ = EffectiveBootstrap(conf, o_.bootstrap_servers, o_.properties);
  if (bootstrap_.empty()) return MissingBootstrapError();
  for (const char* reserved : {"enable.auto.commit", "enable.auto.offset.store", "group.id"}) {
    if (o_.properties.contains(reserved)) {
      return std::string("options.properties.") + reserved +
             ": managed by the spout (it commits offsets itself; use options.group_id for the "
             "group)";
    }
  }
  max_pending_ = runtime::ConfigView(&conf).Int(runtime::keys::kMaxSpoutPending);
  if (auto err = CreateConsumer()) return err;
  if (o_.give_up == GiveUp::kDeadLetter) {
    if (auto err = CreateDeadLetterProducer()) return err;
  }
  worker_ = std::make_unique<BlockingWorker>(io_);
  worker_->Start();
  if (o_.guarantee == Guarantee::kExactlyOnce) {
    if (auto err = JoinEpochs(conf)) return err;
  }
  out_.SetGauge("kafka.connected", 0);
  open_ = true;
  const auto now = Clock::now();
  next_commit_ = now + std::chrono::milliseconds(o_.commit_interval_ms);
  next_metrics_ = now + kMetricsEvery;
  last_metrics_at_ = now;
  if (o_.assignment == Assignment::kManual) {
    RefreshPartitions();
  } else {
    auto topics = NewPartitionList(static_cast<int>(o_.topics.size()) + 1);
    if (!o_.topic_pattern.empty()) {
      // librdkafka treats a topic starting with ^ as a regex; anchor it to the whole name.
      const std::string re = "^(" + o_.topic_pattern + ")$";
      rd_kafka_topic_partition_list_add(topics.get(), re.c_str(), RD_KAFKA_PARTITION_UA);
    }
    for (const auto& t : o_.topics) {
      rd_kafka_topic_partition_list_add(topics.get(), t.c_str(), RD_KAFKA_PARTITION_UA);
    }
    if (auto err = rd_kafka_subscribe(consumer_.get(), topics.get())) {
      return std::string("cannot subscribe: ") + rd_kafka_err2str(err);
    }
  }
  ScheduleTick();
  return std::nullopt;
}

std::optional<std::string> KafkaSpout::Session::CreateConsumer() {
  ConfPtr conf(rd_kafka_conf_new());
  if (auto err = ApplyProperties(conf.get(), o_.properties)) return "options." + *err;
  const char* reset =
      (o_.start == StartPosition::kCommittedOrLatest || o_.start == StartPosition::kLatest)
          ? "latest"
          : "earliest";
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"bootstrap.servers", bootstrap_}, {"group.id", o_.group_id},
      {"enable.auto.commit", "false"},   {"enable.auto.offset.store", "false"},
      {"enable.partition.eof", "false"}, {"log.queue", "true"},
  };
  for (const auto& [k, v] : settings) {
    if (auto err = SetProperty(conf.get(), k, v)) return k + ": " + *err;
  }
  const auto& user = o_.properties;
  SetDefault(conf.get(), user, "auto.offset.reset", reset);
  SetDefault(conf.get(), user, "client.id", "sparse-kafka-spout-" + std::to_string(task_id_));
  // librdkafka (2.0 as in Debian 12) stops fetching once its consumer queue holds
  // queued.min.messages records (100,000 by default, counted over all partitions) and looks again
  // only when its broker thread next wakes, up to a second later: a spout slower than the fetcher
  // drains 100,000 records and then idles for most of that second, again and again (measured in
  // bench/kafka: 0.5-0.9 s stalls, a third of the run). Counting on queued.max.messages.kbytes
  // (64 MiB by default) as the bound instead keeps a second's worth of records queued.
  SetDefault(conf.get(), user, "queued.min.messages", kSpoutQueuedMinMessages);
  // A partition paused at max_uncommitted_offsets (or an exactly_once epoch's end) resumes only
  // when the broker answers the fetch in flight, which waits up to fetch.wait.max.ms (500 ms by
  // default) for data of the partitions still fetching: half a second lost per resume. Measured
  // with one partition and the default cap (bench/kafka/exactly_once.py): 15,600 records/s at
  // 500 ms, 37,800 at 100 ms, 46,400 at 10 ms. 100 ms costs an idle consumer ten empty fetches a
  // second per broker.
  SetDefault(conf.get(), user, "fetch.wait.max.ms", kSpoutFetchWaitMaxMs);
  rd_kafka_conf_set_opaque(conf.get(), this);
  rd_kafka_conf_set_error_cb(conf.get(), &Session::OnError);
  rd_kafka_conf_set_log_cb(conf.get(), &Session::OnLog);
  rd_kafka_conf_set_offset_commit_cb(conf.get(), &Session::OnCommit);
  if (o_.assignment == Assignment::kGroup) {
    rd_kafka_conf_set_rebalance_cb(conf.get(), &Session::OnRebalance);
  }
  std::string error;
  consumer_ = NewClient(RD_KAFKA_CONSUMER, std::move(conf), error);
  if (!consumer_) return "cannot create the Kafka consumer: " + error;
  rd_kafka_set_log_queue(consumer_.get(), nullptr);  // logs are served by rd_kafka_poll
  queue_.reset(rd_kafka_queue_get_consumer(consumer_.get()));
  reaper_ = std::make_unique<MessageReaper>();
  reaper_->Start();
  wakeup_ = std::make_unique<QueueWakeup>(io_, queue_.get(), [this] { out_.Wakeup(); });
  if (auto err = wakeup_->Start()) out_.Log(3, "records are polled, not signalled: " + *err);
  return std::nullopt;
}

std::optional<std::string> KafkaSpout::Session::CreateDeadLetterProducer() {
  ConfPtr conf(rd_kafka_conf_new());
  if (auto err = ApplyProperties(conf.get(), o_.dead_letter_properties)) {
    return "options.dead_letter_" + *err;
  }
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap_}, {"log.queue", "true"}}) {
    if (auto err = SetProperty(conf.get(), k, v)) return k + ": " + *err;
  }
  SetDefault(conf.get(), o_.dead_letter_properties, "enable.idempotence", "true");
  rd_kafka_conf_set_opaque(conf.get(), this);
  rd_kafka_conf_set_error_cb(conf.get(), &Session::OnError);
  rd_kafka_conf_set_log_cb(conf.get(), &Session::OnLog);
  rd_kafka_conf_set_dr_msg_cb(conf.get(), &Session::OnDeadLetterDelivery);
  std::string error;
  dead_letter_ = NewClient(RD_KAFKA_PRODUCER, std::move(conf), error);
  if (!dead_letter_) return "cannot create the dead-letter producer: " + error;
  rd_kafka_set_log_queue(dead_letter_.get(), nullptr);
  return std::nullopt;
}

void KafkaSpout::Session::Close() {
  if (!open_ || closing_) return;
  closing_ = true;
  if (epochs_) {
    epochs_->RemoveSource(this);
    epochs_.reset();
  }
  timer_.cancel();
  gate_.Close();
  if (worker_) worker_->Stop();
  if (dead_letter_) {
    // Dead letters delivered now mark their records done, so the final commit covers them;
    // the rest are given up on (their records are read again by the next run).
    rd_kafka_flush(dead_letter_.get(),
                   static_cast<int>(std::chrono::milliseconds(kCloseTimeout).count()));
    if (rd_kafka_outq_len(dead_letter_.get()) > 0) {
      rd_kafka_purge(dead_letter_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
      rd_kafka_flush(dead_letter_.get(), 1000);
    }
    rd_kafka_poll(dead_letter_.get(), 0);
  }
  if (o_.guarantee == Guarantee::kAtLeastOnce && !fatal_) FinalCommit();
  // In group mode this leaves the group; the revocation it triggers commits nothing new (all
  // done offsets were committed above).
  // librdkafka's handles must outlive every message taken from them: drop ours first.
  prefetched_.clear();
  for (auto& [_, p] : by_slot_) p->held.clear();
  held_total_ = 0;
  reaper_.reset();  // drains
  rd_kafka_consumer_close(consumer_.get());
  PublishMetrics(Clock::now());
  wakeup_.reset();
  queue_.reset();
  consumer_.reset();
  referenced_topics_.clear();  // a new consumer knows no topic
  dead_letter_.reset();
  by_slot_.clear();
  owned_.clear();
  OwnedChanged();
  open_ = false;
}

void KafkaSpout::Session::FinalCommit() {
  commit_requested_ = true;
  for (auto& [_, p] : by_slot_) p->commit_in_flight = false;  // a lost reply must not block us
  Commit();
  const auto deadline = Clock::now() + kCloseTimeout;
  auto waiting = [this] {
    for (const auto& [_, p] : by_slot_) {
      if (p->commit_in_flight) return true;
    }
    return false;
  };
  while (waiting() && Clock::now() < deadline) rd_kafka_poll(consumer_.get(), 50);
  if (waiting()) {
    Report("commit",
           "the final offset commit did not complete within 5 s; the next run will "
           "replay records processed since the last commit");
  }
}

// ---------------------------------------------------------------------------------------------
// librdkafka callbacks

void KafkaSpout::Session::OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  static_cast<Session*>(opaque)->HandleClientError(rk, err, reason);
}

void KafkaSpout::Session::OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  auto* self = static_cast<Session*>(rd_kafka_opaque(rk));
  if (!self || level > 4) return;  // warnings and worse; errors also reach OnError
  if (auto text = self->throttle_.Admit(std::string("log:") + fac,
                                        std::string("librdkafka ") + fac + ": " + buf)) {
    self->out_.Log(RuntimeLogLevel(level), *text);
  }
}

void KafkaSpout::Session::HandleClientError(rd_kafka_t* rk, int err, const char* reason) {
  ++client_errors_;
  const ClientError e = DescribeClientError(rk, err, reason, bootstrap_);
  if (e.fatal && !fatal_) {
    fatal_ = true;
    out_.Fatal(e.message);
    return;
  }
  Report(e.key, e.message);
}

void KafkaSpout::Session::Report(const std::string& key, const std::string& message) {
  if (auto text = throttle_.Admit(key, message)) out_.ReportError(*text);
}

void KafkaSpout::Session::OnCommit(rd_kafka_t*, rd_kafka_resp_err_t err,
                                   rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  static_cast<Session*>(opaque)->Committed(err, offsets);
}

void KafkaSpout::Session::OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                      rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  static_cast<Session*>(opaque)->Rebalance(rk, err, partitions);
}

void KafkaSpout::Session::OnDeadLetterDelivery(rd_kafka_t*, const rd_kafka_message_t* msg,
                                               void* opaque) {
  auto* self = static_cast<Session*>(opaque);
  std::unique_ptr<DeadLetterRef> ref(static_cast<DeadLetterRef*>(msg->_private));
  if (!ref) return;
  Partition* p = self->FindSlot(ref->slot);
  if (!p) return;  // the partition was taken away: its new owner handles the record
  if (!msg->err) {
    ++self->dead_lettered_;
    self->Done(*p, ref->offset);
    return;
  }
  ++self->dead_letter_errors_;
  self->Report("dead_letter", "cannot write " + p->name + "@" + std::to_string(ref->offset) +
                                  " to dead-letter topic `" + self->o_.dead_letter_topic +
                                  "`: " + rd_kafka_err2str(msg->err) + "; retrying");
  if (PartitionOffsets::Record* rec = p->offsets.Find(ref->offset)) {
    self->retries_.push({Clock::now() + std::chrono::milliseconds(
                                            self->o_.retry.DelayMs(std::max(1, rec->failures))),
                         ref->slot, ref->offset, true});
  }
}

// ---------------------------------------------------------------------------------------------
// Timer

void KafkaSpout::Session::ScheduleTick() {
  auto alive = gate_.ticket();
  timer_.expires_after(std::chrono::milliseconds(o_.poll_interval_ms));
  timer_.async_wait([this, alive](const boost::system::error_code& ec) {
    if (ec || !alive) return;
    Tick();
    if (alive && !closing_) ScheduleTick();
  });
}

void KafkaSpout::Session::Tick() {
  rd_kafka_poll(consumer_.get(), 0);  // errors, logs, commit results
  if (!gate_.open() || fatal_) return;
  if (dead_letter_) rd_kafka_poll(dead_letter_.get(), 0);
  const auto now = Clock::now();
  if (o_.assignment == Assignment::kGroup && now - last_consumer_poll_ >= kGroupPollEvery) {
    // Serve rebalances while NextTuple is not polling; a record that comes along is held.
    if (MessagePtr m = PollOne()) Hold(std::move(m));
  }
  if (backpressure_ && !backpressure_paused_ &&
      now - backpressure_since_ >= std::chrono::milliseconds(o_.backpressure_pause_ms)) {
    backpressure_paused_ = true;
    UpdateAllPauses();
  }
  if (o_.assignment == Assignment::kManual && !refresh_in_flight_ && now >= next_refresh_) {
    RefreshPartitions();
  }
  if (o_.guarantee == Guarantee::kAtLeastOnce && (commit_requested_ || now >= next_commit_)) {
    Commit();
  }
  if (now >= next_metrics_) PublishMetrics(now);
}

// ---------------------------------------------------------------------------------------------
// Assignment

KafkaSpout::Session::Partition* KafkaSpout::Session::FindSlot(std::int64_t slot) {
  auto it = by_slot_.find(slot);
  return it == by_slot_.end() ? nullptr : it->second.get();
}

KafkaSpout::Session::Partition* KafkaSpout::Session::FindOwned(const std::string& topic,
                                                               std::int32_t partition) {
  auto it = owned_.find({topic, partition});
  return it == owned_.end() ? nullptr : FindSlot(it->second);
}

KafkaSpout::Session::Partition* KafkaSpout::Session::FindOwned(const rd_kafka_message_t& msg) {
  if (msg.rkt != last_owned_.rkt || msg.partition != last_owned_.partition) {
    last_owned_.rkt = msg.rkt;
    last_owned_.partition = msg.partition;
    last_owned_.p = msg.rkt ? FindOwned(rd_kafka_topic_name(msg.rkt), msg.partition) : nullptr;
  }
  return last_owned_.p;
}

std::function<void(const rd_kafka_topic_partition_t&, rd_kafka_resp_err_t)>
KafkaSpout::Session::TimestampLookupFailed() {
  return [this](const rd_kafka_topic_partition_t& e, rd_kafka_resp_err_t err) {
    Report("offsets_for_times", "cannot look up the offset for start_timestamp_ms in " +
                                    PartitionName(e.topic, e.partition) + ": " +
                                    rd_kafka_err2str(err) +
                                    "; starting from the committed offset, else earliest");
  };
}

void KafkaSpout::Session::MarkConnected() {
  if (connected_) return;
  connected_ = true;  // a broker answered: the run's Kafka was reachable (cmd_run reads it)
  out_.SetGauge("kafka.connected", 1);
}

void KafkaSpout::Session::RefreshPartitions() {
  refresh_in_flight_ = true;
  rd_kafka_t* rk = consumer_.get();
  worker_->Submit(
      [this, rk, topics = o_.topics, pattern = o_.topic_pattern, referenced = referenced_topics_] {
        MetadataResult result = FetchMetadata(rk, topics, pattern, referenced);
        return [this, result = std::move(result)] { OnMetadata(result); };
      });
}

void KafkaSpout::Session::OnMetadata(const MetadataResult& result) {
  refresh_in_flight_ = false;
  referenced_topics_.insert(result.referenced.begin(), result.referenced.end());
  next_refresh_ = Clock::now() + std::chrono::milliseconds(o_.partition_refresh_ms);
  if (result.err) {
    Report("metadata", "cannot read topic metadata from " + bootstrap_ + ": " +
                           rd_kafka_err2str(result.err) + "; retrying every " +
                           std::to_string(o_.partition_refresh_ms) + " ms");
    return;
  }
  MarkConnected();
  std::vector<TopicPartition> all;
  for (const auto& t : result.topics) {
    if (t.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART) {
      Report("unknown_topic:" + t.name, "topic `" + t.name + "` does not exist on " + bootstrap_ +
                                            "; checking again every " +
                                            std::to_string(o_.partition_refresh_ms) + " ms");
      continue;
    }
    if (t.err) {
      // A transient problem (leader election, authorization): keep the assignment as it is
      // rather than moving partitions between tasks.
      Report("topic_error:" + t.name,
             "topic `" + t.name + "`: " + rd_kafka_err2str(t.err) + "; retrying");
      return;
    }
    for (int i = 0; i < t.partitions; ++i) all.emplace_back(t.name, i);
  }
  if (result.topics.empty() && !o_.topic_pattern.empty()) {
    Report("no_topics", "no topic on " + bootstrap_ + " matches topic_pattern `" +
                            o_.topic_pattern + "`; checking again every " +
                            std::to_string(o_.partition_refresh_ms) + " ms");
  }
  std::sort(all.begin(), all.end());
  std::set<TopicPartition> mine;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (static_cast<int>(i % static_cast<std::size_t>(num_tasks_)) == task_index_) {
      mine.insert(all[i]);
    }
  }
  std::vector<TopicPartition> added, removed;
  for (const auto& tp : mine) {
    if (!owned_.count(tp)) added.push_back(tp);
  }
  for (const auto& [tp, _] : owned_) {
    if (!mine.count(tp)) removed.push_back(tp);
  }
  if (!removed.empty()) RemovePartitions(removed);
  if (!added.empty()) AddPartitions(added);
}

KafkaSpout::Session::Partition& KafkaSpout::Session::NewPartition(const std::string& topic,
                                                                  std::int32_t partition) {
  auto p = std::make_unique<Partition>();
  p->slot = next_slot_++;
  p->topic = topic;
  p->partition = partition;
  p->name = PartitionName(topic, partition);
  Partition& ref = *p;
  owned_[{topic, partition}] = p->slot;
  OwnedChanged();
  by_slot_[p->slot] = std::move(p);
  return ref;
}

std::int64_t KafkaSpout::Session::StartOffsetFor(const TopicPartition& tp) {
  // The start position applies the first time this run reads a partition; after that (it was
  // taken away and given back) the committed offset is the truth.
  if (!started_.insert(tp).second) return RD_KAFKA_OFFSET_STORED;
  switch (o_.start) {
    case StartPosition::kEarliest:
      return RD_KAFKA_OFFSET_BEGINNING;
    case StartPosition::kLatest:
      return RD_KAFKA_OFFSET_END;
    case StartPosition::kCommittedOrEarliest:
    case StartPosition::kCommittedOrLatest:
      return RD_KAFKA_OFFSET_STORED;
    case StartPosition::kTimestamp:
      return o_.start_timestamp_ms;  // resolved with offsets-for-times before assigning
  }
  return RD_KAFKA_OFFSET_STORED;
}

void KafkaSpout::Session::AddPartitions(const std::vector<TopicPartition>& tps) {
  auto list = NewPartitionList(static_cast<int>(tps.size()));
  bool by_time = false;
  for (const auto& tp : tps) {
    NewPartition(tp.first, tp.second);
    const std::int64_t offset = StartOffsetFor(tp);
    rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset = offset;
    by_time = by_time || offset >= 0;
  }
  if (!by_time) {
    AssignResolvingCommitted(std::move(list));
    return;
  }
  // Offsets-for-times blocks: look them up on the helper thread, then assign on the loop.
  rd_kafka_t* rk = consumer_.get();
  auto shared = std::make_shared<PartitionListPtr>(std::move(list));
  worker_->Submit([this, rk, shared] {
    PartitionListPtr query(rd_kafka_topic_partition_list_copy(shared->get()));
    const auto err = rd_kafka_offsets_for_times(rk, query.get(), kOffsetsForTimesTimeoutMs);
    auto q = std::make_shared<PartitionListPtr>(std::move(query));
    return [this, shared, q, err] {
      rd_kafka_topic_partition_list_t* asked = shared->get();
      ApplyOffsetsForTimes(asked, q->get(), err, TimestampLookupFailed());
      AssignResolvingCommitted(PartitionListPtr(rd_kafka_topic_partition_list_copy(asked)));
    };
  });
}

// Partitions to start at their committed offset are not assigned at RD_KAFKA_OFFSET_STORED:
// librdkafka 2.0 then looks the offset up itself, and when that lookup fails as a whole (a
// request-level NOT_COORDINATOR, as a fresh broker answers while its __consumer_offsets
// loads) the partition is never fetched and nothing says so again (librdkafka issue #5586);
// the spout sat idle for good. So the spout looks the committed offsets up on the helper
// thread, retrying, and assigns explicit offsets (no commit: the start option's fallback,
// which is what auto.offset.reset would have chosen).
void KafkaSpout::Session::AssignResolvingCommitted(PartitionListPtr list) {
  auto stored = NewPartitionList(list->cnt);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (e.offset == RD_KAFKA_OFFSET_STORED) {
      rd_kafka_topic_partition_list_add(stored.get(), e.topic, e.partition);
    }
  }
  if (stored->cnt == 0) {
    AssignWithOffsets(std::move(list));
    return;
  }
  const std::int64_t fallback =
      (o_.start == StartPosition::kCommittedOrLatest || o_.start == StartPosition::kLatest)
          ? RD_KAFKA_OFFSET_END
          : RD_KAFKA_OFFSET_BEGINNING;
  rd_kafka_t* rk = consumer_.get();
  const std::atomic<bool>* cancelled = &worker_->cancelled();
  auto shared = std::make_shared<PartitionListPtr>(std::move(list));
  auto query = std::make_shared<PartitionListPtr>(std::move(stored));
  worker_->Submit([this, rk, cancelled, shared, query, fallback] {
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR__TIMED_OUT;
    for (int attempt = 0; attempt < kCommittedTries && !*cancelled; ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(kCommittedRetryPause);
      err = rd_kafka_committed(rk, query->get(), kCommittedTimeoutMs);
      for (int i = 0; !err && i < (*query)->cnt; ++i) err = (*query)->elems[i].err;
      if (!err) break;
    }
    return [this, shared, query, err, fallback] {
      rd_kafka_topic_partition_list_t* list = shared->get();
      for (int i = 0; i < list->cnt; ++i) {
        auto& e = list->elems[i];
        if (e.offset != RD_KAFKA_OFFSET_STORED) continue;
        if (err) {
          Report("committed", "cannot look up the committed offset of " +
                                  PartitionName(e.topic, e.partition) + ": " +
                                  rd_kafka_err2str(err) + "; leaving it to librdkafka");
          continue;
        }
        const auto* r = rd_kafka_topic_partition_list_find(query->get(), e.topic, e.partition);
        e.offset = r && r->offset >= 0 ? r->offset : fallback;
      }
      AssignWithOffsets(PartitionListPtr(rd_kafka_topic_partition_list_copy(list)));
    };
  });
}

void KafkaSpout::Session::AssignWithOffsets(PartitionListPtr list) {
  // Partitions removed while their offsets were looked up are skipped.
  auto keep = NewPartitionList(list->cnt);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    Partition* p = FindOwned(e.topic, e.partition);
    if (!p || p->assigned) continue;
    rd_kafka_topic_partition_list_add(keep.get(), e.topic, e.partition)->offset = e.offset;
  }
  if (keep->cnt == 0) return;
  ErrorPtr error(rd_kafka_incremental_assign(consumer_.get(), keep.get()));
  if (error) {
    Report("assign",
           std::string("cannot assign partitions: ") + rd_kafka_error_string(error.get()));
    for (int i = 0; i < keep->cnt; ++i)
      owned_.erase({keep->elems[i].topic, keep->elems[i].partition});
    OwnedChanged();
    return;
  }
  std::string names;
  for (int i = 0; i < keep->cnt; ++i) {
    Partition* p = FindOwned(keep->elems[i].topic, keep->elems[i].partition);
    p->assigned = true;
    UpdatePause(*p);
    names += (names.empty() ? "" : ", ") + p->name;
  }
  out_.Log(2, "reading " + names);
}

void KafkaSpout::Session::Forget(Partition& p, const char* why) {
  if (epochs_ && !rewinding_ && p.offsets.Pending() > 0) {
    epochs_->Fail(p.name + " " + why + " with records of the epoch in flight");
  }
  revoked_pending_ += p.offsets.Pending();
  held_total_ -= p.held.size();
  p.held.clear();
  std::erase_if(prefetched_, [&](const MessagePtr& m) {
    return m->rkt && m->partition == p.partition && p.topic == rd_kafka_topic_name(m->rkt);
  });
  if (p.offsets.Pending() > 0 && !rewinding_) {
    out_.Log(2, p.name + " " + why + " with " + std::to_string(p.offsets.Pending()) +
                    " record(s) in flight: they will be read again by its next owner");
  }
  out_.SetGauge("kafka.lag." + p.name, 0);
  out_.SetGauge("kafka.uncommitted." + p.name, 0);
  owned_.erase({p.topic, p.partition});
  OwnedChanged();
  by_slot_.erase(p.slot);  // late acks for its tuples are ignored (counted as stale)
}

void KafkaSpout::Session::RemovePartitions(const std::vector<TopicPartition>& tps) {
  auto list = NewPartitionList(static_cast<int>(tps.size()));
  std::vector<Partition*> parts;
  for (const auto& tp : tps) {
    Partition* p = FindOwned(tp.first, tp.second);
    if (!p) continue;
    parts.push_back(p);
    if (p->assigned) rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second);
  }
  if (o_.guarantee == Guarantee::kAtLeastOnce) CommitSync(parts);
  for (Partition* p : parts) Forget(*p, "was taken away");
  if (list->cnt > 0) ErrorPtr(rd_kafka_incremental_unassign(consumer_.get(), list.get()));
}

void KafkaSpout::Session::Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                    rd_kafka_topic_partition_list_t* parts) {
  const bool cooperative = std::string(rd_kafka_rebalance_protocol(rk)) == "COOPERATIVE";
  MarkConnected();  // a group coordinator answered
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    bool by_time = false;
    std::string names;
    for (int i = 0; i < parts->cnt; ++i) {
      auto& e = parts->elems[i];
      if (Partition* old = FindOwned(e.topic, e.partition)) Forget(*old, "was re-assigned");
      Partition& p = NewPartition(e.topic, e.partition);
      p.assigned = true;
      e.offset = StartOffsetFor({e.topic, e.partition});
      by_time = by_time || e.offset >= 0;
      names += (names.empty() ? "" : ", ") + p.name;
    }
    if (by_time) {
      // Inside a rebalance the assignment must be given now: this lookup blocks the loop (up to
      // 10 s), once per partition per run.
      PartitionListPtr query(rd_kafka_topic_partition_list_copy(parts));
      const auto qerr = rd_kafka_offsets_for_times(rk, query.get(), kOffsetsForTimesTimeoutMs);
      ApplyOffsetsForTimes(parts, query.get(), qerr, TimestampLookupFailed());
    }
    if (cooperative) {
      ErrorPtr(rd_kafka_incremental_assign(rk, parts));
    } else {
      rd_kafka_assign(rk, parts);
    }
    for (int i = 0; i < parts->cnt; ++i) {
      if (Partition* p = FindOwned(parts->elems[i].topic, parts->elems[i].partition)) {
        UpdatePause(*p);
      }
    }
    out_.Log(2, "group assigned " + (names.empty() ? std::string("no partitions") : names));
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    std::vector<Partition*> revoked;
    for (int i = 0; i < parts->cnt; ++i) {
      if (Partition* p = FindOwned(parts->elems[i].topic, parts->elems[i].partition)) {
        revoked.push_back(p);
      }
    }
    // Commit what was processed, never more; a lost assignment cannot commit any more.
    if (o_.guarantee == Guarantee::kAtLeastOnce && !rd_kafka_assignment_lost(rk)) {
      CommitSync(revoked);
    }
    for (Partition* p : revoked) Forget(*p, "was revoked");
    if (cooperative) {
      ErrorPtr(rd_kafka_incremental_unassign(rk, parts));
    } else {
      rd_kafka_assign(rk, nullptr);
    }
    return;
  }
  Report("rebalance", std::string("group rebalance failed: ") + rd_kafka_err2str(err));
  rd_kafka_assign(rk, nullptr);
  for (auto& [_, slot] : std::map<TopicPartition, std::int64_t>(owned_)) {
    if (Partition* p = FindSlot(slot)) Forget(*p, "was dropped after a failed rebalance");
  }
}

// ---------------------------------------------------------------------------------------------
// Pausing

void KafkaSpout::Session::UpdatePause(Partition& p) {
  if (!p.assigned || !consumer_) return;
  const bool want = !active_ || backpressure_paused_ || p.capped || p.held.size() >= kMaxHeld;
  if (want == p.paused) return;
  auto list = NewPartitionList(1);
  rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition);
  const auto err = want ? rd_kafka_pause_partitions(consumer_.get(), list.get())
                        : rd_kafka_resume_partitions(consumer_.get(), list.get());
  // After the resume, which sets librdkafka's own position (a seek before it is overridden).
  if (!want && !err) SeekToOwnPosition(p);
  if (err) {
    Report("pause", std::string("cannot ") + (want ? "pause " : "resume ") + p.name + ": " +
                        rd_kafka_err2str(err));
    return;
  }
  p.paused = want;
}

// librdkafka before 2.1 resumes a paused partition at the position it recorded, which
// rd_kafka_consume_batch_queue can leave wrong (it advanced it past messages that a pause's
// barrier then purged: librdkafka PR #4208): the partition skipped records, or went back. A
// skip lost them for good, since the spout commits across a gap as across compacted offsets.
// So before resuming, the spout seeks to its own position: the oldest record it received but
// has not taken yet (held or prefetched, dropped here to be fetched again), else the one after
// the last it took. Nothing received since the assignment: librdkafka's position is right.
void KafkaSpout::Session::SeekToOwnPosition(Partition& p) {
  std::optional<std::int64_t> position;
  if (!p.held.empty()) position = p.held.front()->offset;
  for (const auto& m : prefetched_) {
    if (position) break;
    if (!m->err && m->rkt && m->partition == p.partition &&
        p.topic == rd_kafka_topic_name(m->rkt)) {
      position = m->offset;
    }
  }
  if (!position) position = p.offsets.next();
  if (!position) position = p.first_read;  // rewound (exactly_once), nothing read since
  if (!position) return;
  held_total_ -= p.held.size();
  p.held.clear();
  std::erase_if(prefetched_, [&](const MessagePtr& m) {
    return m->rkt && m->partition == p.partition && p.topic == rd_kafka_topic_name(m->rkt);
  });
  auto list = NewPartitionList(1);
  rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition)->offset = *position;
  if (ErrorPtr error{rd_kafka_seek_partitions(consumer_.get(), list.get(), 0)}) {
    Report("seek", "cannot resume " + p.name + " at offset " + std::to_string(*position) + ": " +
                       rd_kafka_error_string(error.get()));
  }
}

void KafkaSpout::Session::UpdateAllPauses() {
  for (auto& [_, p] : by_slot_) UpdatePause(*p);
}

// ---------------------------------------------------------------------------------------------
// The data path

bool KafkaSpout::Session::Prefetch() {
  batch_.resize(static_cast<std::size_t>(o_.max_batch));
  const ssize_t n = rd_kafka_consume_batch_queue(queue_.get(), 0, batch_.data(), batch_.size());
  for (ssize_t i = 0; i < n; ++i) prefetched_.emplace_back(batch_[static_cast<std::size_t>(i)]);
  return n > 0;
}

MessagePtr KafkaSpout::Session::PollOne() {
  last_consumer_poll_ = Clock::now();
  return MessagePtr(rd_kafka_consumer_poll(consumer_.get(), 0));
}

void KafkaSpout::Session::Hold(MessagePtr msg) {
  if (msg->err) {
    HandleMessageError(*msg);
    return;
  }
  Partition* p = FindOwned(*msg);
  if (!p) return;  // no longer ours; not committed, so its next owner reads it
  p->held.push_back(std::move(msg));
  ++held_total_;
  UpdatePause(*p);
}

// The next record to emit: held records of partitions that may emit first (they are older than
// anything librdkafka still has for that partition), then a fresh poll.
MessagePtr KafkaSpout::Session::TakeMessage(Partition*& from) {
  if (held_total_ > 0) {
    for (auto& [_, p] : by_slot_) {
      if (!p->held.empty() && !p->capped) {
        MessagePtr m = std::move(p->held.front());
        p->held.pop_front();
        --held_total_;
        from = p.get();
        return m;
      }
    }
  }
  for (;;) {
    if (prefetched_.empty() && !Prefetch()) return nullptr;
    MessagePtr m = std::move(prefetched_.front());
    prefetched_.pop_front();
    if (m->err) {
      HandleMessageError(*m);
      continue;
    }
    Partition* p = FindOwned(*m);
    if (!p) continue;  // not ours any more
    if (p->capped || !p->held.empty()) {
      Hold(std::move(m));
      continue;
    }
    from = p;
    return m;
  }
}

void KafkaSpout::Session::HandleMessageError(const rd_kafka_message_t& msg) {
  ++consume_errors_;
  const std::string where =
      msg.rkt ? " (" + PartitionName(rd_kafka_topic_name(msg.rkt), msg.partition) + ")" : "";
  if (msg.err == RD_KAFKA_RESP_ERR__AUTO_OFFSET_RESET) {
    ++offset_resets_;
    Report("offset_reset", "offset out of range" + where +
                               ", reset by auto.offset.reset: " + rd_kafka_message_errstr(&msg) +
                               " (records between may have been deleted by retention)");
    return;
  }
  if (msg.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
      msg.err == RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC ||
      msg.err == RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION) {
    Report(std::string("consume:") + rd_kafka_err2name(msg.err),
           "topic or partition does not exist" + where + ": " + rd_kafka_message_errstr(&msg) +
               "; retrying");
    return;
  }
  Report(std::string("consume:") + rd_kafka_err2name(msg.err),
         "consumer error" + where + ": " + rd_kafka_message_errstr(&msg));
}

void KafkaSpout::Session::NextTuple() {
  if (!open_ || fatal_) return;
  if (o_.guarantee == Guarantee::kAtMostOnce) {
    NextTupleAtMostOnce();
    return;
  }
  if (epochs_) {
    NextTupleExactlyOnce();
    return;
  }
  int budget = static_cast<int>(o_.max_batch);
  const auto now = Clock::now();
  last_consumer_poll_ = now;
  RunDueRetries(now, budget);
  while (budget > 0 && CanEmit()) {
    Partition* p = nullptr;
    MessagePtr m = TakeMessage(p);
    if (!m) break;
    if (Take(std::move(m), *p)) --budget;
  }
  reaper_->Flush();
}

bool KafkaSpout::Session::Take(MessagePtr msg, Partition& p) {
  ++records_;
  const RecordView view = ViewOf(*msg, p.topic);

  PartitionOffsets::Record* rec = p.offsets.Add(msg->offset);
  if (rec && !p.first_read) p.first_read = msg->offset;
  if (!rec) {
    // The partition went back in time (an offset reset after truncation; or librdkafka before
    // 2.1 delivering again after a pause, see SeekToOwnPosition): start tracking afresh; acks
    // for what was in flight are now stale, and its tuples complete or fail unwatched.
    ++offset_resets_;
    Report("rewind", p.name + " went back from offset " +
                         std::to_string(p.offsets.next().value_or(-1) - 1) + " to " +
                         std::to_string(msg->offset) + "; tracking restarts there");
    const std::string topic = p.topic;
    const std::int32_t partition = p.partition;
    const bool paused = p.paused;
    // What librdkafka delivered after this record follows it in the new sequence: kept (Forget
    // drops a partition's prefetched records, right when it goes to another owner, not here).
    auto following = std::move(prefetched_);
    prefetched_.clear();
    Forget(p, "was rewound");
    prefetched_ = std::move(following);
    Partition& fresh = NewPartition(topic, partition);
    fresh.assigned = true;
    fresh.paused = paused;
    return Take(std::move(msg), fresh);
  }
  if (o_.give_up == GiveUp::kDeadLetter) {
    rec->raw = std::make_unique<PartitionOffsets::Raw>();
    if (view.key) rec->raw->key = std::string(*view.key);
    if (view.value) rec->raw->value = std::string(*view.value);
  }
  if (p.offsets.Uncommitted() >= o_.max_uncommitted_offsets) {
    p.capped = true;
    commit_requested_ = true;
    UpdatePause(p);
    // exactly_once commits only with the epoch: a capped partition would idle until the epoch
    // ages out, so the cap closes the epoch now (it bounds the epoch's size as it bounds the
    // replay of at-least-once).
    if (epochs_) epochs_->CloseEpoch();
  }
  if (epochs_ && o_.retry.max_retries >= 0) {
    auto it = epoch_failures_.find({p.topic, p.partition, msg->offset});
    if (it != epoch_failures_.end() && it->second > o_.retry.max_retries) {
      const int aborts = it->second;
      epoch_failures_.erase(it);
      GiveUp(p, *rec, "failed " + std::to_string(aborts) + " time(s), each aborting its epoch");
      return false;
    }
  }
  std::string values;
  values.reserve(64 + msg->len + msg->key_len);
  if (const auto decode_error = encoder_.Encode(view, values, &spans_)) {
    ++decode_errors_;
    GiveUp(p, *rec, "cannot decode: " + *decode_error);
    return false;
  }
  // The tuple is made once and kept for a retry; the message can go (see MessageReaper).
  reaper_->Release(msg.release());
  // The encoder validated the values and knows their spans: the runtime need not scan them again.
  rec->tuple = out_.PrepareEncoded(o_.stream, std::move(values), spans_);
  if (!rec->tuple) {
    GiveUp(p, *rec, "the runtime refused the tuple (see the error before)");
    return false;
  }
  EmitRecord(p, *rec);
  return true;
}

void KafkaSpout::Session::EmitRecord(Partition& p, const PartitionOffsets::Record& rec) {
  ++in_flight_;
  ++emitted_;
  out_.EmitPrepared(rec.tuple, MessageId(p.slot, rec.offset));
}

void KafkaSpout::Session::RunDueRetries(Clock::time_point now, int& budget) {
  while (budget > 0 && !retries_.empty() && retries_.top().due <= now && CanEmit()) {
    const Retry r = retries_.top();
    retries_.pop();
    Partition* p = FindSlot(r.slot);
    if (!p) continue;
    PartitionOffsets::Record* rec = p->offsets.Find(r.offset);
    if (!rec) continue;
    if (r.dead_letter) {
      SendDeadLetter(*p, *rec, "retrying the dead-letter write");
      continue;
    }
    ++retries_done_;
    EmitRecord(*p, *rec);
    --budget;
  }
}

void KafkaSpout::Session::Ack(const std::string& id) {
  std::int64_t slot = 0, offset = 0;
  if (!ParseMessageId(id, slot, offset)) return;
  --in_flight_;
  Partition* p = FindSlot(slot);
  if (!p) {
    ++stale_acks_;
    return;
  }
  ++acked_;
  Done(*p, offset);
}

void KafkaSpout::Session::Done(Partition& p, std::int64_t offset) {
  if (p.offsets.Done(offset) && p.capped) commit_requested_ = true;
  if (epochs_) epochs_->Progress();
}

void KafkaSpout::Session::Fail(const std::string& id) {
  std::int64_t slot = 0, offset = 0;
  if (!ParseMessageId(id, slot, offset)) return;
  --in_flight_;
  ++failed_;
  Partition* p = FindSlot(slot);
  if (!p) {
    ++stale_acks_;
    return;
  }
  PartitionOffsets::Record* rec = p->offsets.Find(offset);
  if (!rec) return;
  if (epochs_) {
    const int n = ++epoch_failures_[{p->topic, p->partition, offset}];
    epochs_->Fail("the tuple of " + p->name + "@" + std::to_string(offset) +
                  " failed or timed out" + (n > 1 ? " (" + std::to_string(n) + " times)" : ""));
    return;
  }
  ++rec->failures;
  if (o_.retry.max_retries < 0 || rec->failures <= o_.retry.max_retries) {
    retries_.push({Clock::now() + std::chrono::milliseconds(o_.retry.DelayMs(rec->failures)), slot,
                   offset, false});
    return;
  }
  GiveUp(*p, *rec, "failed " + std::to_string(rec->failures) + " time(s)");
}

void KafkaSpout::Session::GiveUp(Partition& p, PartitionOffsets::Record& rec,
                                 const std::string& reason) {
  switch (o_.give_up) {
    case GiveUp::kSkip:
      ++skipped_;
      Report("skip", "gave up on " + p.name + "@" + std::to_string(rec.offset) + ": " + reason +
                         "; skipped (on_give_up: skip)");
      Done(p, rec.offset);
      return;
    case GiveUp::kDeadLetter:
      SendDeadLetter(p, rec, reason);
      return;
  }
}

void KafkaSpout::Session::SendDeadLetter(Partition& p, PartitionOffsets::Record& rec,
                                         const std::string& reason) {
  HeadersPtr headers(rd_kafka_headers_new(4));
  const std::string partition = std::to_string(p.partition);
  const std::string offset = std::to_string(rec.offset);
  rd_kafka_header_add(headers.get(), "sparse.source.topic", -1, p.topic.data(),
                      static_cast<ssize_t>(p.topic.size()));
  rd_kafka_header_add(headers.get(), "sparse.source.partition", -1, partition.data(),
                      static_cast<ssize_t>(partition.size()));
  rd_kafka_header_add(headers.get(), "sparse.source.offset", -1, offset.data(),
                      static_cast<ssize_t>(offset.size()));
  rd_kafka_header_add(headers.get(), "sparse.error", -1, reason.data(),
                      static_cast<ssize_t>(reason.size()));
  auto ref = std::make_unique<DeadLetterRef>(DeadLetterRef{p.slot, rec.offset, reason});
  const std::optional<std::string>* raw_key = rec.raw ? &rec.raw->key : nullptr;
  std::optional<std::string>* raw_value = rec.raw ? &rec.raw->value : nullptr;
  const void* key = raw_key && *raw_key ? (*raw_key)->data() : nullptr;
  const std::size_t key_len = raw_key && *raw_key ? (*raw_key)->size() : 0;
  void* value = raw_value && *raw_value ? (*raw_value)->data() : nullptr;
  const std::size_t value_len = raw_value && *raw_value ? (*raw_value)->size() : 0;
  const auto err =
      rd_kafka_producev(dead_letter_.get(), RD_KAFKA_V_TOPIC(o_.dead_letter_topic.c_str()),
                        RD_KAFKA_V_KEY(key, key_len), RD_KAFKA_V_VALUE(value, value_len),
                        RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_HEADERS(headers.get()),
                        RD_KAFKA_V_OPAQUE(ref.get()), RD_KAFKA_V_END);
  if (err) {
    ++dead_letter_errors_;
    Report("dead_letter", "cannot queue " + p.name + "@" + offset + " for dead-letter topic `" +
                              o_.dead_letter_topic + "`: " + rd_kafka_err2str(err) + "; retrying");
    retries_.push(
        {Clock::now() + std::chrono::milliseconds(o_.retry.DelayMs(std::max(1, rec.failures))),
         p.slot, rec.offset, true});
    return;
  }
  headers.release();  // owned by the message now
  ref.release();      // comes back in the delivery report
  out_.Log(3, "dead-lettering " + p.name + "@" + offset + " to `" + o_.dead_letter_topic +
                  "`: " + reason);
}

// ---------------------------------------------------------------------------------------------
// At-most-once: commit a batch, then emit it (unanchored: it is never replayed).

void KafkaSpout::Session::NextTupleAtMostOnce() {
  if (amo_committed_) {
    for (auto& values : amo_batch_) {
      ++emitted_;
      out_.Emit(o_.stream, std::move(values), "", {}, std::nullopt);
    }
    amo_batch_.clear();
    amo_offsets_.clear();
    amo_committed_ = false;
    return;
  }
  if (amo_committing_ || Clock::now() < amo_retry_at_) return;
  if (amo_offsets_.empty()) {
    while (static_cast<std::int64_t>(amo_batch_.size()) < o_.max_batch) {
      Partition* p = nullptr;
      MessagePtr m = TakeMessage(p);
      if (!m) break;
      ++records_;
      const RecordView view = ViewOf(*m, p->topic);
      std::string values;
      if (auto err = encoder_.Encode(view, values)) {
        ++decode_errors_;
        ++skipped_;
        Report("decode",
               "skipped " + p->name + "@" + std::to_string(m->offset) + ": cannot decode: " + *err);
      } else {
        amo_batch_.push_back(std::move(values));
      }
      amo_offsets_[{p->topic, p->partition}] = m->offset + 1;
      reaper_->Release(m.release());
    }
    reaper_->Flush();
  }
  if (amo_offsets_.empty()) return;
  auto list = NewPartitionList(static_cast<int>(amo_offsets_.size()));
  for (const auto& [tp, offset] : amo_offsets_) {
    rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset = offset;
  }
  amo_committing_ = true;
  if (const auto err = rd_kafka_commit(consumer_.get(), list.get(), 1)) {
    AtMostOnceCommitted(false, rd_kafka_err2str(err));
  }
}

void KafkaSpout::Session::AtMostOnceCommitted(bool ok, const std::string& error) {
  amo_committing_ = false;
  if (ok) {
    ++commits_;
    amo_committed_ = true;
    out_.Wakeup();
    return;
  }
  // The batch stays: it is emitted once its offsets are committed, never before.
  ++commit_errors_;
  amo_retry_at_ = Clock::now() + std::chrono::milliseconds(o_.retry.DelayMs(1));
  Report("commit", "offset commit before emit failed: " + error + "; retrying");
}

// ---------------------------------------------------------------------------------------------
// Commits

void KafkaSpout::Session::Commit() {
  commit_requested_ = false;
  next_commit_ = Clock::now() + std::chrono::milliseconds(o_.commit_interval_ms);
  auto list = NewPartitionList(static_cast<int>(by_slot_.size()));
  for (auto& [_, p] : by_slot_) {
    if (p->commit_in_flight || !p->offsets.NeedsCommit()) continue;
    rd_kafka_topic_partition_list_add(list.get(), p->topic.c_str(), p->partition)->offset =
        *p->offsets.CommitPoint();
    p->commit_in_flight = true;
  }
  if (list->cnt == 0) return;
  if (const auto err = rd_kafka_commit(consumer_.get(), list.get(), 1)) {
    Committed(err, list.get());
  }
}

void KafkaSpout::Session::CommitSync(const std::vector<Partition*>& parts) {
  auto list = NewPartitionList(static_cast<int>(parts.size()));
  for (Partition* p : parts) {
    if (p->offsets.NeedsCommit()) {
      rd_kafka_topic_partition_list_add(list.get(), p->topic.c_str(), p->partition)->offset =
          *p->offsets.CommitPoint();
    }
  }
  if (list->cnt == 0) return;
  const auto err = rd_kafka_commit(consumer_.get(), list.get(), 0);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    if (err || e.err) {
      ++commit_errors_;
      Report("commit", "offset commit for " + PartitionName(e.topic, e.partition) +
                           " failed: " + rd_kafka_err2str(err ? err : e.err) +
                           "; its next owner replays records since the last commit");
    } else {
      ++commits_;
      if (Partition* p = FindOwned(e.topic, e.partition)) p->offsets.Committed(e.offset);
    }
  }
}

void KafkaSpout::Session::Committed(rd_kafka_resp_err_t err,
                                    const rd_kafka_topic_partition_list_t* offsets) {
  if (o_.guarantee == Guarantee::kAtMostOnce) {
    if (err == RD_KAFKA_RESP_ERR__NO_OFFSET) err = RD_KAFKA_RESP_ERR_NO_ERROR;
    bool ok = !err;
    std::string why = rd_kafka_err2str(err);
    for (int i = 0; offsets && i < offsets->cnt; ++i) {
      if (offsets->elems[i].err) {
        ok = false;
        why = rd_kafka_err2str(offsets->elems[i].err);
      }
    }
    if (amo_committing_) AtMostOnceCommitted(ok, why);
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__NO_OFFSET) return;  // nothing was to be committed
  for (int i = 0; offsets && i < offsets->cnt; ++i) {
    const auto& e = offsets->elems[i];
    Partition* p = FindOwned(e.topic, e.partition);
    if (!p || !p->commit_in_flight) continue;  // a commit for a partition we no longer own
    p->commit_in_flight = false;
    if (err || e.err) {
      ++commit_errors_;
      Report("commit", "offset commit for " + p->name +
                           " failed: " + rd_kafka_err2str(err ? err : e.err) + "; retrying");
      continue;
    }
    ++commits_;
    p->offsets.Committed(e.offset);
    if (p->capped && p->offsets.Uncommitted() < o_.max_uncommitted_offsets) {
      p->capped = false;
      UpdatePause(*p);
    } else if (p->capped && p->offsets.NeedsCommit()) {
      commit_requested_ = true;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Exactly-once (exactly_once.hpp): records are emitted only while the topology's epoch is open;
// the spout commits nothing itself (its offsets go into the epoch's transaction); a failure is
// not retried here but aborts the epoch, and Rewind takes every partition back to the epoch's
// first offset.

std::optional<std::string> KafkaSpout::Session::JoinEpochs(const nlohmann::json& conf) {
  const std::string topology = conf.value(runtime::keys::kTopologyName, std::string());
  EpochSettings settings;
  settings.bootstrap = bootstrap_;
  settings.transactional_id =
      o_.transactional_id.empty() ? "sparse-" + topology + "-" + o_.group_id : o_.transactional_id;
  settings.producer_properties = o_.transaction_properties;
  settings.limits.max_age = std::chrono::milliseconds(o_.epoch_ms);
  settings.limits.max_records = o_.epoch_max_records;
  settings.poll_interval_ms = o_.poll_interval_ms;
  epochs_ = EpochCoordinator::Acquire(io_, topology);
  if (auto err = epochs_->AddSource(task_id_, this, settings, out_)) {
    epochs_.reset();
    return err;
  }
  return std::nullopt;
}

void KafkaSpout::Session::NextTupleExactlyOnce() {
  int budget = static_cast<int>(o_.max_batch);
  last_consumer_poll_ = Clock::now();
  while (budget > 0 && CanEmit() && epochs_->MayEmit()) {
    Partition* p = nullptr;
    MessagePtr m = TakeMessage(p);
    if (!m) break;
    if (Take(std::move(m), *p)) {
      --budget;
      epochs_->Emitted();
    }
  }
  reaper_->Flush();
}

std::int64_t KafkaSpout::Session::Outstanding() const {
  std::int64_t n = 0;
  for (const auto& [_, p] : by_slot_) n += static_cast<std::int64_t>(p->offsets.Pending());
  return n;
}

void KafkaSpout::Session::AppendOffsets(rd_kafka_topic_partition_list_t* list) const {
  for (const auto& [_, p] : by_slot_) {
    const auto point = p->offsets.CommitPoint();
    if (!point || (p->offsets.committed() && *p->offsets.committed() >= *point)) continue;
    rd_kafka_topic_partition_list_add(list, p->topic.c_str(), p->partition)->offset = *point;
  }
}

void KafkaSpout::Session::EpochCommitted(const rd_kafka_topic_partition_list_t* offsets) {
  for (int i = 0; offsets && i < offsets->cnt; ++i) {
    const auto& e = offsets->elems[i];
    Partition* p = FindOwned(e.topic, e.partition);
    if (!p) continue;
    ++commits_;
    p->offsets.Committed(e.offset);
    std::erase_if(epoch_failures_, [&](const auto& f) {
      return std::get<0>(f.first) == p->topic && std::get<1>(f.first) == p->partition &&
             std::get<2>(f.first) < e.offset;
    });
    if (p->capped && p->offsets.Uncommitted() < o_.max_uncommitted_offsets) {
      p->capped = false;
      UpdatePause(*p);
    }
  }
}

void KafkaSpout::Session::Rewind() {
  struct Back {
    TopicPartition tp;
    std::int64_t offset;
    bool paused;
    bool capped;
  };
  std::vector<Back> back;
  for (const auto& [_, p] : by_slot_) {
    if (!p->assigned) continue;
    const auto to = p->offsets.committed() ? p->offsets.committed() : p->first_read;
    if (!to) continue;  // nothing read: its position is right
    back.push_back({{p->topic, p->partition}, *to, p->paused, p->capped});
  }
  if (back.empty()) return;
  rewinding_ = true;
  auto list = NewPartitionList(static_cast<int>(back.size()));
  for (const auto& b : back) {
    if (Partition* p = FindOwned(b.tp.first, b.tp.second)) Forget(*p, "was rewound");
    Partition& fresh = NewPartition(b.tp.first, b.tp.second);
    fresh.assigned = true;
    fresh.paused = b.paused;
    fresh.first_read = b.offset;
    rd_kafka_topic_partition_list_add(list.get(), b.tp.first.c_str(), b.tp.second)->offset =
        b.offset;
  }
  rewinding_ = false;
  ErrorPtr error{rd_kafka_seek_partitions(consumer_.get(), list.get(), 0)};
  if (error) {
    // Without the seek the partitions would go on past the aborted records: the epoch cannot
    // replay. A restarted session starts from the last committed epoch.
    fatal_ = true;
    out_.Fatal(std::string("cannot go back to the aborted epoch's first offsets: ") +
               rd_kafka_error_string(error.get()));
    return;
  }
  for (int i = 0; i < list->cnt; ++i) {
    // A seek with no timeout runs in librdkafka's thread and reports IN_PROGRESS: the fetch
    // version barrier it sets now already keeps older fetched records from reaching us.
    if (list->elems[i].err && list->elems[i].err != RD_KAFKA_RESP_ERR__IN_PROGRESS) {
      fatal_ = true;
      out_.Fatal("cannot go back to the aborted epoch's first offset of " +
                 PartitionName(list->elems[i].topic, list->elems[i].partition) + ": " +
                 rd_kafka_err2str(list->elems[i].err));
      return;
    }
  }
  for (const auto& b : back) {
    if (Partition* p = FindOwned(b.tp.first, b.tp.second)) UpdatePause(*p);
  }
}

bool KafkaSpout::Session::Live(std::string_view message_id) {
  std::int64_t slot = 0, offset = 0;
  if (!ParseMessageId(message_id, slot, offset)) return false;
  Partition* p = FindSlot(slot);
  return p && p->offsets.Find(offset) != nullptr;
}

// ---------------------------------------------------------------------------------------------
// Metrics

void KafkaSpout::Session::PublishMetrics(Clock::time_point now) {
  next_metrics_ = now + kMetricsEvery;
  const double secs = std::chrono::duration<double>(now - last_metrics_at_).count();
  if (secs > 0) {
    out_.SetGauge("kafka.records_per_sec",
                  static_cast<double>(records_ - records_at_last_metrics_) / secs);
  }
  records_at_last_metrics_ = records_;
  last_metrics_at_ = now;
  std::size_t paused = 0;
  for (auto& [_, p] : by_slot_) {
    paused += p->paused ? 1 : 0;
    std::int64_t low = 0, high = 0;
    if (consumer_ &&
        rd_kafka_get_watermark_offsets(consumer_.get(), p->topic.c_str(), p->partition, &low,
                                       &high) == 0 &&
        high >= 0) {
      const auto done = p->offsets.CommitPoint();
      const std::int64_t from = done ? *done : low;
      out_.SetGauge("kafka.lag." + p->name,
                    static_cast<double>(std::max<std::int64_t>(0, high - from)));
    }
    out_.SetGauge("kafka.uncommitted." + p->name, static_cast<double>(p->offsets.Uncommitted()));
  }
  auto gauge = [this](const char* name, double v) { out_.SetGauge(name, v); };
  gauge("kafka.records", static_cast<double>(records_));
  gauge("kafka.emitted", static_cast<double>(emitted_));
  gauge("kafka.acked", static_cast<double>(acked_));
  gauge("kafka.failed", static_cast<double>(failed_));
  gauge("kafka.retries", static_cast<double>(retries_done_));
  gauge("kafka.skipped", static_cast<double>(skipped_));
  gauge("kafka.dead_lettered", static_cast<double>(dead_lettered_));
  gauge("kafka.dead_letter_errors", static_cast<double>(dead_letter_errors_));
  gauge("kafka.decode_errors", static_cast<double>(decode_errors_));
  gauge("kafka.commits", static_cast<double>(commits_));
  gauge("kafka.commit_errors", static_cast<double>(commit_errors_));
  gauge("kafka.stale_acks", static_cast<double>(stale_acks_));
  gauge("kafka.revoked_in_flight", static_cast<double>(revoked_pending_));
  gauge("kafka.offset_resets", static_cast<double>(offset_resets_));
  gauge("kafka.consume_errors", static_cast<double>(consume_errors_));
  gauge("kafka.client_errors", static_cast<double>(client_errors_));
  gauge("kafka.partitions", static_cast<double>(by_slot_.size()));
  gauge("kafka.partitions_paused", static_cast<double>(paused));
  gauge("kafka.in_flight", static_cast<double>(std::max<std::int64_t>(0, in_flight_)));
}

// ---------------------------------------------------------------------------------------------
// KafkaSpout

KafkaSpout::KafkaSpout(SpoutOptions options) : options_(std::move(options)) {}
KafkaSpout::~KafkaSpout() = default;

std::optional<std::string> KafkaSpout::Open(const nlohmann::json& conf, int task_id, int task_index,
                                            int num_tasks, runtime::BuiltinCollector& collector,
                                            boost::asio::io_context& io) {
  session_.reset();
  auto session = std::make_unique<Session>(options_, next_slot_, collector, io, task_id, task_index,
                                           num_tasks);
  if (auto err = session->Open(conf)) return err;
  session_ = std::move(session);
  return std::nullopt;
}

void KafkaSpout::NextTuple() {
  if (session_) session_->NextTuple();
}
void KafkaSpout::Ack(const std::string& id) {
  if (session_) session_->Ack(id);
}
void KafkaSpout::Fail(const std::string& id) {
  if (session_) session_->Fail(id);
}
void KafkaSpout::Activate() {
  if (session_) session_->SetActive(true);
}
void KafkaSpout::Deactivate() {
  if (session_) session_->SetActive(false);
}
void KafkaSpout::Backpressure(bool throttled) {
  if (session_) session_->SetBackpressure(throttled);
}
void KafkaSpout::Close() {
  if (session_) session_->Close();
  session_.reset();
}

}  // namespace sparse::kafka
