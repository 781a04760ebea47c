#include "kafka/kafka_spout.hpp"

#include <atomic>
#include <boost/asio/steady_timer.hpp>
#include <charconv>
#include <chrono>
#include <deque>
#include <set>
#include <thread>

#include "base/lifetime_gate.hpp"
#include "kafka/at_most_once.hpp"
#include "kafka/backpressure_pause.hpp"
#include "kafka/blocking_worker.hpp"
#include "kafka/client_events.hpp"
#include "kafka/client_reports.hpp"
#include "kafka/commit_schedule.hpp"
#include "kafka/dead_letter.hpp"
#include "kafka/delivery_rules.hpp"
#include "kafka/exactly_once.hpp"
#include "kafka/fetch_nudge.hpp"
#include "kafka/manual_assignment.hpp"
#include "kafka/message_id.hpp"
#include "kafka/message_reaper.hpp"
#include "kafka/metrics_period.hpp"
#include "kafka/offset_tracker.hpp"
#include "kafka/partition_table.hpp"
#include "kafka/queue_wakeup.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/record_aborts.hpp"
#include "kafka/record_codec.hpp"
#include "kafka/retry_queue.hpp"
#include "kafka/start_offsets.hpp"
#include "runtime/config.hpp"
#include "runtime/string_pool.hpp"

namespace sparse::kafka {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kOffsetsForTimesTimeoutMs = 10000;
// Looking up committed offsets (see AssignResolvingCommitted): each try's timeout, the pause
// between tries, and how many before leaving it to librdkafka.
constexpr int kCommittedTimeoutMs = 5000;
constexpr auto kCommittedRetryPause = std::chrono::milliseconds(500);
constexpr int kCommittedTries = 20;
// In group mode librdkafka must be polled even while the spout emits nothing (rebalances,
// max.poll.interval.ms): the timer polls when NextTuple has not for this long.
constexpr auto kGroupPollEvery = std::chrono::milliseconds(100);
// How long a fetch nudge (a watermark query, FetchNudge) may wait for the broker.
constexpr int kNudgeTimeoutMs = 1000;
// The consumer's queued.min.messages unless the user sets it. It bounds the records prefetched
// per spout task (~400 bytes each for small records, librdkafka's overhead included): with
// FetchNudge waking the fetcher, more buys no throughput, and 50,000 reads as fast as librdkafka's
// 100,000 with half the memory; 20,000 held back a one-partition topic (docs/kafka.md, Flow
// control; docs/benchmarks.md).
constexpr const char* kSpoutQueuedMinMessages = "50000";

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
        out_(out),
        io_(io),
        task_id_(task_id),
        task_index_(task_index),
        num_tasks_(num_tasks),
        rules_(RulesFor(options.guarantee)),
        encoder_(options),
        record_aborts_(options.retry.max_retries),
        timer_(io),
        reports_(out),
        table_(next_slot),
        schedule_(std::chrono::milliseconds(options.commit_interval_ms),
                  options.max_uncommitted_offsets),
        retries_(options.retry),
        amo_(std::chrono::milliseconds(options.retry.DelayMs(1))),
        starts_(options.start, options.start_timestamp_ms),
        backpressure_(std::chrono::milliseconds(options.backpressure_pause_ms)) {}

  ~Session() override {
    reports_.Guarded("closing the Kafka spout", [this] { Close(); });
  }

