#include "component_harness.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

namespace sparse::kafka::testing {

bool RecordingCollector::HasErrorContaining(const std::string& text) const {
  for (const auto& e : errors) {
    if (e.find(text) != std::string::npos) return true;
  }
  return false;
}

Host::Host(std::unique_ptr<runtime::BuiltinComponent> component, nlohmann::json conf,
           int task_index, int num_tasks)
    : component_(std::move(component)),
      conf_(std::move(conf)),
      task_index_(task_index),
      num_tasks_(num_tasks) {}

Host::~Host() {
  Close();
}

std::optional<std::string> Host::Open() {
  auto err = component_->Open(conf_, task_index_ + 1, task_index_, num_tasks_, out_, io_);
  open_ = !err;
  return err;
}

void Host::Activate() {
  active_ = true;
  component_->Activate();
}

void Host::Deactivate() {
  active_ = false;
  component_->Deactivate();
}

void Host::Close() {
  if (!open_) return;
  open_ = false;
  if (active_) component_->Deactivate();
  component_->Close();
}

void Host::Turn() {
  if (active_) component_->NextTuple();
  io_.restart();
  io_.run_for(std::chrono::milliseconds(1));
}

bool Host::RunUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    Turn();
  }
  return done();
}

void Host::RunFor(std::chrono::milliseconds d) {
  const auto deadline = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < deadline) Turn();
}

std::shared_ptr<const runtime::EmittedTuple> RecordingCollector::Prepare(const std::string& stream,
                                                                         std::string values_json) {
  auto t = std::make_shared<runtime::EmittedTuple>();
  t->values_json = std::move(values_json);
  if (auto err = runtime::ValidateTuple(t->values_json, t->spans)) {
    ADD_FAILURE() << "prepared values are not a valid JSON array (" << *err
                  << "): " << t->values_json;
    return nullptr;
  }
  auto it = std::find(streams.begin(), streams.end(), stream);
  t->stream = static_cast<int>(it - streams.begin());
  if (it == streams.end()) streams.push_back(stream);
  return t;
}

std::int64_t OffsetOf(const RecordingCollector::Emitted& e) {
  return e.values.at(2).get<std::int64_t>();
}
int PartitionOf(const RecordingCollector::Emitted& e) {
  return e.values.at(1).get<int>();
}

const RecordingCollector::Emitted* Host::Find(int partition, std::int64_t offset) const {
  for (auto it = out_.emits.rbegin(); it != out_.emits.rend(); ++it) {
    if (PartitionOf(*it) == partition && OffsetOf(*it) == offset) return &*it;
  }
  return nullptr;
}

void Host::AckOffset(int partition, std::int64_t offset) {
  const auto* e = Find(partition, offset);
  if (!e) throw std::runtime_error("no emit for offset " + std::to_string(offset));
  component_->Ack(e->message_id);
}

void Host::FailOffset(int partition, std::int64_t offset) {
  const auto* e = Find(partition, offset);
  if (!e) throw std::runtime_error("no emit for offset " + std::to_string(offset));
  component_->Fail(e->message_id);
}

int Host::TimesEmitted(int partition, std::int64_t offset) const {
  int n = 0;
  for (const auto& e : out_.emits) n += (PartitionOf(e) == partition && OffsetOf(e) == offset);
  return n;
}

std::string Host::Execute(const std::vector<std::string>& fields, const std::string& values_json) {
  auto t = std::make_unique<runtime::EmittedTuple>();
  t->values_json = values_json;
  if (!runtime::SplitJsonArray(t->values_json, t->spans)) {
    throw std::runtime_error("not a JSON array: " + values_json);
  }
  auto& interned = field_lists_[fields];  // one list per stream, as in the runtime
  if (!interned) interned = std::make_unique<std::vector<std::string>>(fields);
  runtime::BuiltinTuple bt;
  bt.id = std::to_string(next_tuple_id_++);
  bt.tuple = t.get();
  bt.component = "source";
  bt.stream = "default";
  bt.fields = interned.get();
  tuples_.push_back(std::move(t));
  component_->Execute(bt);
  return bt.id;
}

}  // namespace sparse::kafka::testing
