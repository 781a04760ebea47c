// sparse C++ component adapter — what spouts and bolts share: configuration, context, logging,
// error reports, metrics, and the connection to the host set up by sparse::run.
#pragma once

#include <sparse/json.hpp>
#include <sparse/protocol.hpp>

#include <cstddef>
#include <cstdint>
#include <iostream>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sparse {

/// Levels of Component::log, as numbered on the wire.
enum class LogLevel : int { trace = 0, debug = 1, info = 2, warn = 3, error = 4 };

namespace detail {

/// What a component needs from the run loop that drives it.
class Link {
 public:
  explicit Link(Output& output) : output_(output) {}
  Link(const Link&) = delete;
  Link& operator=(const Link&) = delete;
  virtual ~Link() = default;

  Output& output() { return output_; }

  /// Flushes the output, then blocks until the host's next task-id reply (a bare array).
  /// Throws Disconnected if input ends first, ProtocolError if the reply is malformed.
  virtual std::vector<int> await_task_ids() = 0;

  /// Held from writing an emit until its reply arrives, so replies pair with their emits even
  /// when several threads emit.
  std::mutex& reply_mutex() { return reply_mutex_; }

 private:
  Output& output_;
  std::mutex reply_mutex_;
};

inline std::vector<int> to_task_ids(const json& reply) {
  std::vector<int> ids;
  if (reply.is_array()) {
    ids.reserve(reply.size());
    for (const json& id : reply) {
      if (!id.is_number_integer()) break;
      ids.push_back(id.get<int>());
    }
    if (ids.size() == reply.size()) return ids;
  }
  throw ProtocolError("the host's task-id reply is not a list of integers: " + excerpt(reply));
}

/// Map entries append_emit_tail writes.
inline std::size_t emit_tail_entries(const std::string& stream, int task, bool need_task_ids) {
  return std::size_t{1} + (stream.empty() ? 0u : 1u) + (task != 0 ? 1u : 0u) +
         (need_task_ids ? 0u : 1u);
}

/// The entries every emit ends with, and the end of its map. `task` 0 means not direct, as in
/// Storm.
template <class Encoder>
SPARSE_ENCODER_INLINE void append_emit_tail(Encoder& e, const std::string& stream, int task,
                                            bool need_task_ids, const json& values) {
  if (!stream.empty()) {
    e.key("stream");
    e.text(stream);
  }
  if (task != 0) {
    e.key("task");
    e.integer(task);
  }
  if (!need_task_ids) {
    e.key("need_task_ids");
    e.boolean(false);
  }
  e.key("tuple");
  e.value(values);
  e.end_map();
}

inline void check_emit_values(const json& values) {
  if (!values.is_array()) {
    throw std::invalid_argument(std::string("emit: tuple values must be a JSON array, got ") +
                                values.type_name() + " " + excerpt(values));
  }
}

/// Sends an emit composed by `compose`; if a reply is due, waits for it and returns the task ids.
template <class Compose>
std::vector<int> send_emit(Link& link, bool wants_reply, Compose&& compose) {
  if (!wants_reply) {
    link.output().send(compose);
    return {};
  }
  std::lock_guard<std::mutex> lock(link.reply_mutex());
  link.output().send(compose);
  return link.await_task_ids();
}

struct ComponentAccess;

}  // namespace detail

/// Base of Spout and Bolt. Not copyable. All members may be called from any thread once the
/// component runs; calls made before sparse::run connects it (e.g. from a constructor) go to
/// stderr for log/report_error and throw std::logic_error for the rest.
class Component {
 public:
  Component(const Component&) = delete;
  Component& operator=(const Component&) = delete;
  virtual ~Component() = default;

  /// Called once after the handshake, before the first tuple or command. An exception here is
  /// reported and ends the component with exit code 1. `conf` is the topology configuration,
  /// `context` Storm's topology context (taskid, componentid, task->component, streams, ...).
  virtual void initialize(const json& conf, const json& context) {
    (void)conf;
    (void)context;
  }

  /// Sends a log message to the host's log (level trace..error; info by default).
  void log(std::string_view message, LogLevel level = LogLevel::info) {
    if (!link_) {
      std::cerr << "sparse: log before the component runs: " << message << '\n';
      return;
    }
    link_->output().send(
        [&](auto& e) { detail::message::log(e, message, static_cast<int>(level)); });
  }

  /// Reports an error to the host (shown as the component's error); the component keeps running.
  void report_error(std::string_view message) {
    if (!link_) {
      std::cerr << "sparse: error before the component runs: " << message << '\n';
      return;
    }
    link_->output().send([&](auto& e) { detail::message::error(e, message); });
  }

  /// Sends a `metrics` command. (Apache Storm only accepts metrics a Java subclass registered.)
  void send_metrics(std::string_view name, const json& params) {
    link().output().send([&](auto& e) { detail::message::metrics(e, name, params); });
  }

  /// Writes buffered messages now. The adapter flushes by itself when a callback returns, before
  /// waiting for input and at least every millisecond between tuples; call this inside a long
  /// callback to let earlier emits leave before it returns.
  void flush() { link().output().flush(); }

  const json& conf() const { return conf_; }
  const json& context() const { return context_; }
  /// This task's id and component id, from the context (0 and "" before initialize).
  std::int64_t task_id() const { return task_id_; }
  const std::string& component_id() const { return component_id_; }

 protected:
  Component() = default;

  detail::Link& link() {
    if (!link_) {
      throw std::logic_error(
          "sparse: the component is not connected (emit/ack/fail work from initialize() on, "
          "inside sparse::run)");
    }
    return *link_;
  }

 private:
  friend struct detail::ComponentAccess;

  detail::Link* link_ = nullptr;
  json conf_;
  json context_;
  std::int64_t task_id_ = 0;
  std::string component_id_;
};

namespace detail {

struct ComponentAccess {
  static void attach(Component& component, Link* link, json conf, json context) {
    component.link_ = link;
    component.conf_ = std::move(conf);
    component.context_ = std::move(context);
    if (!component.context_.is_object()) return;
    auto task = component.context_.find("taskid");
    if (task != component.context_.end() && task->is_number_integer()) {
      component.task_id_ = task->get<std::int64_t>();
    }
    auto id = component.context_.find("componentid");
    if (id != component.context_.end() && id->is_string()) {
      component.component_id_ = id->get<std::string>();
    }
  }
  static void detach(Component& component) { component.link_ = nullptr; }
};

}  // namespace detail
}  // namespace sparse
