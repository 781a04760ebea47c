#include "kafka/kafka_bolt.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <unordered_map>

#include "base/lifetime_gate.hpp"
#include "base/periodic_timer.hpp"
#include "kafka/blocking_worker.hpp"
#include "kafka/client_reports.hpp"
#include "kafka/exactly_once.hpp"
#include "kafka/metrics_period.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/record_codec.hpp"
#include "runtime/config.hpp"
#include "runtime/tuple.hpp"

namespace sparse::kafka {

namespace {
using Clock = std::chrono::steady_clock;

std::string FieldList(const std::vector<std::string>& fields) {
  std::string s;
  for (const auto& f : fields) s += (s.empty() ? "" : ", ") + f;
  return s;
}
}  // namespace

class KafkaBolt::Session {
 public:
  Session(const BoltOptions& o, runtime::BuiltinCollector& out, boost::asio::io_context& io,
          int task_id)
      : o_(o), out_(out), io_(io), ticker_(io), task_id_(task_id), reports_(out) {}
  ~Session() {
    reports_.Guarded("closing the Kafka bolt", [this] { Close(); });
  }

  std::optional<std::string> Open(const nlohmann::json& conf);
  void Execute(const runtime::BuiltinTuple& t);
  void Close();

 private:
  struct Record {
    std::string tuple_id;
    bool transactional = false;  // goes into the epoch's transaction (exactly_once)
    std::string topic;
    std::optional<std::string> key;
    std::optional<std::string> value;
  };
  // Where the bolt's fields are in one input stream (-1: absent).
  struct Layout {
    int topic = -1;
    int key = -1;
    int value = -1;
  };

  static void OnDelivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);
  void Delivered(const rd_kafka_message_t& msg);
  static void OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque);
  static void OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf);

  const Layout& LayoutFor(const std::vector<std::string>* fields);
  // Queues the record; false when librdkafka's queue is full (the caller keeps it).
  bool Produce(Record& r);
  bool ProduceTransactional(Record& r);
  // exactly_once: false when the tuple was dealt with (a stale one is acked: its epoch
  // aborted, and its replay writes the record).
  bool AdmitToEpoch(const runtime::BuiltinTuple& t, Record& r);
  // A record the producer refused (not QUEUE_FULL): its input fails, with an error.
  void ProduceFailed(const Record& r, rd_kafka_resp_err_t err);
  // A delivery report: the input is acked when its record was written, else failed. Returns
  // whether it was written.
  bool Settle(const std::string& tuple_id, rd_kafka_resp_err_t err);
  void Reject(const runtime::BuiltinTuple& t, const std::string& key, const std::string& why);
  void Report(const std::string& key, const std::string& message) { reports_.Report(key, message); }
  void Tick();
  void DrainBacklog();
  void PublishMetrics(Clock::time_point now);
  void Probe(Clock::time_point now);

  const BoltOptions& o_;
  runtime::BuiltinCollector& out_;
  boost::asio::io_context& io_;
  base::PeriodicTimer ticker_;  // Tick, every o_.poll_interval_ms while open
  int task_id_;
  std::string bootstrap_;
  ClientPtr producer_;
  base::LifetimeGate gate_;
  // Client errors, reports, and the gauge kafka.connected: set once a broker answered (a
  // delivery, or the metadata probe sent until then).
  ClientReports reports_;
  bool open_ = false;
  bool probing_ = false;
  Clock::time_point next_probe_{};
  std::unique_ptr<BlockingWorker> worker_;
  std::shared_ptr<EpochCoordinator> epochs_;  // the topology's; active() when exactly_once
  std::uint64_t stale_ = 0;
  std::uint64_t untracked_ = 0;
  std::unordered_map<const std::vector<std::string>*, Layout> layouts_;
  std::deque<Record> backlog_;
  std::int64_t in_flight_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t delivery_errors_ = 0;
  std::uint64_t rejected_ = 0;
  std::uint64_t queue_full_ = 0;
  MetricsPeriod metrics_;
};

