#include "kafka/keyed_aggregate.hpp"

#include <algorithm>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <map>
#include <thread>
#include <unordered_map>

#include "base/lifetime_gate.hpp"
#include "kafka/aggregate_op.hpp"
#include "kafka/blocking_worker.hpp"
#include "kafka/exactly_once.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/record_codec.hpp"
#include "kafka/report_throttle.hpp"
#include "runtime/config.hpp"

namespace sparse::kafka {

namespace {
using Clock = std::chrono::steady_clock;
using Totals = std::unordered_map<std::string, std::string>;  // key JSON -> total JSON
constexpr int kRestoreTimeoutMs = 60'000;
constexpr auto kRestoreRetry = std::chrono::seconds(2);

struct RestoreResult {
  std::optional<std::string> error;
  Totals totals;
  std::uint64_t records = 0;
  bool missing = false;  // the topic does not exist yet
};

// Reads the whole state topic with a read_committed consumer of its own (no group, no commit).
// Runs on a helper thread.
RestoreResult ReadStateTopic(const std::string& bootstrap, const std::string& topic,
                             const nlohmann::json& properties, const std::atomic<bool>& cancelled) {
  RestoreResult out;
  ConfPtr conf(rd_kafka_conf_new());
  if (auto err = ApplyProperties(conf.get(), properties)) {
    out.error = "options." + *err;
    return out;
  }
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap},
                                                        {"group.id", "sparse-state-restore"},
                                                        {"enable.auto.commit", "false"},
                                                        {"enable.partition.eof", "true"},
                                                        {"isolation.level", "read_committed"},
                                                        {"auto.offset.reset", "earliest"}}) {
    if (auto err = SetProperty(conf.get(), k, v)) {
      out.error = k + ": " + *err;
      return out;
    }
  }
  std::string error;
  ClientPtr rk = NewClient(RD_KAFKA_CONSUMER, std::move(conf), error);
  if (!rk) {
    out.error = "cannot create the state consumer: " + error;
    return out;
  }
  const rd_kafka_metadata_t* raw = nullptr;
  TopicPtr handle(rd_kafka_topic_new(rk.get(), topic.c_str(), nullptr));
  auto err = rd_kafka_metadata(rk.get(), 0, handle.get(), &raw, kRestoreTimeoutMs);
  MetadataPtr md(raw);
  if (err) {
    out.error =
        std::string("cannot read the metadata of `") + topic + "`: " + rd_kafka_err2str(err);
    return out;
  }
  if (md->topic_cnt < 1 || md->topics[0].err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART ||
      md->topics[0].partition_cnt == 0) {
    out.missing = true;
    return out;
  }
  if (md->topics[0].err) {
    out.error = "state topic `" + topic + "`: " + rd_kafka_err2str(md->topics[0].err);
    return out;
  }
  auto list = NewPartitionList(md->topics[0].partition_cnt);
  int waiting = 0;
  for (int i = 0; i < md->topics[0].partition_cnt; ++i) {
    const std::int32_t part = md->topics[0].partitions[i].id;
    std::int64_t low = 0, high = 0;
    err = rd_kafka_query_watermark_offsets(rk.get(), topic.c_str(), part, &low, &high,
                                           kRestoreTimeoutMs);
    if (err) {
      out.error = "cannot read the offsets of " + topic + "[" + std::to_string(part) +
                  "]: " + rd_kafka_err2str(err);
      return out;
    }
    if (high <= low) continue;
    rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), part)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
    ++waiting;
  }
  if (waiting == 0) return out;
  if (auto e = rd_kafka_assign(rk.get(), list.get())) {
    out.error = std::string("cannot assign the state topic: ") + rd_kafka_err2str(e);
    return out;
  }
  const auto deadline = Clock::now() + std::chrono::milliseconds(kRestoreTimeoutMs);
  while (waiting > 0 && !cancelled) {
    if (Clock::now() > deadline) {
      out.error = "reading state topic `" + topic + "` took longer than 60 s";
      break;
    }
    MessagePtr m(rd_kafka_consumer_poll(rk.get(), 100));
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      --waiting;
      continue;
    }
    if (m->err) {
      out.error = std::string("reading state topic `") + topic + "`: " + rd_kafka_err2str(m->err);
      break;
    }
    ++out.records;
    if (!m->payload) continue;
    nlohmann::json v =
        nlohmann::json::parse(static_cast<const char*>(m->payload),
                              static_cast<const char*>(m->payload) + m->len, nullptr, false);
    if (v.is_discarded() || !v.is_object() || !v.contains("key") || !v.contains("value")) {
      out.error = "state topic `" + topic + "` offset " + std::to_string(m->offset) +
                  " is not a keyed_aggregate record ({\"key\": ..., \"value\": ...})";
      break;
    }
    out.totals[v["key"].dump()] = v["value"].dump();
  }
  rd_kafka_consumer_close(rk.get());
  return out;
}
}  // namespace