  std::optional<std::string> Open(const nlohmann::json& conf);
  void NextTuple();
  void Ack(const std::string& id);
  void Fail(const std::string& id);
  void SetActive(bool active) {
    active_ = active;
    if (active) was_active_ = true;
    UpdateAllPauses();
    if (!active) schedule_.Request();
    if (!active && epochs_) epochs_->CloseEpoch();
  }
  // Partitions pause only once backpressure lasted a while (BackpressurePause).
  void SetBackpressure(bool on) {
    if (backpressure_.Set(on, Clock::now())) UpdateAllPauses();
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
  using Partition = SpoutPartition;

  // librdkafka callbacks (served by polls on the loop thread).
  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf);
  static void OnCommit(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                       rd_kafka_topic_partition_list_t* offsets, void* opaque);
  static void OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                          rd_kafka_topic_partition_list_t* partitions, void* opaque);
  static void OnDeadLetterDelivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);
  void DeadLetterDelivered(const rd_kafka_message_t& msg);

  std::optional<std::string> CreateConsumer();
  std::optional<std::string> CreateDeadLetterProducer();
  void ScheduleTick();
  void Tick();
  void Report(const std::string& key, const std::string& message) { reports_.Report(key, message); }

  // Assignment.
  void RefreshPartitions();
  // Reports a partition whose start_timestamp_ms lookup failed (ApplyOffsetsForTimes).
  std::function<void(const rd_kafka_topic_partition_t&, rd_kafka_resp_err_t)>
  TimestampLookupFailed();
  void OnMetadata(const MetadataResult& result);
  void AddPartitions(const std::vector<TopicPartition>& tps);
  void AssignResolvingCommitted(PartitionListPtr list);
  void SeekToOwnPosition(Partition& p);
  void AssignWithOffsets(PartitionListPtr list);
  void RemovePartitions(const std::vector<TopicPartition>& tps);
  void Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t* parts);
  void Forget(Partition& p, const char* why);
  // The owner of a record's partition, if it is still ours.
  Partition* Owner(const rd_kafka_message_t& msg);

  // Pausing.
  void UpdatePause(Partition& p);
  void UpdateAllPauses();
  // Wakes librdkafka's fetcher when records stopped arriving below its threshold (FetchNudge).
  void NudgeFetcher(Clock::time_point now);

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
  void CommitAtMostOnceBatch();
  void AtMostOnceCommitted(bool ok, const std::string& error);
  // Exactly-once.
  void NextTupleExactlyOnce();
  std::optional<std::string> JoinEpochs(const nlohmann::json& conf);

  // Commits.
  void Commit();
  void Committed(rd_kafka_resp_err_t err, const rd_kafka_topic_partition_list_t* offsets);
  void CommitSync(const std::vector<Partition*>& parts);
  void FinalCommit();

  void PublishMetrics(Clock::time_point now);

  const SpoutOptions& o_;
  runtime::BuiltinCollector& out_;
  boost::asio::io_context& io_;
  int task_id_;
  int task_index_;
  int num_tasks_;
  const DeliveryRules rules_;  // what options.guarantee asks of the spout
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
  // exactly_once: epochs aborted by each record not committed yet (kept across Rewind).
  RecordAborts record_aborts_;
  bool rewinding_ = false;
  boost::asio::steady_timer timer_;
  base::LifetimeGate gate_;
  ClientReports reports_;
  bool open_ = false;
  bool closing_ = false;

  PartitionTable table_;
  CommitSchedule schedule_;  // at_least_once
  RetryQueue retries_;       // at_least_once
  AtMostOnceBatch amo_;      // at_most_once
  StartPositions starts_;
  std::set<std::string> referenced_topics_;  // leaders read with a handle (FetchMetadata)
  std::int64_t in_flight_ = 0;  // tuples emitted with a message id, not yet acked or failed
  bool active_ = false;
  bool was_active_ = false;   // activated at least once
  bool cooperative_ = false;  // the group's rebalance protocol, as last answered by librdkafka
  BackpressurePause backpressure_;
  FetchNudge nudge_{0};           // its threshold set with the consumer's
  std::int64_t received_ = 0;     // messages taken from librdkafka's queue
  std::size_t nudge_cursor_ = 0;  // which fetching partition the next nudge queries
  bool refresh_in_flight_ = false;
  Clock::time_point next_refresh_{};
  Clock::time_point last_consumer_poll_{};

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
  MetricsPeriod metrics_;
};

// ---------------------------------------------------------------------------------------------
// Open / close

std::optional<std::string> KafkaSpout::Session::Open(const nlohmann::json& conf) {
  bootstrap_ = EffectiveBootstrap(conf, o_.bootstrap_servers, o_.properties);
  if (bootstrap_.empty()) return MissingBootstrapError();
  reports_.set_bootstrap(bootstrap_);
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
  if (rules_.emit == DeliveryRules::Emit::kInEpochs) {
    if (auto err = JoinEpochs(conf)) return err;
  }
  reports_.Opened();
  open_ = true;
  const auto now = Clock::now();
  schedule_.Start(now);
  metrics_.Start(now);
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
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"bootstrap.servers", bootstrap_}, {"group.id", o_.group_id},
      {"enable.auto.commit", "false"},   {"enable.auto.offset.store", "false"},
      {"enable.partition.eof", "false"}, {"log.queue", "true"},
  };
  for (const auto& [k, v] : settings) {
    if (auto err = SetProperty(conf.get(), k, v)) return k + ": " + *err;
  }
  const auto& user = o_.properties;
  SetDefault(conf.get(), user, "auto.offset.reset", starts_.AutoOffsetReset());
  SetDefault(conf.get(), user, "client.id", "sparse-kafka-spout-" + std::to_string(task_id_));
  // librdkafka (2.0 as in Debian 12) stops fetching once its consumer queue holds
  // queued.min.messages records (counted over all partitions) and looks again only when its
  // broker thread next wakes, up to a second later; FetchNudge wakes it sooner, so the queue need
  // not hold a second's worth of records (why this value: kSpoutQueuedMinMessages).
  SetDefault(conf.get(), user, "queued.min.messages", kSpoutQueuedMinMessages);
  nudge_ = FetchNudge(IntProperty(conf.get(), "queued.min.messages").value_or(0));
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
  if (rules_.commits_tracked_offsets && !reports_.fatal()) FinalCommit();
  // In group mode this leaves the group; the revocation it triggers commits nothing new (all
  // done offsets were committed above).
  // librdkafka's handles must outlive every message taken from them: drop ours first.
  prefetched_.clear();
  table_.DropAllHeld();
  reaper_.reset();  // drains
  rd_kafka_consumer_close(consumer_.get());
  PublishMetrics(Clock::now());
  wakeup_.reset();
  queue_.reset();
  consumer_.reset();
  referenced_topics_.clear();  // a new consumer knows no topic
  dead_letter_.reset();
  table_.Clear();
  open_ = false;
}