std::optional<std::string> KafkaBolt::Session::Open(const nlohmann::json& conf) {
  bootstrap_ = EffectiveBootstrap(conf, o_.bootstrap_servers, o_.properties);
  if (bootstrap_.empty()) return MissingBootstrapError();
  reports_.set_bootstrap(bootstrap_);
  ConfPtr kconf(rd_kafka_conf_new());
  const auto& user = o_.properties;
  SetDefault(kconf.get(), user, "enable.idempotence", "true");
  // Give up on a delivery about when the tuple tree would time out anyway, so a record is not
  // written long after the spout replayed its tuple.
  const auto secs = runtime::ConfigView(&conf).Number(runtime::keys::kMessageTimeoutSecs);
  if (secs && *secs > 0) {
    SetDefault(kconf.get(), user, "message.timeout.ms",
               std::to_string(static_cast<std::int64_t>(*secs * 1000)));
  }
  SetDefault(kconf.get(), user, "client.id", "sparse-kafka-bolt-" + std::to_string(task_id_));
  if (auto err = ApplyProperties(kconf.get(), o_.properties)) return "options." + *err;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"bootstrap.servers", bootstrap_}, {"log.queue", "true"}}) {
    if (auto err = SetProperty(kconf.get(), k, v)) return k + ": " + *err;
  }
  rd_kafka_conf_set_opaque(kconf.get(), this);
  rd_kafka_conf_set_dr_msg_cb(kconf.get(), &Session::OnDelivery);
  rd_kafka_conf_set_error_cb(kconf.get(), &Session::OnError);
  rd_kafka_conf_set_log_cb(kconf.get(), &Session::OnLog);
  std::string error;
  producer_ = NewClient(RD_KAFKA_PRODUCER, std::move(kconf), error);
  if (!producer_) return "cannot create the Kafka producer: " + error;
  rd_kafka_set_log_queue(producer_.get(), nullptr);
  worker_ = std::make_unique<BlockingWorker>(io_);
  worker_->Start();
  epochs_ = EpochCoordinator::Acquire(io_, conf.value(runtime::keys::kTopologyName, std::string()));
  reports_.Opened();
  open_ = true;
  metrics_.Start(Clock::now());
  ticker_.Start(std::chrono::milliseconds(o_.poll_interval_ms), [this] { Tick(); });
  return std::nullopt;
}