class KeyedAggregate::Session final : public EpochParticipant {
 public:
  Session(const AggregateOptions& o, runtime::BuiltinCollector& out, boost::asio::io_context& io)
      : o_(o), out_(out), io_(io), timer_(io) {}
  // Without the final gauges: publishing may allocate, which a destructor must not risk. The
  // runtime calls Close first, so this only stops what an unclosed session still runs.
  ~Session() override { Stop(); }

  std::optional<std::string> Open(const nlohmann::json& conf) {
    bootstrap_ = EffectiveBootstrap(conf, o_.bootstrap_servers, o_.properties);
    if (!o_.state_topic.empty() && bootstrap_.empty()) return MissingBootstrapError();
    worker_ = std::make_unique<BlockingWorker>(io_);
    worker_->Start();
    epochs_ =
        EpochCoordinator::Acquire(io_, conf.value(runtime::keys::kTopologyName, std::string()));
    epochs_->AddParticipant(this);
    open_ = true;
    return std::nullopt;
  }

  void Close() {
    if (!open_) return;
    Stop();
    PublishMetrics();
  }

  void Execute(const runtime::BuiltinTuple& t);

  // EpochParticipant.
  void Restore(std::function<void(std::optional<std::string>)> ready) override;
  std::optional<std::string> BeforeCommit() override;
  void EpochCommitted() override {
    for (auto& [k, v] : pending_) committed_[k] = std::move(v);
    pending_.clear();
  }
  void EpochAborted() override { pending_.clear(); }

 private:
  void Stop() noexcept {
    if (!open_) return;
    open_ = false;
    gate_.Close();
    if (worker_) worker_->Stop();
    if (epochs_) {
      epochs_->RemoveParticipant(this);
      epochs_.reset();
    }
  }
  void Reject(const runtime::BuiltinTuple& t, const std::string& key, const std::string& why) {
    ++rejected_;
    if (auto text = throttle_.Admit(key, "tuple from " + std::string(t.component) + ":" +
                                             std::string(t.stream) + " not aggregated: " + why +
                                             "; tuple failed")) {
      out_.ReportError(*text);
    }
    out_.Fail(t.id);
  }
  void PublishMetrics() {
    out_.SetGauge("aggregate.keys", static_cast<double>(committed_.size() + pending_.size()));
    out_.SetGauge("aggregate.rejected", static_cast<double>(rejected_));
    out_.SetGauge("aggregate.stale_inputs", static_cast<double>(stale_));
    out_.SetGauge("aggregate.restored_keys", static_cast<double>(restored_keys_));
  }

  const AggregateOptions& o_;
  runtime::BuiltinCollector& out_;
  boost::asio::io_context& io_;
  boost::asio::steady_timer timer_;
  std::string bootstrap_;
  std::unique_ptr<BlockingWorker> worker_;
  std::shared_ptr<EpochCoordinator> epochs_;
  base::LifetimeGate gate_;
  ReportThrottle throttle_;
  bool open_ = false;
  bool warned_state_ = false;
  Totals committed_;
  Totals pending_;  // exactly_once: the open epoch's changes
  std::uint64_t rejected_ = 0;
  std::uint64_t stale_ = 0;
  std::uint64_t restored_keys_ = 0;
  Clock::time_point next_metrics_{};
};

void KeyedAggregate::Session::Restore(std::function<void(std::optional<std::string>)> ready) {
  if (o_.state_topic.empty()) {
    ready(std::nullopt);
    return;
  }
  auto alive = gate_.ticket();
  const std::atomic<bool>* cancelled = &worker_->cancelled();
  worker_->Submit([this, alive, cancelled, ready, bootstrap = bootstrap_, topic = o_.state_topic,
                   props = o_.properties]() -> BlockingWorker::Continuation {
    auto result =
        std::make_shared<RestoreResult>(ReadStateTopic(bootstrap, topic, props, *cancelled));
    return [this, alive, ready, result] {
      if (!alive) return;
      if (result->error) {
        // Totals started from nothing would be wrong for good: no epoch opens until the state
        // is back.
        out_.ReportError("cannot restore the totals from state topic `" + o_.state_topic +
                         "`: " + *result->error + "; retrying (nothing is processed meanwhile)");
        timer_.expires_after(kRestoreRetry);
        timer_.async_wait([this, alive, ready](const boost::system::error_code& ec) {
          if (!ec && alive) Restore(ready);
        });
        return;
      }
      committed_ = std::move(result->totals);
      restored_keys_ = committed_.size();
      out_.Log(2,
               result->missing
                   ? "state topic `" + o_.state_topic + "` does not exist yet: totals start empty"
                   : "restored " + std::to_string(committed_.size()) + " totals from " +
                         std::to_string(result->records) + " records of `" + o_.state_topic + "`");
      PublishMetrics();
      ready(std::nullopt);
    };
  });
}

