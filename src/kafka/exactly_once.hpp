// Exactly-once from Kafka to Kafka: the epoch coordinator of a topology.
//
// With `processing_guarantee: exactly_once` on its Kafka spouts, a topology's records are cut
// into epochs (EpochLedger). One transactional producer per topology (TxnProducer) holds each
// epoch's output: every record the topology's Kafka bolts write for the epoch, the state of its
// keyed aggregations, and the spouts' consumed offsets (send_offsets_to_transaction). The
// transaction commits once every tuple tree rooted in the epoch completed; a tree that fails or
// times out aborts it, and the spouts go back to the epoch's first offsets and replay it. A
// reader with isolation.level=read_committed sees each input's outputs exactly once, across
// kill -9 of the runtime (the next producer with the same transactional.id fences the old one
// and aborts its open transaction) and of any component (its tuples fail: abort, replay).
//
// One producer, not one per bolt task: a Kafka transaction belongs to one producer, and the
// epoch's outputs from all bolt tasks and the offsets of all spout tasks must commit together.
// Everything runs in one runtime process, so one producer can hold them all.
//
// The coordinator is shared by the Kafka components of one topology on one event loop (found by
// loop and topology name), made by the first that asks and gone with the last. Single-threaded:
// the loop's thread only.
#pragma once

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/lifetime_gate.hpp"
#include "base/periodic_timer.hpp"
#include "kafka/epoch_ledger.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/report_throttle.hpp"
#include "runtime/builtin.hpp"

namespace sparse::kafka {

class TxnProducer;

// A spout task reading in epochs.
class EpochSource {
 public:
  virtual ~EpochSource() = default;
  // Records emitted (or being given up) and not done yet.
  virtual std::int64_t Outstanding() const = 0;
  // Adds, per partition read, the offset to commit with the epoch (all before it done).
  virtual void AppendOffsets(rd_kafka_topic_partition_list_t* list) const = 0;
  virtual const std::string& group_id() const = 0;
  // The epoch committed with these offsets (of this source's group).
  virtual void EpochCommitted(const rd_kafka_topic_partition_list_t* offsets) = 0;
  // The epoch aborted: go back to the offsets of its start, forgetting everything in flight.
  virtual void Rewind() = 0;
  // An epoch opened: emitting may resume.
  virtual void EpochOpened() = 0;
  // Whether the record behind `message_id` (this source's) is in flight in the current epoch.
  virtual bool Live(std::string_view message_id) = 0;
};

// A bolt task whose state follows the epochs (the keyed aggregation).
class EpochParticipant {
 public:
  virtual ~EpochParticipant() = default;
  // Before the first epoch: load what earlier runs committed. Calls `ready` (on the loop) when
  // done, with an error to report or nullopt.
  virtual void Restore(std::function<void(std::optional<std::string>)> ready) { ready({}); }
  // The epoch is complete: write what must commit with it (through Produce). An error aborts
  // the epoch.
  virtual std::optional<std::string> BeforeCommit() { return std::nullopt; }
  virtual void EpochCommitted() {}
  virtual void EpochAborted() {}
};

struct EpochSettings {
  std::string bootstrap;
  std::string transactional_id;
  nlohmann::json producer_properties = nlohmann::json::object();
  EpochLedger::Limits limits;
  std::int64_t poll_interval_ms = 5;
};

class EpochCoordinator {
 public:
  // The coordinator of `topology` on `io`, made if there is none yet.
  static std::shared_ptr<EpochCoordinator> Acquire(boost::asio::io_context& io,
                                                   const std::string& topology);
  ~EpochCoordinator();
  EpochCoordinator(const EpochCoordinator&) = delete;
  EpochCoordinator& operator=(const EpochCoordinator&) = delete;

  // A spout task joins (its collector shows the epochs' gauges and errors). The first source's
  // settings make the producer. Returns an error when the producer cannot be made.
  std::optional<std::string> AddSource(int task_id, EpochSource* source,
                                       const EpochSettings& settings,
                                       runtime::BuiltinCollector& out);
  // A spout task leaves (closed, or restarted): the epoch in flight aborts.
  void RemoveSource(EpochSource* source);
  void AddParticipant(EpochParticipant* p);
  void RemoveParticipant(EpochParticipant* p);
  // Whether the topology reads in epochs: an exactly-once spout joined. It stays so when a spout
  // task restarts (leaves and joins again): in between, sinks must neither write outside a
  // transaction nor count inputs as committed.
  bool active() const { return joined_; }

  // Spouts: may one more record be emitted now? Opens the next epoch when none is.
  bool MayEmit();
  void Emitted();
  // A record of the epoch is done (acked or given up): it may be complete.
  void Progress();
  // The spouts were deactivated (or the run drains): commit what is in flight now.
  void CloseEpoch();
  // A record of the epoch failed or timed out, or was lost with its partition.
  void Fail(const std::string& why);

  // Sinks: is this input part of the epoch in flight?
  enum class Input {
    kLive,       // every tree it belongs to is a record of the epoch in flight
    kStale,      // a tree it belongs to failed or is of an aborted epoch: drop it
    kUntracked,  // unanchored (no tree): not covered by any epoch
  };
  Input Classify(const runtime::BuiltinTuple& t, const runtime::BuiltinCollector& c) const;
  // Whether records may be produced now (an epoch is open or draining).
  bool Producing() const;
  // Produces into the epoch's transaction. `delivered` runs on the loop. QUEUE_FULL: try later.
  rd_kafka_resp_err_t Produce(const std::string& topic, const std::optional<std::string>& key,
                              const std::optional<std::string>& value,
                              std::function<void(rd_kafka_resp_err_t)> delivered);

  const EpochLedger& ledger() const { return ledger_; }

 private:
  EpochCoordinator(boost::asio::io_context& io, std::string topology);
  struct Source {
    int task_id;
    EpochSource* source;
    runtime::BuiltinCollector* out;
  };
  std::optional<std::string> MakeProducer();
  void Init();
  void OpenEpoch();
  void Tick();
  void CheckComplete();
  void Commit();
  void Committed(const std::map<std::string, PartitionListPtr>& offsets);
  void StartAbort();
  void AbortDone();
  void ReplaceProducer(const std::string& why);
  void Say(int level, const std::string& key, const std::string& text);
  void PublishGauges();

  boost::asio::io_context& io_;
  std::string topology_;
  EpochSettings settings_;
  EpochLedger ledger_{{}};
  std::vector<Source> sources_;
  std::vector<EpochParticipant*> participants_;
  std::unique_ptr<TxnProducer> producer_;
  base::PeriodicTimer ticker_;  // Tick, every settings_.poll_interval_ms once a source joined
  base::LifetimeGate gate_;
  ReportThrottle throttle_;
  bool joined_ = false;    // a source joined once
  bool wanted_ = false;    // a spout asked for an epoch while none was open
  bool ready_ = false;     // init_transactions succeeded
  bool restored_ = false;  // participants restored their state
  bool restoring_ = false;
  bool initializing_ = false;
  bool abort_pending_ = false;  // an abort waits for the producer's running call
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::steady_clock::time_point commit_started_{};
  std::chrono::steady_clock::time_point next_gauges_{};
  std::uint64_t committed_ = 0;
  std::uint64_t aborted_ = 0;
  std::uint64_t committed_records_ = 0;
  double last_commit_ms_ = 0;
};

}  // namespace sparse::kafka
