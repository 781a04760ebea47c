// sparse C++ component adapter — bolts.
//
//   class Split : public sparse::Bolt {
//     void process(const sparse::Tuple& t) override {
//       for (auto& word : words(t.get<std::string>(0))) emit({word});
//     }
//   };
//   int main() { return sparse::run<Split>(); }
#pragma once

#include <sparse/component.hpp>
#include <sparse/json.hpp>
#include <sparse/protocol.hpp>
#include <sparse/tuple.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace sparse {

/// Options of BoltBase::emit; chain the setters: BoltEmit().to_stream("words").without_task_ids().
struct BoltEmit {
  /// Output stream; empty means "default".
  std::string stream;
  /// Ids of the tuples to anchor to. Unset: the tuple(s) being processed when auto_anchor is on.
  std::optional<std::vector<json>> anchors;
  /// Non-zero: emit directly to this task (the host sends no task-id reply).
  int direct_task = 0;
  /// Ask the host which tasks received the tuple; emit then waits for the reply and returns it.
  bool need_task_ids = true;

  BoltEmit& to_stream(std::string stream_id) {
    stream = std::move(stream_id);
    return *this;
  }
  BoltEmit& anchored_to(const Tuple& tuple) { return anchored_to(tuple.id()); }
  BoltEmit& anchored_to(json tuple_id) {
    if (!anchors) anchors.emplace();
    anchors->push_back(std::move(tuple_id));
    return *this;
  }
  /// Emit without anchors even when auto_anchor is on.
  BoltEmit& unanchored() {
    anchors.emplace();
    return *this;
  }
  BoltEmit& to_task(int task) {
    direct_task = task;
    return *this;
  }
  BoltEmit& without_task_ids() {
    need_task_ids = false;
    return *this;
  }
};

namespace detail {
struct BoltAccess;
}

/// What every bolt shares: emit/ack/fail, the auto_* policies and tick handling. Derive from Bolt
/// (one tuple at a time) or BatchingBolt (tuples grouped into batches), not from this directly.
///
/// Threads: callbacks run on the component's main thread, one at a time. emit/ack/fail/log may
/// also be called from other threads (auto-anchoring then does not apply).
class BoltBase : public Component {
 public:
  /// Emits a tuple. `emit({word, 1})` builds the array from the listed values.
  /// Returns the receiving task ids when options.need_task_ids is set and the emit is not
  /// direct (this waits for the host's reply), otherwise an empty list without waiting.
  std::vector<int> emit(json::initializer_list_t values, const BoltEmit& options = BoltEmit()) {
    return emit(json::array(values), options);
  }
  /// Emits a tuple whose values are the JSON array `values` (sent in the host's format).
  std::vector<int> emit(const json& values, const BoltEmit& options = BoltEmit()) {
    detail::check_emit_values(values);
    const bool wants_reply = options.need_task_ids && options.direct_task == 0;
    const bool auto_anchored =
        !options.anchors && auto_anchor && current_count_ > 0 && on_dispatch_thread();
    const bool explicit_anchors = options.anchors && !options.anchors->empty();
    const std::size_t anchor_count =
        explicit_anchors ? options.anchors->size() : (auto_anchored ? current_count_ : 0);
    return detail::send_emit(link(), wants_reply, [&](auto& e) {
      e.begin_map(
          1u + (anchor_count > 0 ? 1u : 0u) +
          detail::emit_tail_entries(options.stream, options.direct_task, options.need_task_ids));
      e.key("command");
      e.literal("emit");
      if (anchor_count > 0) {
        e.key("anchors");
        e.begin_array(anchor_count);
        for (std::size_t i = 0; i < anchor_count; ++i) {
          e.value(explicit_anchors ? (*options.anchors)[i] : current_[i].id());
        }
        e.end_array();
      }
      detail::append_emit_tail(e, options.stream, options.direct_task, options.need_task_ids,
                               values);
    });
  }

  /// Acks a tuple. Acking the tuple being processed stops auto_ack/auto_fail from settling it
  /// again.
  void ack(const Tuple& tuple) {
    mark_settled(tuple);
    send_ack(tuple.id());
  }
  void ack(const json& tuple_id) {
    mark_settled(tuple_id);
    send_ack(tuple_id);
  }
  /// Fails a tuple (the spout's tuple tree is replayed or given up, as the spout decides).
  void fail(const Tuple& tuple) {
    mark_settled(tuple);
    send_fail(tuple.id());
  }
  void fail(const json& tuple_id) {
    mark_settled(tuple_id);
    send_fail(tuple_id);
  }

  /// Called for each tick tuple (`topology.tick.tuple.freq.secs`) with its frequency in seconds.
  /// The adapter acks the tick afterwards (fails it if this throws and auto_fail is on).
  virtual void process_tick(int freq_secs) { (void)freq_secs; }

 protected:
  BoltBase() = default;

  /// Ack each input tuple after its processing returns.
  bool auto_ack = true;
  /// Anchor emits made during processing to the input tuple(s) unless BoltEmit::anchors is set.
  bool auto_anchor = true;
  /// When processing throws: report the error and fail the input tuple(s). Otherwise only report.
  bool auto_fail = true;