void KafkaSpout::Session::FinalCommit() {
  schedule_.Request();
  // A lost reply must not block us.
  table_.ForEach([](Partition& p) { p.commit_in_flight = false; });
  Commit();
  const auto deadline = Clock::now() + kCloseTimeout;
  auto waiting = [this] {
    bool any = false;
    table_.ForEach([&](const Partition& p) { any = any || p.commit_in_flight; });
    return any;
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

// Each runs inside ClientReports::Guarded: librdkafka's C frames cannot carry an exception.

void KafkaSpout::Session::OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* self = static_cast<Session*>(opaque);
  self->reports_.Guarded("librdkafka's error callback",
                         [&] { self->reports_.ClientError(rk, err, reason); });
}

void KafkaSpout::Session::OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  if (auto* self = static_cast<Session*>(rd_kafka_opaque(rk))) {
    self->reports_.Guarded("librdkafka's log callback",
                           [&] { self->reports_.LibrdkafkaLog(level, fac, buf); });
  }
}

void KafkaSpout::Session::OnCommit(rd_kafka_t*, rd_kafka_resp_err_t err,
                                   rd_kafka_topic_partition_list_t* offsets, void* opaque) {
  auto* self = static_cast<Session*>(opaque);
  self->reports_.Guarded("the offset commit callback", [&] { self->Committed(err, offsets); });
}

void KafkaSpout::Session::OnRebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                      rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  auto* self = static_cast<Session*>(opaque);
  self->reports_.Guarded("the group rebalance callback",
                         [&] { self->Rebalance(rk, err, partitions); });
}

void KafkaSpout::Session::OnDeadLetterDelivery(rd_kafka_t*, const rd_kafka_message_t* msg,
                                               void* opaque) {
  auto* self = static_cast<Session*>(opaque);
  self->reports_.Guarded("the dead-letter delivery callback",
                         [&] { self->DeadLetterDelivered(*msg); });
}

void KafkaSpout::Session::DeadLetterDelivered(const rd_kafka_message_t& msg) {
  std::unique_ptr<DeadLetterRef> ref(static_cast<DeadLetterRef*>(msg._private));
  if (!ref) return;
  Partition* p = table_.BySlot(ref->slot);
  if (!p) return;  // the partition was taken away: its new owner handles the record
  if (!msg.err) {
    ++dead_lettered_;
    Done(*p, ref->offset);
    return;
  }
  ++dead_letter_errors_;
  Report("dead_letter", "cannot write " + p->name + "@" + std::to_string(ref->offset) +
                            " to dead-letter topic `" + o_.dead_letter_topic +
                            "`: " + rd_kafka_err2str(msg.err) + "; retrying");
  if (PartitionOffsets::Record* rec = p->offsets.Find(ref->offset)) {
    retries_.DeadLetterFailed(Clock::now(), ref->slot, ref->offset, rec->failures);
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
  if (!gate_.open() || reports_.fatal()) return;
  if (dead_letter_) rd_kafka_poll(dead_letter_.get(), 0);
  const auto now = Clock::now();
  if (o_.assignment == Assignment::kGroup && now - last_consumer_poll_ >= kGroupPollEvery) {
    // Serve rebalances while NextTuple is not polling; a record that comes along is held.
    if (MessagePtr m = PollOne()) Hold(std::move(m));
  }
  if (backpressure_.Due(now)) UpdateAllPauses();
  NudgeFetcher(now);
  if (o_.assignment == Assignment::kManual && !refresh_in_flight_ && now >= next_refresh_) {
    RefreshPartitions();
  }
  if (rules_.commits_tracked_offsets && schedule_.Due(now)) Commit();
  if (metrics_.Due(now)) PublishMetrics(now);
}

// ---------------------------------------------------------------------------------------------
// Assignment

KafkaSpout::Session::Partition* KafkaSpout::Session::Owner(const rd_kafka_message_t& msg) {
  return table_.OwnedCached(msg.rkt, msg.partition, [](const void* rkt) {
    return std::string(rd_kafka_topic_name(static_cast<const rd_kafka_topic_t*>(rkt)));
  });
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
  reports_.Connected();
  TopicsRead read = ReadTopics(result, o_.topic_pattern, bootstrap_, o_.partition_refresh_ms);
  for (const auto& r : read.reports) Report(r.key, r.message);
  if (read.keep) return;
  std::vector<TopicPartition> owned;
  for (const Partition* p : table_.Sorted()) owned.emplace_back(p->topic, p->partition);
  const ShareChange change =
      ChangeTo(ManualShare(std::move(read.partitions), task_index_, num_tasks_), owned);
  if (!change.removed.empty()) RemovePartitions(change.removed);
  if (!change.added.empty()) AddPartitions(change.added);
}

void KafkaSpout::Session::AddPartitions(const std::vector<TopicPartition>& tps) {
  auto list = NewPartitionList(static_cast<int>(tps.size()));
  bool by_time = false;
  for (const auto& tp : tps) {
    table_.Add(tp.first, tp.second);
    const std::int64_t offset = starts_.For(tp.first, tp.second);
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
  const std::int64_t fallback = starts_.WithoutCommit();
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
      rd_kafka_topic_partition_list_t* looked_up = shared->get();
      for (int i = 0; i < looked_up->cnt; ++i) {
        auto& e = looked_up->elems[i];
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
      AssignWithOffsets(PartitionListPtr(rd_kafka_topic_partition_list_copy(looked_up)));
    };
  });
}