std::optional<std::string> KeyedAggregate::Session::BeforeCommit() {
  if (o_.state_topic.empty()) return std::nullopt;
  for (const auto& [key, total] : pending_) {
    bool ok = true;
    auto key_bytes = ValueBytes(key, ok);
    std::string value = "{\"key\":" + key + ",\"value\":" + total + "}";
    const auto err = epochs_->Produce(o_.state_topic, key_bytes, value, [](rd_kafka_resp_err_t) {
      // A failed write fails the transaction's commit, which aborts the epoch.
    });
    if (err) {
      return "cannot write the total of " + key + " to `" + o_.state_topic +
             "`: " + rd_kafka_err2str(err);
    }
  }
  return std::nullopt;
}

void KeyedAggregate::Session::Execute(const runtime::BuiltinTuple& t) {
  if (t.tick) {
    out_.Ack(t.id);
    return;
  }
  if (!open_ || !t.tuple || !t.fields) {
    out_.Fail(t.id);
    return;
  }
  const auto index = [&](const std::string& name) {
    auto f = std::find(t.fields->begin(), t.fields->end(), name);
    return f == t.fields->end() ? -1 : static_cast<int>(f - t.fields->begin());
  };
  const int ki = index(o_.key_field);
  const int vi = o_.value_field.empty() ? -1 : index(o_.value_field);
  if (ki < 0 || (!o_.value_field.empty() && vi < 0)) {
    const std::string& missing = ki < 0 ? o_.key_field : o_.value_field;
    Reject(t, "missing:" + missing,
           "`" + missing + "` is not a field of " + std::string(t.component) + ":" +
               std::string(t.stream));
    return;
  }
  if (static_cast<std::size_t>(std::max(ki, vi)) >= t.tuple->size()) {
    Reject(t, "short", "the tuple has fewer values than its fields");
    return;
  }
  const bool exactly = epochs_ && epochs_->active();
  if (exactly && epochs_->Classify(t, out_) == EpochCoordinator::Input::kStale) {
    ++stale_;
    out_.Ack(t.id);  // its epoch aborted: the replay counts it
    return;
  }
  if (!exactly && !o_.state_topic.empty() && !warned_state_) {
    warned_state_ = true;
    out_.ReportError("options.state_topic `" + o_.state_topic +
                     "` is kept only in an exactly-once topology (a kafka_spout with "
                     "processing_guarantee: exactly_once); here totals live in memory only");
  }
  const std::string key(t.tuple->value(static_cast<std::size_t>(ki)));
  const std::string_view value = vi >= 0 ? t.tuple->value(static_cast<std::size_t>(vi)) : "null";
  Totals& target = exactly ? pending_ : committed_;
  const std::string* current = nullptr;
  if (auto it = target.find(key); it != target.end()) {
    current = &it->second;
  } else if (auto c = committed_.find(key); exactly && c != committed_.end()) {
    current = &c->second;
  }
  std::string next;
  if (auto err = ApplyAggregate(o_.op, current, value, next)) {
    Reject(t, std::string("value:") + AggregateOpName(o_.op), "key " + key + ": " + *err);
    return;
  }
  std::string values = "[" + key + "," + next + "]";
  target[key] = std::move(next);
  out_.Emit(o_.stream, std::move(values), "", {t.id}, std::nullopt);
  out_.Ack(t.id);
  const auto now = Clock::now();
  if (now >= next_metrics_) {
    next_metrics_ = now + kMetricsEvery;
    PublishMetrics();
  }
}

KeyedAggregate::KeyedAggregate(AggregateOptions options) : options_(std::move(options)) {}
KeyedAggregate::~KeyedAggregate() = default;

std::optional<std::string> KeyedAggregate::Open(const nlohmann::json& conf, int, int, int,
                                                runtime::BuiltinCollector& collector,
                                                boost::asio::io_context& io) {
  session_.reset();
  auto s = std::make_unique<Session>(options_, collector, io);
  if (auto err = s->Open(conf)) return err;
  session_ = std::move(s);
  return std::nullopt;
}

void KeyedAggregate::Execute(const runtime::BuiltinTuple& tuple) {
  if (session_) session_->Execute(tuple);
}

void KeyedAggregate::Close() {
  if (session_) session_->Close();
  session_.reset();
}

}  // namespace sparse::kafka