  /// Marks `tuples` as the input being processed (for auto-anchoring and settle tracking) for the
  /// lifetime of the scope.
  class InputScope {
   public:
    InputScope(BoltBase& bolt, const Tuple* tuples, std::size_t count) : bolt_(bolt) {
      bolt_.current_ = tuples;
      bolt_.current_count_ = count;
      bolt_.settled_.assign(count, false);
      bolt_.dispatch_thread_ = std::this_thread::get_id();
    }
    ~InputScope() {
      bolt_.current_ = nullptr;
      bolt_.current_count_ = 0;
    }
    InputScope(const InputScope&) = delete;
    InputScope& operator=(const InputScope&) = delete;

   private:
    BoltBase& bolt_;
  };

  /// Acks (auto_ack) the inputs of the current scope that user code did not ack or fail.
  void settle_after_success() {
    if (!auto_ack) return;
    for (std::size_t i = 0; i < current_count_; ++i) {
      if (!settled_[i]) send_ack(current_[i].id());
    }
  }

  /// Reports `error` raised by `what` (e.g. "process()") and fails (auto_fail) the inputs of the
  /// current scope that user code did not ack or fail.
  void settle_after_exception(const char* what, const std::string& error) {
    std::string report = std::string(what) + " threw: " + error;
    if (current_count_ == 1) {
      report += " [tuple " + detail::excerpt(current_[0].id()) + " from " +
                current_[0].component() + ":" + current_[0].stream() + "]";
    } else if (current_count_ > 1) {
      report += " [batch of " + std::to_string(current_count_) + " tuples]";
    }
    report_error(report);
    if (!auto_fail) return;
    for (std::size_t i = 0; i < current_count_; ++i) {
      if (!settled_[i]) send_fail(current_[i].id());
    }
  }

  /// Runs `body` and turns an exception into settle_after_exception; Disconnected propagates.
  /// Returns true if body returned normally.
  template <class Body>
  bool run_guarded(const char* what, Body&& body) {
    try {
      body();
      return true;
    } catch (const Disconnected&) {
      throw;
    } catch (const std::exception& e) {
      settle_after_exception(what, e.what());
    } catch (...) {
      settle_after_exception(what, "an exception that is not a std::exception");
    }
    return false;
  }

 protected:
  /// A tuple from the host; the run loop hands it over by value.
  virtual void on_tuple(Tuple&& tuple) = 0;

  /// A tick tuple: process_tick, then ack the tick, or fail it if process_tick threw and
  /// auto_fail is on. Emits from process_tick are not anchored.
  virtual void on_tick(Tuple&& tick) {
    if (run_guarded("process_tick()", [&] { process_tick(tick_frequency(tick)); })) {
      send_ack(tick.id());
    } else if (auto_fail) {
      send_fail(tick.id());
    }
  }

 private:
  friend struct detail::BoltAccess;

  static int tick_frequency(const Tuple& tick) {
    if (tick.size() > 0 && tick[0].is_number_integer()) return tick[0].get<int>();
    return 0;
  }

  void send_ack(const json& id) {
    link().output().send([&](auto& e) { detail::message::ack(e, id); });
  }
  void send_fail(const json& id) {
    link().output().send([&](auto& e) { detail::message::fail(e, id); });
  }

  bool on_dispatch_thread() const { return std::this_thread::get_id() == dispatch_thread_; }

  void mark_settled(const Tuple& tuple) {
    if (current_count_ == 0 || !on_dispatch_thread()) return;
    if (&tuple >= current_ && &tuple < current_ + current_count_) {
      settled_[static_cast<std::size_t>(&tuple - current_)] = true;
    } else {
      mark_settled(tuple.id());  // a copy of an input tuple
    }
  }
  void mark_settled(const json& id) {
    if (current_count_ == 0 || !on_dispatch_thread()) return;
    for (std::size_t i = 0; i < current_count_; ++i) {
      if (current_[i].id() == id) settled_[i] = true;
    }
  }

  const Tuple* current_ = nullptr;
  std::size_t current_count_ = 0;
  std::vector<bool> settled_;
  std::thread::id dispatch_thread_;
};

/// A bolt that handles one tuple at a time: override process().
/// After process returns the tuple is acked (auto_ack); if it throws, the error is reported and
/// the tuple failed (auto_fail) and the bolt goes on with the next tuple.
class Bolt : public BoltBase {
 public:
  virtual void process(const Tuple& tuple) = 0;

 protected:
  void on_tuple(Tuple&& tuple) final {
    InputScope scope(*this, &tuple, 1);
    if (run_guarded("process()", [&] { process(tuple); })) settle_after_success();
  }
};

namespace detail {

struct BoltAccess {
  static void dispatch(BoltBase& bolt, Tuple&& tuple) {
    if (tuple.is_tick()) {
      bolt.on_tick(std::move(tuple));
    } else {
      bolt.on_tuple(std::move(tuple));
    }
  }
};

}  // namespace detail
}  // namespace sparse
