#include "kafka/txn_producer.hpp"

#include <chrono>
#include <thread>

#include "kafka/client_events.hpp"
#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

namespace {
// Longest a transaction call may block the helper thread. A broker that does not answer in
// this time fails the call; the coordinator then aborts and replays the epoch.
constexpr int kCallTimeoutMs = 30'000;
}  // namespace

TxnResult ClassifyTxnError(rd_kafka_error_t* error) {
  ErrorPtr owned(error);
  TxnResult r;
  if (!error) return r;
  r.error = rd_kafka_error_string(error);
  if (rd_kafka_error_is_fatal(error)) {
    r.kind = TxnResult::Kind::kFatal;
  } else if (rd_kafka_error_is_retriable(error) && !rd_kafka_error_txn_requires_abort(error)) {
    r.kind = TxnResult::Kind::kRetriable;
  } else {
    // One that requires an abort, or neither retriable nor abortable nor fatal (a timeout, a
    // state error): abort and replay is the safe answer.
    r.kind = TxnResult::Kind::kAbortable;
  }
  return r;
}

TxnProducer::TxnProducer(Say say) : say_(std::move(say)) {}

std::unique_ptr<TxnProducer> TxnProducer::Create(boost::asio::io_context& io,
                                                 const std::string& bootstrap,
                                                 const std::string& transactional_id,
                                                 const nlohmann::json& properties, Say say,
                                                 std::string& error) {
  std::unique_ptr<TxnProducer> p(new TxnProducer(std::move(say)));
  ConfPtr conf(rd_kafka_conf_new());
  if (auto err = ApplyProperties(conf.get(), properties)) {
    error = *err;
    return nullptr;
  }
  for (const auto& [k, v] :
       std::vector<std::pair<std::string, std::string>>{{"bootstrap.servers", bootstrap},
                                                        {"transactional.id", transactional_id},
                                                        {"enable.idempotence", "true"},
                                                        {"log.queue", "true"}}) {
    if (auto err = SetProperty(conf.get(), k, v)) {
      error = k + ": " + *err;
      return nullptr;
    }
  }
  SetDefault(conf.get(), properties, "client.id", "sparse-transactions");
  rd_kafka_conf_set_events(conf.get(),
                           RD_KAFKA_EVENT_DR | RD_KAFKA_EVENT_ERROR | RD_KAFKA_EVENT_LOG);
  p->rk_ = NewClient(RD_KAFKA_PRODUCER, std::move(conf), error);
  if (!p->rk_) return nullptr;
  rd_kafka_set_log_queue(p->rk_.get(), nullptr);  // logs are events on the main queue
  p->main_.reset(rd_kafka_queue_get_main(p->rk_.get()));
  p->worker_ = std::make_unique<BlockingWorker>(io);
  p->worker_->Start();
  return p;
}