void KafkaBolt::Session::Close() {
  if (!open_) return;
  open_ = false;
  ticker_.Stop();
  gate_.Close();
  if (worker_) worker_->Stop();
  for (auto& r : backlog_) out_.Fail(r.tuple_id);
  backlog_.clear();
  // Deliver what is queued (their reports ack or fail the inputs), then give up on the rest.
  rd_kafka_flush(producer_.get(),
                 static_cast<int>(std::chrono::milliseconds(kCloseTimeout).count()));
  if (rd_kafka_outq_len(producer_.get()) > 0) {
    rd_kafka_purge(producer_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_flush(producer_.get(), 1000);
  }
  rd_kafka_poll(producer_.get(), 0);
  PublishMetrics(Clock::now());
  producer_.reset();
}

// Each runs inside ClientReports::Guarded: librdkafka's C frames cannot carry an exception.

void KafkaBolt::Session::OnDelivery(rd_kafka_t*, const rd_kafka_message_t* msg, void* opaque) {
  auto* self = static_cast<Session*>(opaque);
  self->reports_.Guarded("the delivery report callback", [&] { self->Delivered(*msg); });
}

void KafkaBolt::Session::Delivered(const rd_kafka_message_t& msg) {
  std::unique_ptr<std::string> id(static_cast<std::string*>(msg._private));
  if (!id) return;
  if (Settle(*id, msg.err)) return;
  const std::string topic = msg.rkt ? rd_kafka_topic_name(msg.rkt) : "?";
  Report(std::string("delivery:") + rd_kafka_err2name(msg.err),
         "delivery to topic `" + topic + "` failed: " + rd_kafka_err2str(msg.err) +
             "; input tuple failed (its spout may replay it)");
}

bool KafkaBolt::Session::Settle(const std::string& tuple_id, rd_kafka_resp_err_t err) {
  --in_flight_;
  if (!err) {
    reports_.Connected();
    ++delivered_;
    out_.Ack(tuple_id);
    return true;
  }
  ++delivery_errors_;
  out_.Fail(tuple_id);
  return false;
}

void KafkaBolt::Session::OnError(rd_kafka_t* rk, int err, const char* reason, void* opaque) {
  auto* self = static_cast<Session*>(opaque);
  self->reports_.Guarded("librdkafka's error callback",
                         [&] { self->reports_.ClientError(rk, err, reason); });
}

void KafkaBolt::Session::OnLog(const rd_kafka_t* rk, int level, const char* fac, const char* buf) {
  if (auto* self = static_cast<Session*>(rd_kafka_opaque(rk))) {
    self->reports_.Guarded("librdkafka's log callback",
                           [&] { self->reports_.LibrdkafkaLog(level, fac, buf); });
  }
}

const KafkaBolt::Session::Layout& KafkaBolt::Session::LayoutFor(
    const std::vector<std::string>* fields) {
  auto it = layouts_.find(fields);
  if (it != layouts_.end()) return it->second;
  Layout l;
  auto index = [&](const std::string& name) {
    if (name.empty()) return -1;
    auto f = std::find(fields->begin(), fields->end(), name);
    return f == fields->end() ? -2 : static_cast<int>(f - fields->begin());
  };
  l.topic = index(o_.topic_field);
  l.key = index(o_.key_field);
  l.value = index(o_.value_field);
  return layouts_[fields] = l;
}

void KafkaBolt::Session::Reject(const runtime::BuiltinTuple& t, const std::string& key,
                                const std::string& why) {
  ++rejected_;
  Report(key, "tuple from " + std::string(t.component) + ":" + std::string(t.stream) +
                  " not written: " + why + "; tuple failed");
  out_.Fail(t.id);
}

void KafkaBolt::Session::Execute(const runtime::BuiltinTuple& t) {
  if (t.tick) {
    out_.Ack(t.id);
    return;
  }
  if (!open_ || reports_.fatal() || !t.tuple || !t.fields) {
    out_.Fail(t.id);
    return;
  }
  const Layout& layout = LayoutFor(t.fields);
  const auto& tuple = *t.tuple;
  const std::string where = std::string(t.component) + ":" + std::string(t.stream);
  struct Want {
    const char* option;
    const std::string& field;
    int index;
  };
  for (const Want& w : {Want{"topic_field", o_.topic_field, layout.topic},
                        Want{"key_field", o_.key_field, layout.key},
                        Want{"value_field", o_.value_field, layout.value}}) {
    if (w.index == -2) {
      Reject(t, std::string("missing:") + w.option + where,
             std::string("options.") + w.option + " `" + w.field + "` is not a field of " + where +
                 " (fields: " + FieldList(*t.fields) + ")");
      return;
    }
    if (w.index >= 0 && static_cast<std::size_t>(w.index) >= tuple.size()) {
      Reject(t, "short:" + where, "the tuple has fewer values than its fields");
      return;
    }
  }
  Record r;
  r.tuple_id = t.id;
  bool ok = true;
  if (layout.topic >= 0) {
    auto topic = ValueBytes(tuple.value(static_cast<std::size_t>(layout.topic)), ok);
    if (!ok || !topic || topic->empty()) {
      Reject(t, "topic_value",
             "field `" + o_.topic_field + "` (options.topic_field) holds " +
                 std::string(tuple.value(static_cast<std::size_t>(layout.topic))) +
                 ", not a topic name");
      return;
    }
    r.topic = std::move(*topic);
  } else {
    r.topic = o_.topic;
  }
  if (layout.key >= 0) {
    r.key = ValueBytes(tuple.value(static_cast<std::size_t>(layout.key)), ok);
    if (!ok) {
      Reject(t, "key_value", "field `" + o_.key_field + "` is not valid JSON text");
      return;
    }
  }
  if (layout.value >= 0) {
    r.value = ValueBytes(tuple.value(static_cast<std::size_t>(layout.value)), ok);
    if (!ok) {
      Reject(t, "value_value", "field `" + o_.value_field + "` is not valid JSON text");
      return;
    }
  } else {
    std::vector<std::string_view> values;
    values.reserve(tuple.size());
    for (std::size_t i = 0; i < tuple.size(); ++i) values.push_back(tuple.value(i));
    r.value = TupleAsJsonObject(*t.fields, values);
  }
  if (epochs_ && epochs_->active() && !AdmitToEpoch(t, r)) return;
  if (!backlog_.empty() || !Produce(r)) backlog_.push_back(std::move(r));
}

bool KafkaBolt::Session::AdmitToEpoch(const runtime::BuiltinTuple& t, Record& r) {
  switch (epochs_->Classify(t, out_)) {
    case EpochCoordinator::Input::kLive:
      r.transactional = true;
      return true;
    case EpochCoordinator::Input::kStale:
      ++stale_;
      out_.Ack(t.id);
      return false;
    case EpochCoordinator::Input::kUntracked:
      if (untracked_++ == 0) {
        out_.ReportError("tuples from " + std::string(t.component) + ":" + std::string(t.stream) +
                         " reach this Kafka bolt unanchored: they belong to no epoch, so they "
                         "are written at-least-once, outside the transactions (anchor them to "
                         "their input to make them exactly-once)");
      }
      return true;
  }
  return true;
}

void KafkaBolt::Session::ProduceFailed(const Record& r, rd_kafka_resp_err_t err) {
  ++delivery_errors_;
  Report(std::string("produce:") + rd_kafka_err2name(err), "cannot produce to topic `" + r.topic +
                                                               "`: " + rd_kafka_err2str(err) +
                                                               "; input tuple failed");
  out_.Fail(r.tuple_id);
}

bool KafkaBolt::Session::ProduceTransactional(Record& r) {
  auto alive = gate_.ticket();
  const auto err = epochs_->Produce(r.topic, r.key, r.value,
                                    [this, alive, id = r.tuple_id](rd_kafka_resp_err_t result) {
                                      // A failure here is a record purged by an abort (its tuple
                                      // is stale) or a write that failed (its epoch aborts): no
                                      // report of its own.
                                      if (alive) Settle(id, result);
                                    });
  if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
    ++queue_full_;
    return false;
  }
  if (err == RD_KAFKA_RESP_ERR__STATE) {
    // No transaction open: the epoch of this tuple aborted while it waited in the backlog.
    ++stale_;
    out_.Ack(r.tuple_id);
    return true;
  }
  if (err) {
    ProduceFailed(r, err);
    return true;
  }
  ++in_flight_;
  return true;
}

