// sparse C++ component adapter — spouts.
//
//   class Numbers : public sparse::Spout {
//     long long next_ = 0;
//     void next_tuple() override { emit({next_}, sparse::SpoutEmit().with_id(next_)); ++next_; }
//     void fail(const sparse::json& id) override { /* replay id */ }
//   };
//   int main() { return sparse::run<Numbers>(); }
#pragma once

#include <sparse/component.hpp>
#include <sparse/json.hpp>

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace sparse {

/// Options of Spout::emit; chain the setters: SpoutEmit().with_id(42).to_stream("numbers").
struct SpoutEmit {
  /// Message id for reliable processing: the host later calls ack(id) or fail(id) with exactly
  /// this value. Any JSON value; null (the default) emits an unreliable tuple.
  json message_id;
  /// Output stream; empty means "default".
  std::string stream;
  /// Non-zero: emit directly to this task (the host sends no task-id reply).
  int direct_task = 0;
  /// Ask the host which tasks received the tuple; emit then waits for the reply and returns it.
  bool need_task_ids = true;

  SpoutEmit& with_id(json id) {
    message_id = std::move(id);
    return *this;
  }
  SpoutEmit& to_stream(std::string stream_id) {
    stream = std::move(stream_id);
    return *this;
  }
  SpoutEmit& to_task(int task) {
    direct_task = task;
    return *this;
  }
  SpoutEmit& without_task_ids() {
    need_task_ids = false;
    return *this;
  }
};

/// A spout: the host calls next_tuple() whenever it wants tuples and ack()/fail() with the message
/// ids of emitted tuples. The protocol is synchronous: the adapter answers each call with one
/// `sync` after the callback returns, sending the callback's emits together with it.
/// An exception from a callback is reported to the host; the spout keeps running.
class Spout : public Component {
 public:
  /// Emit zero or more tuples. Called again about every millisecond when nothing was emitted.
  virtual void next_tuple() = 0;
  /// The tuple tree of message `id` completed.
  virtual void ack(const json& id) { (void)id; }
  /// The tuple tree of message `id` failed or timed out.
  virtual void fail(const json& id) { (void)id; }
  virtual void activate() {}
  virtual void deactivate() {}

  /// Emits a tuple. `emit({line})` builds the array from the listed values.
  /// Returns the receiving task ids when options.need_task_ids is set and the emit is not direct
  /// (the host replies at once), otherwise an empty list.
  std::vector<int> emit(json::initializer_list_t values, const SpoutEmit& options = SpoutEmit()) {
    return emit(json::array(values), options);
  }
  /// Emits a tuple whose values are the JSON array `values`.
  std::vector<int> emit(const json& values, const SpoutEmit& options = SpoutEmit()) {
    detail::check_emit_values(values);
    const bool wants_reply = options.need_task_ids && options.direct_task == 0;
    const bool has_id = !options.message_id.is_null();
    return detail::send_emit(link(), wants_reply, [&](auto& e) {
      e.begin_map(
          1u + (has_id ? 1u : 0u) +
          detail::emit_tail_entries(options.stream, options.direct_task, options.need_task_ids));
      e.key("command");
      e.literal("emit");
      if (has_id) {
        e.key("id");
        e.value(options.message_id);
      }
      detail::append_emit_tail(e, options.stream, options.direct_task, options.need_task_ids,
                               values);
    });
  }

 protected:
  Spout() = default;
};

}  // namespace sparse
