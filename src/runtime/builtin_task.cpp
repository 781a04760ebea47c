#include "runtime/builtin_task.hpp"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <cassert>

#include "multilang/messages.hpp"

namespace sparse::runtime {

BuiltinTask::BuiltinTask(TaskHost& host, TupleHost& tuple_host, int task_id,
                         std::unique_ptr<BuiltinComponent> impl)
    : Task(host, task_id), tuple_host_(tuple_host), impl_(std::move(impl)) {}

void BuiltinTask::CloseOnDestroy() {
  gate_.Close();
  if (open_) impl_->Close();
}

void BuiltinTask::Start() {
  const auto& plan = host_.plan();
  if (auto err = impl_->Open(cdef_.config, id_, plan.task_index[base::Idx(id_)],
                             static_cast<int>(cdef_.tasks.size()), *this, host_.io())) {
    FailureReport r;
    r.task = id_;
    r.component = cdef_.id;
    r.reason = "built-in `" + cdef_.def->builtin + "` failed to open: " + *err;
    r.during_start = true;
    host_.TaskFailed(std::move(r));
    return;
  }
  open_ = true;
  host_.TaskReady(id_);
  OnOpened();
}

void BuiltinTask::Terminate() {
  if (!open_) return;
  open_ = false;
  OnClosing();
  impl_->Close();
}

void BuiltinTask::Abort() {
  OnAbort();
  Terminate();
}

void BuiltinTask::Fatal(const std::string& reason) {
  if (!open_) return;
  auto alive = gate_.ticket();
  boost::asio::post(host_.io(), [this, alive, reason] {
    if (!alive || !open_) return;
    Abort();  // fails the inputs in flight, closes the component
    OnFatal();
    FailureReport r;
    r.task = id_;
    r.component = cdef_.id;
    r.reason = "built-in `" + cdef_.def->builtin + "` failed: " + reason;
    host_.TaskFailed(std::move(r));
  });
}

std::optional<TreeOrigin> BuiltinTask::OriginOf(std::uint64_t root) const {
  int spout_task = 0;
  const std::string* message_id = nullptr;
  if (!tuple_host_.acker().Origin(root, spout_task, message_id)) return std::nullopt;
  return TreeOrigin{spout_task, *message_id};
}

std::shared_ptr<EmittedTuple> BuiltinTask::NewTuple(const std::string& stream,
                                                    std::string values_json) {
  auto it = cdef_.stream_index.find(stream);
  if (it == cdef_.stream_index.end()) {
    ReportError("emit to undeclared stream `" + stream + "`: tuple dropped");
    stats_.dropped++;
    return nullptr;
  }
  auto t = NewEmittedTuple();
  t->values_json = std::move(values_json);
  t->source_task = id_;
  t->source_component = component_;
  t->stream = it->second;
  return t;
}

std::shared_ptr<const EmittedTuple> BuiltinTask::Prepare(const std::string& stream,
                                                         std::string values_json) {
  auto t = NewTuple(stream, std::move(values_json));
  if (!t) return nullptr;
  // Built-in components carry untrusted data too (a Kafka record): checked like a child's emit.
  if (auto err = ValidateTuple(t->values_json, t->spans)) {
    ReportError("emit of values that are not a valid JSON array (" + *err +
                "): tuple dropped: " + multilang::Truncate(t->values_json));
    stats_.dropped++;
    return nullptr;
  }
  return t;
}

std::shared_ptr<const EmittedTuple> BuiltinTask::PrepareEncoded(const std::string& stream,
                                                                std::string values_json,
                                                                const ValueSpans& spans) {
  auto t = NewTuple(stream, std::move(values_json));
  if (!t) return nullptr;
  t->spans = spans;
#ifndef NDEBUG
  // The producer's promise, checked where asserts are on (the sanitizer build's tests).
  ValueSpans checked;
  assert(!ValidateTuple(t->values_json, checked) && checked == spans);
#endif
  return t;
}

const std::vector<int>& BuiltinTask::Emit(const std::string& stream, std::string values_json,
                                          const std::string& message_id_json,
                                          const std::vector<std::string>& anchors,
                                          std::optional<int> direct_task) {
  targets_.clear();
  auto t = Prepare(stream, std::move(values_json));
  if (!t) {
    Dropped(message_id_json);
    return targets_;
  }
  return Send(std::move(t), message_id_json, anchors, direct_task);
}

const std::vector<int>& BuiltinTask::EmitPrepared(std::shared_ptr<const EmittedTuple> tuple,
                                                  const std::string& message_id_json) {
  targets_.clear();
  if (!tuple) {
    Dropped(message_id_json);
    return targets_;
  }
  return Send(std::move(tuple), message_id_json, {}, std::nullopt);
}

bool BuiltinTask::RouteEmit(const EmittedTuple& tuple, std::optional<int> direct_task) {
  targets_.clear();
  std::optional<std::int64_t> direct;
  if (direct_task) direct = *direct_task;
  if (auto err = tuple_host_.Route(id_, tuple, direct, targets_)) {
    ReportError(*err + ": tuple dropped");
    stats_.dropped++;
    targets_.clear();
    return false;
  }
  stats_.emitted++;
  stats_.transferred += targets_.size();
  return true;
}

void BuiltinTask::Log(int level, const std::string& msg) {
  stats_.logs++;
  host_.Log(id_, static_cast<multilang::LogLevel>(std::clamp(level, 0, 4)), msg);
}

void BuiltinTask::ReportError(const std::string& msg) {
  stats_.errors++;
  host_.ReportError(id_, msg);
}

}  // namespace sparse::runtime