bool KafkaBolt::Session::Produce(Record& r) {
  if (r.transactional) return ProduceTransactional(r);
  auto id = std::make_unique<std::string>(r.tuple_id);
  OutRecord record;
  record.topic = r.topic.c_str();
  if (r.key) record.key = *r.key;
  if (r.value) record.value = *r.value;
  record.opaque = id.get();
  const auto err = kafka::Produce(producer_.get(), record);
  if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
    ++queue_full_;
    return false;
  }
  if (err) {
    ProduceFailed(r, err);
    return true;
  }
  static_cast<void>(id.release());  // comes back in the delivery report
  ++in_flight_;
  return true;
}

void KafkaBolt::Session::DrainBacklog() {
  while (!backlog_.empty() && Produce(backlog_.front())) backlog_.pop_front();
}

void KafkaBolt::Session::Tick() {
  rd_kafka_poll(producer_.get(), 0);  // delivery reports, errors, logs
  if (!gate_.open() || reports_.fatal()) return;
  DrainBacklog();
  const auto now = Clock::now();
  Probe(now);
  if (metrics_.Due(now)) PublishMetrics(now);
}

void KafkaBolt::Session::Probe(Clock::time_point now) {
  if (reports_.connected() || probing_ || now < next_probe_) return;
  probing_ = true;
  next_probe_ = now + std::chrono::seconds(2);
  rd_kafka_t* rk = producer_.get();
  const bool queued = worker_->Submit([this, rk] {
    // Brokers only (no topics): a request that any reachable broker answers.
    const rd_kafka_metadata_t* raw = nullptr;
    const bool ok = rd_kafka_metadata(rk, 0, nullptr, &raw, 5000) == RD_KAFKA_RESP_ERR_NO_ERROR;
    MetadataPtr md(raw);
    return [this, ok] {
      probing_ = false;
      if (ok) reports_.Connected();
    };
  });
  if (!queued) probing_ = false;  // probed again at next_probe_
}

void KafkaBolt::Session::PublishMetrics(Clock::time_point now) {
  if (const auto rate = metrics_.End(now, delivered_)) out_.SetGauge(kRecordsPerSecGauge, *rate);
  out_.SetGauge("kafka.delivered", static_cast<double>(delivered_));
  out_.SetGauge("kafka.delivery_errors", static_cast<double>(delivery_errors_));
  out_.SetGauge("kafka.rejected", static_cast<double>(rejected_));
  out_.SetGauge("kafka.queue_full", static_cast<double>(queue_full_));
  out_.SetGauge("kafka.client_errors", static_cast<double>(reports_.client_errors()));
  out_.SetGauge("kafka.in_flight", static_cast<double>(std::max<std::int64_t>(0, in_flight_)));
  out_.SetGauge("kafka.backlog", static_cast<double>(backlog_.size()));
  if (epochs_ && epochs_->active()) {
    out_.SetGauge("kafka.stale_inputs", static_cast<double>(stale_));
    out_.SetGauge("kafka.unanchored_inputs", static_cast<double>(untracked_));
  }
}

KafkaBolt::KafkaBolt(BoltOptions options) : options_(std::move(options)) {}
KafkaBolt::~KafkaBolt() = default;

std::optional<std::string> KafkaBolt::Open(const nlohmann::json& conf, int task_id, int, int,
                                           runtime::BuiltinCollector& collector,
                                           boost::asio::io_context& io) {
  session_.reset();
  auto session = std::make_unique<Session>(options_, collector, io, task_id);
  if (auto err = session->Open(conf)) return err;
  session_ = std::move(session);
  return std::nullopt;
}

void KafkaBolt::Execute(const runtime::BuiltinTuple& tuple) {
  if (session_) session_->Execute(tuple);
}

void KafkaBolt::Close() {
  if (session_) session_->Close();
  session_.reset();
}

}  // namespace sparse::kafka
