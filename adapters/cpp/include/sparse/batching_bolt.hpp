// sparse C++ component adapter — a bolt that processes tuples in batches.
//
//   class SaveCounts : public sparse::BatchingBolt {
//    public:
//     SaveCounts() { batch_size = 500; }  // and on every tick
//     std::string group_key(const sparse::Tuple& t) override { return t.get<std::string>(0); }
//     void process_batch(const std::string& key, const std::vector<sparse::Tuple>& batch) override;
//   };
#pragma once

#include <sparse/bolt.hpp>
#include <sparse/tuple.hpp>

#include <cstddef>
#include <iterator>
#include <list>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sparse {

/// Collects tuples into batches keyed by group_key() and hands each batch to process_batch():
///  - a batch is processed as soon as it holds `batch_size` tuples (if batch_size > 0), and
///  - every batch is processed on each tick tuple, so set topology.tick.tuple.freq.secs for the
///    bolt, or partial batches wait until they fill up; process_tick() runs after that flush.
/// The auto_* policies apply per batch: after process_batch returns every tuple of the batch is
/// acked; if it throws, the error is reported and every tuple failed; emits inside process_batch
/// are anchored to every tuple of the batch. Batches are processed in the order their keys first
/// arrived. Tuples still batched when the input ends are neither acked nor failed (the host is
/// gone). Same behaviour as the Python adapter's BatchingBolt.
class BatchingBolt : public BoltBase {
 public:
  /// The batch a tuple belongs to. Default: one batch for everything.
  virtual std::string group_key(const Tuple& tuple) {
    (void)tuple;
    return std::string();
  }

  /// Processes one batch (never empty).
  virtual void process_batch(const std::string& key, const std::vector<Tuple>& tuples) = 0;

  /// Processes every pending batch now.
  void flush_batches() {
    std::list<Batch> batches;
    batches.swap(batches_);
    index_.clear();
    for (auto& batch : batches) run_batch(batch);
  }

  /// Number of tuples waiting in batches.
  std::size_t pending_tuples() const { return pending_; }

 protected:
  BatchingBolt() = default;

  /// Process a batch as soon as it holds this many tuples; 0: only on ticks.
  std::size_t batch_size = 100;

  void on_tuple(Tuple&& tuple) final {
    std::string key;
    {
      InputScope scope(*this, &tuple, 1);
      if (!run_guarded("group_key()", [&] { key = group_key(tuple); })) return;
    }
    auto found = index_.find(key);
    if (found == index_.end()) {
      batches_.push_back(Batch{key, {}});
      found = index_.emplace(std::move(key), std::prev(batches_.end())).first;
    }
    const auto batch = found->second;
    batch->tuples.push_back(std::move(tuple));
    ++pending_;
    if (batch_size > 0 && batch->tuples.size() >= batch_size) {
      Batch full = std::move(*batch);
      batches_.erase(batch);
      index_.erase(found);
      run_batch(full);
    }
  }

  void on_tick(Tuple&& tick) override {
    flush_batches();
    BoltBase::on_tick(std::move(tick));
  }

 private:
  struct Batch {
    std::string key;
    std::vector<Tuple> tuples;
  };

  void run_batch(Batch& batch) {
    pending_ -= batch.tuples.size();
    InputScope scope(*this, batch.tuples.data(), batch.tuples.size());
    if (run_guarded("process_batch()", [&] { process_batch(batch.key, batch.tuples); })) {
      settle_after_success();
    }
  }

  std::list<Batch> batches_;  // in the order their keys first arrived
  std::unordered_map<std::string, std::list<Batch>::iterator> index_;
  std::size_t pending_ = 0;
};

}  // namespace sparse