void KafkaSpout::Session::AssignWithOffsets(PartitionListPtr list) {
  // Partitions removed while their offsets were looked up are skipped.
  auto keep = NewPartitionList(list->cnt);
  for (int i = 0; i < list->cnt; ++i) {
    const auto& e = list->elems[i];
    Partition* p = table_.Owned(e.topic, e.partition);
    if (!p || p->assigned) continue;
    rd_kafka_topic_partition_list_add(keep.get(), e.topic, e.partition)->offset = e.offset;
  }
  if (keep->cnt == 0) return;
  ErrorPtr error(rd_kafka_incremental_assign(consumer_.get(), keep.get()));
  if (error) {
    Report("assign",
           std::string("cannot assign partitions: ") + rd_kafka_error_string(error.get()));
    for (int i = 0; i < keep->cnt; ++i)
      table_.Disown(keep->elems[i].topic, keep->elems[i].partition);
    return;
  }
  std::string names;
  for (int i = 0; i < keep->cnt; ++i) {
    Partition* p = table_.Owned(keep->elems[i].topic, keep->elems[i].partition);
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
  table_.DropHeld(p);
  std::erase_if(prefetched_, [&](const MessagePtr& m) {
    return m->rkt && m->partition == p.partition && p.topic == rd_kafka_topic_name(m->rkt);
  });
  if (p.offsets.Pending() > 0 && !rewinding_) {
    out_.Log(2, p.name + " " + why + " with " + std::to_string(p.offsets.Pending()) +
                    " record(s) in flight: they will be read again by its next owner");
  }
  out_.SetGauge("kafka.lag." + p.name, 0);
  out_.SetGauge("kafka.uncommitted." + p.name, 0);
  table_.Remove(p);  // late acks for its tuples are ignored (counted as stale)
}

void KafkaSpout::Session::RemovePartitions(const std::vector<TopicPartition>& tps) {
  auto list = NewPartitionList(static_cast<int>(tps.size()));
  std::vector<Partition*> parts;
  for (const auto& tp : tps) {
    Partition* p = table_.Owned(tp.first, tp.second);
    if (!p) continue;
    parts.push_back(p);
    if (p->assigned) rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second);
  }
  if (rules_.commits_tracked_offsets) CommitSync(parts);
  for (Partition* p : parts) Forget(*p, "was taken away");
  if (list->cnt > 0) ErrorPtr(rd_kafka_incremental_unassign(consumer_.get(), list.get()));
}

