#include "kafka/exactly_once.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <map>
#include <mutex>
#include <utility>

#include "kafka/txn_producer.hpp"

namespace sparse::kafka {

namespace {
using Clock = std::chrono::steady_clock;
constexpr auto kInitRetry = std::chrono::seconds(1);
constexpr auto kCommitRetry = std::chrono::milliseconds(200);
constexpr auto kGaugesEvery = std::chrono::seconds(1);

// Coordinators by event loop and topology. Built-ins of one topology share an event loop; the
// loop is part of the key so that two clusters in one process (tests) never share one.
std::mutex registry_mu;
std::map<std::pair<const boost::asio::io_context*, std::string>, std::weak_ptr<EpochCoordinator>>&
Registry() {
  static auto* r = new std::map<std::pair<const boost::asio::io_context*, std::string>,
                                std::weak_ptr<EpochCoordinator>>();
  return *r;
}
}  // namespace

std::shared_ptr<EpochCoordinator> EpochCoordinator::Acquire(boost::asio::io_context& io,
                                                            const std::string& topology) {
  std::lock_guard lock(registry_mu);
  auto& slot = Registry()[{&io, topology}];
  if (auto existing = slot.lock()) return existing;
  std::shared_ptr<EpochCoordinator> made(new EpochCoordinator(io, topology));
  slot = made;
  return made;
}

EpochCoordinator::EpochCoordinator(boost::asio::io_context& io, std::string topology)
    : io_(io), topology_(std::move(topology)), ticker_(io) {}

EpochCoordinator::~EpochCoordinator() {
  gate_.Close();
  ticker_.Stop();
  producer_.reset();
  std::lock_guard lock(registry_mu);
  auto it = Registry().find({&io_, topology_});
  if (it != Registry().end() && it->second.expired()) Registry().erase(it);
}

void EpochCoordinator::Say(int level, const std::string& key, const std::string& text) {
  if (sources_.empty()) return;
  runtime::BuiltinCollector& out = *sources_.front().out;
  auto admitted = throttle_.Admit(key, text);
  if (!admitted) return;
  if (level >= 4) {
    out.ReportError(*admitted);
  } else {
    out.Log(level, *admitted);
  }
}

std::optional<std::string> EpochCoordinator::AddSource(int task_id, EpochSource* source,
                                                       const EpochSettings& settings,
                                                       runtime::BuiltinCollector& out) {
  sources_.push_back({task_id, source, &out});
  if (producer_) {
    joined_ = true;
    return std::nullopt;
  }
  settings_ = settings;
  ledger_ = EpochLedger(settings.limits);
  if (auto err = MakeProducer()) {
    sources_.pop_back();
    return err;
  }
  joined_ = true;
  Init();
  ticker_.Start(std::chrono::milliseconds(settings_.poll_interval_ms), [this] { Tick(); });
  return std::nullopt;
}

void EpochCoordinator::RemoveSource(EpochSource* source) {
  std::erase_if(sources_, [&](const Source& s) { return s.source == source; });
  Fail("a spout task closed while its epoch was in flight");
}

void EpochCoordinator::AddParticipant(EpochParticipant* p) {
  participants_.push_back(p);
}

void EpochCoordinator::RemoveParticipant(EpochParticipant* p) {
  std::erase(participants_, p);
  Fail("an aggregation task closed while its epoch was in flight");
}

std::optional<std::string> EpochCoordinator::MakeProducer() {
  std::string error;
  auto alive = gate_.ticket();
  producer_ = TxnProducer::Create(
      io_, settings_.bootstrap, settings_.transactional_id, settings_.producer_properties,
      [this, alive](int level, const std::string& key, const std::string& text) {
        if (alive) Say(level, key, text);
      },
      error);
  if (!producer_) return "cannot create the transactional producer: " + error;
  ready_ = false;
  return std::nullopt;
}

void EpochCoordinator::Init() {
  initializing_ = true;
  auto alive = gate_.ticket();
  producer_->Init([this, alive](const TxnResult& r) {
    if (!alive) return;
    initializing_ = false;
    if (r.ok()) {
      ready_ = true;
      Say(2, "init",
          "transactions ready (transactional.id `" + settings_.transactional_id +
              "`: an earlier run's open transaction, if any, was aborted)");
      for (auto& s : sources_) s.source->EpochOpened();  // the next MayEmit opens an epoch
      return;
    }
    Say(4, "init",
        "cannot initialize Kafka transactions (transactional.id `" + settings_.transactional_id +
            "`): " + r.error + "; retrying");
    retry_at_ = Clock::now() + kInitRetry;
    if (r.kind == TxnResult::Kind::kFatal) {
      boost::asio::post(io_, [this, alive, why = r.error] {
        if (alive) ReplaceProducer(why);
      });
    }
  });
}

void EpochCoordinator::ReplaceProducer(const std::string& why) {
  Say(3, "replace", "the transactional producer is made again (" + why + ")");
  producer_.reset();
  if (auto err = MakeProducer()) {
    Say(4, "replace", *err);
    retry_at_ = Clock::now() + kInitRetry;
    return;
  }
  Init();
}

bool EpochCoordinator::MayEmit() {
  if (ledger_.state() == EpochLedger::State::kIdle) {
    // Not opened now (the producer still busy, state being restored): the tick tries again,
    // and the spouts are woken when it opens. Epochs open only when a spout wants one, so an
    // idle topology makes no empty transactions.
    wanted_ = true;
    OpenEpoch();
  }
  return ledger_.MayEmit();
}

void EpochCoordinator::OpenEpoch() {
  if (!ready_ || !producer_ || producer_->Busy()) return;
  if (!restored_) {
    if (restoring_) return;
    restoring_ = true;
    auto waiting = std::make_shared<std::size_t>(participants_.size() + 1);
    auto alive = gate_.ticket();
    auto one_done = [this, alive, waiting](std::optional<std::string> error) {
      if (!alive) return;
      if (error) Say(4, "restore", *error);
      if (--*waiting > 0) return;
      restoring_ = false;
      restored_ = true;
      for (auto& s : sources_) s.source->EpochOpened();
    };
    for (EpochParticipant* p : participants_) p->Restore(one_done);
    one_done(std::nullopt);
    return;
  }
  TxnResult r = producer_->Begin();
  if (!r.ok()) {
    Say(4, "begin", "cannot begin a Kafka transaction: " + r.error);
    if (r.kind == TxnResult::Kind::kFatal) ReplaceProducer(r.error);
    return;
  }
  ledger_.Begun(Clock::now());
  wanted_ = false;
  PublishGauges();
  for (auto& s : sources_) s.source->EpochOpened();
}

void EpochCoordinator::Emitted() {
  ledger_.Emitted();
  if (ledger_.MaybeClose(Clock::now())) CheckComplete();
}

void EpochCoordinator::Progress() {
  if (ledger_.state() == EpochLedger::State::kDraining) CheckComplete();
}

void EpochCoordinator::CloseEpoch() {
  if (ledger_.CloseNow()) CheckComplete();
}

void EpochCoordinator::Fail(const std::string& why) {
  if (ledger_.Failed(why)) StartAbort();
}

void EpochCoordinator::Tick() {
  if (producer_) producer_->Poll();
  const auto now = Clock::now();
  if (!producer_ && now >= retry_at_) {
    ReplaceProducer("retrying");
    return;
  }
  if (producer_ && !ready_ && !initializing_ && now >= retry_at_) Init();
  if (ledger_.MaybeClose(now)) CheckComplete();
  if (ledger_.state() == EpochLedger::State::kDraining) CheckComplete();
  if (wanted_ && ledger_.state() == EpochLedger::State::kIdle) OpenEpoch();
  if (now >= next_gauges_) {
    next_gauges_ = now + kGaugesEvery;
    PublishGauges();
  }
}

void EpochCoordinator::CheckComplete() {
  std::int64_t outstanding = 0;
  for (const auto& s : sources_) outstanding += s.source->Outstanding();
  if (!ledger_.ReadyToCommit(outstanding)) return;
  for (EpochParticipant* p : participants_) {
    if (auto err = p->BeforeCommit()) {
      if (ledger_.CommitFailed(*err)) StartAbort();
      return;
    }
  }
  commit_started_ = Clock::now();
  Commit();
}

void EpochCoordinator::Commit() {
  std::map<std::string, PartitionListPtr> offsets;
  for (const auto& s : sources_) {
    auto& list = offsets[s.source->group_id()];
    if (!list) list = NewPartitionList(8);
    s.source->AppendOffsets(list.get());
  }
  auto copy = std::make_shared<std::map<std::string, PartitionListPtr>>();
  for (const auto& [group, list] : offsets) {
    (*copy)[group] = PartitionListPtr(rd_kafka_topic_partition_list_copy(list.get()));
  }
  auto alive = gate_.ticket();
  producer_->Commit(std::move(offsets), [this, alive, copy](const TxnResult& r) {
    if (!alive) return;
    switch (r.kind) {
      case TxnResult::Kind::kOk:
        Committed(*copy);
        return;
      case TxnResult::Kind::kRetriable: {
        Say(3, "commit",
            "epoch " + std::to_string(ledger_.epoch()) + ": " + r.error + "; retrying");
        auto t = std::make_shared<boost::asio::steady_timer>(io_, kCommitRetry);
        t->async_wait([this, alive, t](const boost::system::error_code& ec) {
          if (!ec && alive && ledger_.state() == EpochLedger::State::kCommitting) Commit();
        });
        return;
      }
      case TxnResult::Kind::kAbortable:
        if (ledger_.CommitFailed(r.error)) StartAbort();
        return;
      case TxnResult::Kind::kFatal:
        if (ledger_.CommitFailed(r.error)) {
          abort_pending_ = true;  // the new producer's init aborts the open transaction
          StartAbort();
          ReplaceProducer(r.error);
          abort_pending_ = false;
          AbortDone();
        }
        return;
    }
  });
}

void EpochCoordinator::Committed(const std::map<std::string, PartitionListPtr>& offsets) {
  ledger_.Committed();
  ++committed_;
  committed_records_ += static_cast<std::uint64_t>(ledger_.records());
  last_commit_ms_ =
      std::chrono::duration<double, std::milli>(Clock::now() - commit_started_).count();
  for (auto& s : sources_) {
    auto it = offsets.find(s.source->group_id());
    if (it != offsets.end()) s.source->EpochCommitted(it->second.get());
  }
  for (EpochParticipant* p : participants_) p->EpochCommitted();
  OpenEpoch();
}

void EpochCoordinator::StartAbort() {
  ++aborted_;
  std::string text =
      "epoch " + std::to_string(ledger_.epoch()) + " (" + std::to_string(ledger_.records()) +
      " records) aborted: " + ledger_.last_failure() + "; its records are read again";
  if (ledger_.consecutive_aborts() > 0) {
    text += " (" + std::to_string(ledger_.consecutive_aborts() + 1) + " aborts in a row)";
  }
  Say(3, "abort", text);
  for (EpochParticipant* p : participants_) p->EpochAborted();
  for (auto& s : sources_) s.source->Rewind();
  if (abort_pending_ || !producer_) return;
  auto alive = gate_.ticket();
  producer_->Abort([this, alive](const TxnResult& r) {
    if (!alive) return;
    if (!r.ok()) {
      // The next producer with this transactional.id aborts it for us.
      ReplaceProducer("aborting: " + r.error);
    }
    AbortDone();
  });
}

void EpochCoordinator::AbortDone() {
  ledger_.Aborted();
  PublishGauges();
  OpenEpoch();
}

bool EpochCoordinator::Producing() const {
  const auto s = ledger_.state();
  return ready_ && producer_ &&
         (s == EpochLedger::State::kOpen || s == EpochLedger::State::kDraining ||
          s == EpochLedger::State::kCommitting);
}

rd_kafka_resp_err_t EpochCoordinator::Produce(const std::string& topic,
                                              const std::optional<std::string>& key,
                                              const std::optional<std::string>& value,
                                              std::function<void(rd_kafka_resp_err_t)> delivered) {
  if (!Producing()) return RD_KAFKA_RESP_ERR__STATE;
  return producer_->Produce(topic, key, value, std::move(delivered));
}

EpochCoordinator::Input EpochCoordinator::Classify(const runtime::BuiltinTuple& t,
                                                   const runtime::BuiltinCollector& c) const {
  if (!t.roots || t.roots->empty()) return Input::kUntracked;
  const auto s = ledger_.state();
  if (s != EpochLedger::State::kOpen && s != EpochLedger::State::kDraining) return Input::kStale;
  for (const auto& edge : *t.roots) {
    auto origin = c.OriginOf(edge.root);
    if (!origin) return Input::kStale;
    const Source* from = nullptr;
    for (const auto& src : sources_) {
      if (src.task_id == origin->spout_task) from = &src;
    }
    if (!from) return Input::kUntracked;
    if (!from->source->Live(origin->message_id)) return Input::kStale;
  }
  return Input::kLive;
}

void EpochCoordinator::PublishGauges() {
  if (sources_.empty()) return;
  runtime::BuiltinCollector& out = *sources_.front().out;
  out.SetGauge("kafka.epoch", static_cast<double>(ledger_.epoch()));
  out.SetGauge("kafka.epoch_records", static_cast<double>(ledger_.records()));
  out.SetGauge("kafka.transactions_committed", static_cast<double>(committed_));
  out.SetGauge("kafka.transactions_aborted", static_cast<double>(aborted_));
  out.SetGauge("kafka.committed_records", static_cast<double>(committed_records_));
  out.SetGauge("kafka.commit_ms", last_commit_ms_);
}

}  // namespace sparse::kafka