TxnProducer::~TxnProducer() {
  // A commit under way (the run is stopping) is let finish: its flush waits for the loop to
  // serve the producer's events, and the loop is here, so serve them here (what they call back
  // checks its owner's lifetime gate).
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kCallTimeoutMs);
  while (worker_ && worker_->Busy() && std::chrono::steady_clock::now() < deadline) {
    if (main_) Poll();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (worker_) worker_->Stop();
  if (!rk_) return;
  // An open transaction is left to the broker: the next producer with this id aborts it, and
  // the transaction timeout does it otherwise. Purge so that closing does not wait for it.
  rd_kafka_purge(rk_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  // The purged records' reports carry their callbacks: free them without calling them (their
  // owners may be gone already).
  for (int i = 0; i < 20 && outstanding_ > 0; ++i) {
    while (rd_kafka_event_t* ev = rd_kafka_queue_poll(main_.get(), 100)) {
      if (rd_kafka_event_type(ev) == RD_KAFKA_EVENT_DR) {
        while (const rd_kafka_message_t* m = rd_kafka_event_message_next(ev)) {
          delete static_cast<Delivered*>(m->_private);
          if (outstanding_ > 0) --outstanding_;
        }
      }
      rd_kafka_event_destroy(ev);
    }
  }
  main_.reset();
}

void TxnProducer::Run(std::function<TxnResult(rd_kafka_t*)> call, Done done) {
  rd_kafka_t* rk = rk_.get();
  worker_->Submit([rk, call = std::move(call), done = std::move(done)] {
    TxnResult r = call(rk);
    return [r, done] { done(r); };
  });
}

void TxnProducer::Init(Done done) {
  Run(
      [](rd_kafka_t* rk) {
        return ClassifyTxnError(rd_kafka_init_transactions(rk, kCallTimeoutMs));
      },
      std::move(done));
}

void TxnProducer::Commit(std::map<std::string, PartitionListPtr> offsets, Done done) {
  auto shared = std::make_shared<std::map<std::string, PartitionListPtr>>(std::move(offsets));
  Run(
      [shared](rd_kafka_t* rk) {
        for (auto& [group, list] : *shared) {
          if (!list || list->cnt == 0) continue;
          rd_kafka_consumer_group_metadata_t* md =
              rd_kafka_consumer_group_metadata_new(group.c_str());
          TxnResult r = ClassifyTxnError(
              rd_kafka_send_offsets_to_transaction(rk, list.get(), md, kCallTimeoutMs));
          rd_kafka_consumer_group_metadata_destroy(md);
          if (!r.ok()) {
            r.error = "sending the consumed offsets of group `" + group + "`: " + r.error;
            return r;
          }
        }
        TxnResult r = ClassifyTxnError(rd_kafka_commit_transaction(rk, kCallTimeoutMs));
        if (!r.ok()) r.error = "committing: " + r.error;
        return r;
      },
      std::move(done));
}

void TxnProducer::Abort(Done done) {
  Run(
      [](rd_kafka_t* rk) {
        return ClassifyTxnError(rd_kafka_abort_transaction(rk, kCallTimeoutMs));
      },
      std::move(done));
}

TxnResult TxnProducer::Begin() {
  return ClassifyTxnError(rd_kafka_begin_transaction(rk_.get()));
}

rd_kafka_resp_err_t TxnProducer::Produce(const std::string& topic,
                                         const std::optional<std::string>& key,
                                         const std::optional<std::string>& value,
                                         Delivered delivered) {
  auto cb = std::make_unique<Delivered>(std::move(delivered));
  OutRecord record;
  record.topic = topic.c_str();
  if (key) record.key = *key;
  if (value) record.value = *value;
  record.opaque = cb.get();
  const auto err = kafka::Produce(rk_.get(), record);
  if (!err) {
    static_cast<void>(cb.release());  // comes back with the delivery report
    ++outstanding_;
  }
  return err;
}

int TxnProducer::Poll() {
  int served = 0;
  while (rd_kafka_event_t* ev = rd_kafka_queue_poll(main_.get(), 0)) {
    ++served;
    switch (rd_kafka_event_type(ev)) {
      case RD_KAFKA_EVENT_DR: {
        while (const rd_kafka_message_t* m = rd_kafka_event_message_next(ev)) {
          std::unique_ptr<Delivered> cb(static_cast<Delivered*>(m->_private));
          if (outstanding_ > 0) --outstanding_;
          if (cb && *cb) (*cb)(m->err);
        }
        break;
      }
      case RD_KAFKA_EVENT_ERROR: {
        const bool fatal = rd_kafka_event_error_is_fatal(ev);
        const std::string text = rd_kafka_event_error_string(ev);
        say_(fatal ? 4 : 3, std::string("txn:") + rd_kafka_err2name(rd_kafka_event_error(ev)),
             std::string(fatal ? "fatal " : "") + "transactional producer error: " + text +
                 (fatal ? "; the producer is made again and the epoch replayed"
                        : "; librdkafka retries"));
        break;
      }
      case RD_KAFKA_EVENT_LOG: {
        const char* fac = nullptr;
        const char* str = nullptr;
        int level = 0;
        if (rd_kafka_event_log(ev, &fac, &str, &level) == 0 && level <= 4) {
          say_(RuntimeLogLevel(level), std::string("log:") + (fac ? fac : ""),
               std::string("librdkafka ") + (fac ? fac : "") + ": " + (str ? str : ""));
        }
        break;
      }
      default:
        break;
    }
    rd_kafka_event_destroy(ev);
  }
  return served;
}

}  // namespace sparse::kafka