void KafkaSpout::Session::Rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                    rd_kafka_topic_partition_list_t* parts) {
  // librdkafka answers no protocol (NULL) when it cannot ask the group thread, as while the
  // consumer closes: the protocol the group agreed on at the last rebalance still holds then.
  if (const char* protocol = rd_kafka_rebalance_protocol(rk)) {
    cooperative_ = std::string_view(protocol) == "COOPERATIVE";
  }
  const bool cooperative = cooperative_;
  reports_.Connected();  // a group coordinator answered
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    bool by_time = false;
    std::string names;
    for (int i = 0; i < parts->cnt; ++i) {
      auto& e = parts->elems[i];
      if (Partition* old = table_.Owned(e.topic, e.partition)) Forget(*old, "was re-assigned");
      Partition& p = table_.Add(e.topic, e.partition);
      p.assigned = true;
      e.offset = starts_.For(e.topic, e.partition);
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
      if (Partition* p = table_.Owned(parts->elems[i].topic, parts->elems[i].partition)) {
        UpdatePause(*p);
      }
    }
    out_.Log(2, "group assigned " + (names.empty() ? std::string("no partitions") : names));
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS) {
    std::vector<Partition*> revoked;
    for (int i = 0; i < parts->cnt; ++i) {
      if (Partition* p = table_.Owned(parts->elems[i].topic, parts->elems[i].partition)) {
        revoked.push_back(p);
      }
    }
    // Commit what was processed, never more; a lost assignment cannot commit any more.
    if (rules_.commits_tracked_offsets && !rd_kafka_assignment_lost(rk)) CommitSync(revoked);
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
  for (Partition* p : table_.Sorted()) Forget(*p, "was dropped after a failed rebalance");
}

// ---------------------------------------------------------------------------------------------
// Pausing

void KafkaSpout::Session::UpdatePause(Partition& p) {
  if (!p.assigned || !consumer_) return;
  // Not paused for inactivity before the first activation: the runtime activates its spouts once
  // every task is ready, a moment after the assignment, and a pause then lands while librdkafka
  // looks up a logical start offset (earliest, latest): it drops the answer as outdated and asks
  // again only after its 500 ms retry timer, which delayed the first record by half a second.
  const bool wants_fetching = active_ || !was_active_;
  const bool want = p.WantsPause(wants_fetching, backpressure_.paused());
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
  table_.DropHeld(p);
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
  table_.ForEach([this](Partition& p) { UpdatePause(p); });
}

void KafkaSpout::Session::NudgeFetcher(Clock::time_point now) {
  const auto queued = static_cast<std::int64_t>(rd_kafka_queue_length(queue_.get()));
  if (!nudge_.Due(now, received_ + queued, queued)) return;
  // The query goes to the partition's leader, so it wakes that broker's thread: each nudge asks
  // for the next partition being fetched, so that every leader is woken in turn.
  // Two passes instead of a list: while nothing is fetching, this runs on every timer tick.
  const auto fetching = [](const Partition& p) { return p.assigned && !p.paused; };
  std::size_t count = 0;
  table_.ForEach([&](const Partition& p) {
    if (fetching(p)) ++count;
  });
  if (count == 0) return;
  std::size_t skip = nudge_cursor_++ % count;
  const Partition* chosen = nullptr;
  table_.ForEach([&](const Partition& p) {
    if (chosen || !fetching(p)) return;
    if (skip-- == 0) chosen = &p;
  });
  const Partition& p = *chosen;
  rd_kafka_t* rk = consumer_.get();
  auto job = [this, rk, topic = p.topic, partition = p.partition] {
    std::int64_t low = 0, high = 0;
    rd_kafka_query_watermark_offsets(rk, topic.c_str(), partition, &low, &high, kNudgeTimeoutMs);
    return [this] { nudge_.Done(); };
  };
  if (worker_ && worker_->Submit(std::move(job))) nudge_.Sent(now);
}

// ---------------------------------------------------------------------------------------------
// The data path

bool KafkaSpout::Session::Prefetch() {
  batch_.resize(static_cast<std::size_t>(o_.max_batch));
  const ssize_t n = rd_kafka_consume_batch_queue(queue_.get(), 0, batch_.data(), batch_.size());
  if (n > 0) received_ += n;
  for (ssize_t i = 0; i < n; ++i) prefetched_.emplace_back(batch_[static_cast<std::size_t>(i)]);
  return n > 0;
}

MessagePtr KafkaSpout::Session::PollOne() {
  last_consumer_poll_ = Clock::now();
  MessagePtr m(rd_kafka_consumer_poll(consumer_.get(), 0));
  if (m) ++received_;
  return m;
}

void KafkaSpout::Session::Hold(MessagePtr msg) {
  if (msg->err) {
    HandleMessageError(*msg);
    return;
  }
  Partition* p = Owner(*msg);
  if (!p) return;  // no longer ours; not committed, so its next owner reads it
  table_.Hold(*p, std::move(msg));
  UpdatePause(*p);
}

