// A transactional librdkafka producer driven from the runtime's event loop.
//
// librdkafka's transaction calls block (init, send-offsets, commit, abort): they run on a helper
// thread (BlockingWorker) and report back on the loop. Everything else happens on the loop:
// produce, and serving the producer's events. The producer is made in librdkafka's event mode
// (delivery reports, errors and logs are events on its main queue, served by Poll), because
// commit_transaction flushes: with callbacks, that flush would run delivery callbacks on the
// helper thread; with events it only waits while the loop serves them.
//
// One instance is one producer, one transactional.id: creating it fences (and aborts the open
// transaction of) any earlier producer with the same id, such as that of a run killed with -9.
#pragma once

#include <librdkafka/rdkafka.h>

#include <boost/asio/io_context.hpp>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "kafka/blocking_worker.hpp"
#include "kafka/rdkafka_handles.hpp"

namespace sparse::kafka {

// What became of a transaction call, classified as librdkafka's rd_kafka_error_t says.
struct TxnResult {
  enum class Kind { kOk, kRetriable, kAbortable, kFatal };
  Kind kind = Kind::kOk;
  std::string error;  // empty when kOk
  bool ok() const { return kind == Kind::kOk; }
};

class TxnProducer {
 public:
  using Done = std::function<void(const TxnResult&)>;
  using Delivered = std::function<void(rd_kafka_resp_err_t)>;
  // Log and error lines for the user (level as the runtime's: 0 trace .. 4 error).
  using Say = std::function<void(int level, const std::string& key, const std::string& text)>;

  // Makes the producer (no network yet). On error returns nullptr and sets `error`.
  static std::unique_ptr<TxnProducer> Create(boost::asio::io_context& io,
                                             const std::string& bootstrap,
                                             const std::string& transactional_id,
                                             const nlohmann::json& properties, Say say,
                                             std::string& error);
  ~TxnProducer();  // waits for a running call (each has a timeout), then closes the producer
  TxnProducer(const TxnProducer&) = delete;
  TxnProducer& operator=(const TxnProducer&) = delete;

  // Blocking calls, on the helper thread; `done` runs on the loop (not after destruction).
  void Init(Done done);
  // Offsets per consumer group, then the commit.
  void Commit(std::map<std::string, PartitionListPtr> offsets, Done done);
  void Abort(Done done);
  bool Busy() const { return worker_->Busy(); }

  // Local calls, on the loop.
  TxnResult Begin();
  // Queues a record in the open transaction; `delivered` runs on the loop with the outcome.
  // RD_KAFKA_RESP_ERR__QUEUE_FULL: not queued, try again after a Poll.
  rd_kafka_resp_err_t Produce(const std::string& topic, const std::optional<std::string>& key,
                              const std::optional<std::string>& value, Delivered delivered);
  // Serves delivery reports, errors and logs. Returns the number of events served.
  int Poll();
  // Records produced whose delivery report was not served yet.
  std::size_t Outstanding() const { return outstanding_; }

 private:
  explicit TxnProducer(Say say);
  void Run(std::function<TxnResult(rd_kafka_t*)> call, Done done);

  Say say_;
  ClientPtr rk_;
  QueuePtr main_;
  std::unique_ptr<BlockingWorker> worker_;
  std::size_t outstanding_ = 0;
};

// Classifies an rd_kafka_error_t (null: kOk) and takes ownership of it.
TxnResult ClassifyTxnError(rd_kafka_error_t* error);

}  // namespace sparse::kafka