// The next record to emit: held records of partitions that may emit first (they are older than
// anything librdkafka still has for that partition), then a fresh poll.
MessagePtr KafkaSpout::Session::TakeMessage(Partition*& from) {
  if (MessagePtr m = table_.TakeHeld(from)) return m;
  for (;;) {
    if (prefetched_.empty() && !Prefetch()) return nullptr;
    MessagePtr m = std::move(prefetched_.front());
    prefetched_.pop_front();
    if (m->err) {
      HandleMessageError(*m);
      continue;
    }
    Partition* p = Owner(*m);
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
  if (!open_ || reports_.fatal()) return;
  switch (rules_.emit) {
    case DeliveryRules::Emit::kCommitFirst:
      NextTupleAtMostOnce();
      return;
    case DeliveryRules::Emit::kInEpochs:
      NextTupleExactlyOnce();
      return;
    case DeliveryRules::Emit::kTracked:
      break;
  }
  int budget = static_cast<int>(o_.max_batch);
  const auto now = Clock::now();
  last_consumer_poll_ = now;
  RunDueRetries(now, budget);
  while (budget > 0 && CanEmit()) {
    Partition* p = nullptr;
    MessagePtr m = TakeMessage(p);
    if (!m) {
      reaper_->Flush();  // ran dry: hand over the partial batch (see MessageReaper::Flush)
      break;
    }
    if (Take(std::move(m), *p)) --budget;
  }
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
    Partition& fresh = table_.Add(topic, partition);
    fresh.assigned = true;
    fresh.paused = paused;
    return Take(std::move(msg), fresh);
  }
  if (o_.give_up == GiveUp::kDeadLetter) {
    rec->raw = std::make_unique<PartitionOffsets::Raw>();
    if (view.key) rec->raw->key = std::string(*view.key);
    if (view.value) rec->raw->value = std::string(*view.value);
  }
  if (schedule_.Read(p)) {
    UpdatePause(p);
    // exactly_once commits only with the epoch: a capped partition would idle until the epoch
    // ages out, so the cap closes the epoch now (it bounds the epoch's size as it bounds the
    // replay of at-least-once).
    if (epochs_) epochs_->CloseEpoch();
  }
  if (epochs_) {
    if (const auto aborts = record_aborts_.GiveUpOnReplay(p.topic, p.partition, msg->offset)) {
      GiveUp(p, *rec, "failed " + std::to_string(*aborts) + " time(s), each aborting its epoch");
      return false;
    }
  }
  std::string values = runtime::StringPool::Take(64 + msg->len + msg->key_len);
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
  while (budget > 0 && CanEmit()) {
    const auto r = retries_.PopDue(now);
    if (!r) break;
    Partition* p = table_.BySlot(r->slot);
    if (!p) continue;
    PartitionOffsets::Record* rec = p->offsets.Find(r->offset);
    if (!rec) continue;
    switch (r->kind) {
      case RetryQueue::Kind::kDeadLetter:
        SendDeadLetter(*p, *rec, "retrying the dead-letter write");
        break;
      case RetryQueue::Kind::kTuple:
        ++retries_done_;
        EmitRecord(*p, *rec);
        --budget;
        break;
    }
  }
}

void KafkaSpout::Session::Ack(const std::string& id) {
  std::int64_t slot = 0, offset = 0;
  if (!ParseMessageId(id, slot, offset)) return;
  --in_flight_;
  Partition* p = table_.BySlot(slot);
  if (!p) {
    ++stale_acks_;
    return;
  }
  ++acked_;
  Done(*p, offset);
}

void KafkaSpout::Session::Done(Partition& p, std::int64_t offset) {
  schedule_.Done(p, offset);
  if (epochs_) epochs_->Progress();
}

void KafkaSpout::Session::Fail(const std::string& id) {
  std::int64_t slot = 0, offset = 0;
  if (!ParseMessageId(id, slot, offset)) return;
  --in_flight_;
  ++failed_;
  Partition* p = table_.BySlot(slot);
  if (!p) {
    ++stale_acks_;
    return;
  }
  PartitionOffsets::Record* rec = p->offsets.Find(offset);
  if (!rec) return;
  if (epochs_) {
    const int n = record_aborts_.Failed(p->topic, p->partition, offset);
    epochs_->Fail("the tuple of " + p->name + "@" + std::to_string(offset) +
                  " failed or timed out" + (n > 1 ? " (" + std::to_string(n) + " times)" : ""));
    return;
  }
  ++rec->failures;
  if (retries_.TupleFailed(Clock::now(), slot, offset, rec->failures)) return;
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
  auto ref = std::make_unique<DeadLetterRef>(DeadLetterRef{p.slot, rec.offset, reason});
  const std::string offset = std::to_string(rec.offset);
  const auto err = ProduceDeadLetter(dead_letter_.get(), o_.dead_letter_topic, p.topic, p.partition,
                                     rec.raw.get(), ref);
  if (err) {
    ++dead_letter_errors_;
    Report("dead_letter", "cannot queue " + p.name + "@" + offset + " for dead-letter topic `" +
                              o_.dead_letter_topic + "`: " + rd_kafka_err2str(err) + "; retrying");
    retries_.DeadLetterFailed(Clock::now(), p.slot, rec.offset, rec.failures);
    return;
  }
  out_.Log(3, "dead-lettering " + p.name + "@" + offset + " to `" + o_.dead_letter_topic +
                  "`: " + reason);
}

// ---------------------------------------------------------------------------------------------
// At-most-once: commit a batch, then emit it (unanchored: it is never replayed).

void KafkaSpout::Session::NextTupleAtMostOnce() {
  switch (amo_.Next(Clock::now())) {
    case AtMostOnceBatch::Step::kEmit:
      for (auto& values : amo_.TakeCommitted()) {
        ++emitted_;
        out_.Emit(o_.stream, std::move(values), "", {}, std::nullopt);
      }
      return;
    case AtMostOnceBatch::Step::kWait:
      return;
    case AtMostOnceBatch::Step::kFill:
      while (static_cast<std::int64_t>(amo_.size()) < o_.max_batch) {
        Partition* p = nullptr;
        MessagePtr m = TakeMessage(p);
        if (!m) {
          reaper_->Flush();  // ran dry (see MessageReaper::Flush)
          break;
        }
        ++records_;
        const RecordView view = ViewOf(*m, p->topic);
        std::string values;
        if (auto err = encoder_.Encode(view, values)) {
          ++decode_errors_;
          ++skipped_;
          Report("decode", "skipped " + p->name + "@" + std::to_string(m->offset) +
                               ": cannot decode: " + *err);
          amo_.Add({p->topic, p->partition}, m->offset, std::nullopt);
        } else {
          amo_.Add({p->topic, p->partition}, m->offset, std::move(values));
        }
        reaper_->Release(m.release());
      }
      if (amo_.offsets().empty()) return;
      break;
    case AtMostOnceBatch::Step::kCommit:
      break;
  }
  CommitAtMostOnceBatch();
}

void KafkaSpout::Session::CommitAtMostOnceBatch() {
  auto list = NewPartitionList(static_cast<int>(amo_.offsets().size()));
  for (const auto& [tp, offset] : amo_.offsets()) {
    rd_kafka_topic_partition_list_add(list.get(), tp.first.c_str(), tp.second)->offset = offset;
  }
  amo_.CommitStarted();
  if (const auto err = rd_kafka_commit(consumer_.get(), list.get(), 1)) {
    AtMostOnceCommitted(false, rd_kafka_err2str(err));
  }
}

void KafkaSpout::Session::AtMostOnceCommitted(bool ok, const std::string& error) {
  amo_.Committed(ok, Clock::now());
  if (ok) {
    ++commits_;
    out_.Wakeup();
    return;
  }
  // The batch stays: it is emitted once its offsets are committed, never before.
  ++commit_errors_;
  Report("commit", "offset commit before emit failed: " + error + "; retrying");
}

// ---------------------------------------------------------------------------------------------
// Commits

void KafkaSpout::Session::Commit() {
  schedule_.Began(Clock::now());
  auto list = NewPartitionList(static_cast<int>(table_.size()));
  table_.ForEach([&](Partition& p) {
    if (const auto offset = schedule_.Take(p)) {
      rd_kafka_topic_partition_list_add(list.get(), p.topic.c_str(), p.partition)->offset = *offset;
    }
  });
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
      if (Partition* p = table_.Owned(e.topic, e.partition)) p->offsets.Committed(e.offset);
    }
  }
}

void KafkaSpout::Session::Committed(rd_kafka_resp_err_t err,
                                    const rd_kafka_topic_partition_list_t* offsets) {
  if (rules_.emit == DeliveryRules::Emit::kCommitFirst) {
    if (err == RD_KAFKA_RESP_ERR__NO_OFFSET) err = RD_KAFKA_RESP_ERR_NO_ERROR;
    bool ok = !err;
    std::string why = rd_kafka_err2str(err);
    for (int i = 0; offsets && i < offsets->cnt; ++i) {
      if (offsets->elems[i].err) {
        ok = false;
        why = rd_kafka_err2str(offsets->elems[i].err);
      }
    }
    if (amo_.committing()) AtMostOnceCommitted(ok, why);
    return;
  }
  if (err == RD_KAFKA_RESP_ERR__NO_OFFSET) return;  // nothing was to be committed
  for (int i = 0; offsets && i < offsets->cnt; ++i) {
    const auto& e = offsets->elems[i];
    Partition* p = table_.Owned(e.topic, e.partition);
    if (!p) continue;  // a commit for a partition we no longer own
    switch (schedule_.Settled(*p, e.offset, !err && !e.err)) {
      case CommitSchedule::Result::kIgnored:
        break;
      case CommitSchedule::Result::kFailed:
        ++commit_errors_;
        Report("commit", "offset commit for " + p->name +
                             " failed: " + rd_kafka_err2str(err ? err : e.err) + "; retrying");
        break;
      case CommitSchedule::Result::kCommitted:
        ++commits_;
        break;
      case CommitSchedule::Result::kUncapped:
        ++commits_;
        UpdatePause(*p);
        break;
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
    if (!m) {
      reaper_->Flush();  // ran dry (see MessageReaper::Flush)
      break;
    }
    if (Take(std::move(m), *p)) {
      --budget;
      epochs_->Emitted();
    }
  }
}

std::int64_t KafkaSpout::Session::Outstanding() const {
  return table_.Pending();
}

void KafkaSpout::Session::AppendOffsets(rd_kafka_topic_partition_list_t* list) const {
  table_.ForEach([list](const Partition& p) {
    const auto point = p.offsets.CommitPoint();
    if (!point || (p.offsets.committed() && *p.offsets.committed() >= *point)) return;
    rd_kafka_topic_partition_list_add(list, p.topic.c_str(), p.partition)->offset = *point;
  });
}

void KafkaSpout::Session::EpochCommitted(const rd_kafka_topic_partition_list_t* offsets) {
  for (int i = 0; offsets && i < offsets->cnt; ++i) {
    const auto& e = offsets->elems[i];
    Partition* p = table_.Owned(e.topic, e.partition);
    if (!p) continue;
    ++commits_;
    const bool uncapped = schedule_.CommittedElsewhere(*p, e.offset);
    record_aborts_.Committed(p->topic, p->partition, e.offset);
    if (uncapped) UpdatePause(*p);
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
  table_.ForEach([&](const Partition& p) {
    if (!p.assigned) return;
    const auto to = p.offsets.committed() ? p.offsets.committed() : p.first_read;
    if (!to) return;  // nothing read: its position is right
    back.push_back({{p.topic, p.partition}, *to, p.paused, p.capped});
  });
  if (back.empty()) return;
  rewinding_ = true;
  auto list = NewPartitionList(static_cast<int>(back.size()));
  for (const auto& b : back) {
    if (Partition* p = table_.Owned(b.tp.first, b.tp.second)) Forget(*p, "was rewound");
    Partition& fresh = table_.Add(b.tp.first, b.tp.second);
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
    reports_.Fatal(std::string("cannot go back to the aborted epoch's first offsets: ") +
                   rd_kafka_error_string(error.get()));
    return;
  }
  for (int i = 0; i < list->cnt; ++i) {
    // A seek with no timeout runs in librdkafka's thread and reports IN_PROGRESS: the fetch
    // version barrier it sets now already keeps older fetched records from reaching us.
    if (list->elems[i].err && list->elems[i].err != RD_KAFKA_RESP_ERR__IN_PROGRESS) {
      reports_.Fatal("cannot go back to the aborted epoch's first offset of " +
                     PartitionName(list->elems[i].topic, list->elems[i].partition) + ": " +
                     rd_kafka_err2str(list->elems[i].err));
      return;
    }
  }
  for (const auto& b : back) {
    if (Partition* p = table_.Owned(b.tp.first, b.tp.second)) UpdatePause(*p);
  }
}

bool KafkaSpout::Session::Live(std::string_view message_id) {
  std::int64_t slot = 0, offset = 0;
  if (!ParseMessageId(message_id, slot, offset)) return false;
  Partition* p = table_.BySlot(slot);
  return p && p->offsets.Find(offset) != nullptr;
}

// ---------------------------------------------------------------------------------------------
// Metrics

void KafkaSpout::Session::PublishMetrics(Clock::time_point now) {
  if (const auto rate = metrics_.End(now, records_)) out_.SetGauge(kRecordsPerSecGauge, *rate);
  std::size_t paused = 0;
  table_.ForEach([&](const Partition& p) {
    paused += p.paused ? 1 : 0;
    std::int64_t low = 0, high = 0;
    if (consumer_ &&
        rd_kafka_get_watermark_offsets(consumer_.get(), p.topic.c_str(), p.partition, &low,
                                       &high) == 0 &&
        high >= 0) {
      const auto done = p.offsets.CommitPoint();
      const std::int64_t from = done ? *done : low;
      out_.SetGauge("kafka.lag." + p.name,
                    static_cast<double>(std::max<std::int64_t>(0, high - from)));
    }
    out_.SetGauge("kafka.uncommitted." + p.name, static_cast<double>(p.offsets.Uncommitted()));
  });
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
  gauge("kafka.client_errors", static_cast<double>(reports_.client_errors()));
  gauge("kafka.partitions", static_cast<double>(table_.size()));
  gauge("kafka.partitions_paused", static_cast<double>(paused));
  gauge("kafka.fetch_nudges", static_cast<double>(nudge_.sent()));
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
