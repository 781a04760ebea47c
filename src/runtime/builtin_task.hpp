// What the tasks that host a BuiltinComponent inside the runtime share (BuiltinSpoutTask,
// BuiltinBoltTask): opening and closing the component, making its tuples (checked like a child's
// emit), routing them, its logs, errors, gauges and fatal errors. Same semantics as shell tasks
// (acking, anchoring, pacing, max pending), but no process and no serialization.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/lifetime_gate.hpp"
#include "runtime/builtin.hpp"
#include "runtime/task.hpp"

namespace sparse::runtime {

class BuiltinTask : public Task, public BuiltinCollector {
 public:
  void Start() override;
  void Terminate() override;
  void Kill() override { Terminate(); }
  // Fails the inputs in flight (a bolt's) and closes the component.
  void Abort() override;
  bool Alive() const override { return open_; }
  bool Ready() const override { return open_; }

  // BuiltinCollector: what spouts and bolts share. Emit is Prepare (the tuple: null, reported
  // and counted, when it cannot be made) + Send (routing and delivery, by the side).
  const std::vector<int>& Emit(const std::string& stream, std::string values_json,
                               const std::string& message_id_json,
                               const std::vector<std::string>& anchors,
                               std::optional<int> direct_task) override;
  std::shared_ptr<const EmittedTuple> Prepare(const std::string& stream,
                                              std::string values_json) override;
  std::shared_ptr<const EmittedTuple> PrepareEncoded(const std::string& stream,
                                                     std::string values_json,
                                                     const ValueSpans& spans) override;
  const std::vector<int>& EmitPrepared(std::shared_ptr<const EmittedTuple> tuple,
                                       const std::string& message_id_json) override;
  void Log(int level, const std::string& msg) override;
  void ReportError(const std::string& msg) override;
  void SetGauge(const std::string& name, double value) override { stats_.gauges[name] = value; }
  void Fatal(const std::string& reason) override;
  std::optional<TreeOrigin> OriginOf(std::uint64_t root) const override;

 protected:
  BuiltinTask(TaskHost& host, TupleHost& tuple_host, int task_id,
              std::unique_ptr<BuiltinComponent> impl);
  // The final classes call it first thing in their destructors, so that the component's Close
  // may still reach everything of theirs.
  void CloseOnDestroy();

  // The component opened (Start): begin work.
  virtual void OnOpened() {}
  // The component is about to close (Terminate): stop the timers that would call it.
  virtual void OnClosing() {}
  // Abort: fail what is in flight.
  virtual void OnAbort() {}
  // After Abort on a fatal error, before the failure is reported.
  virtual void OnFatal() {}
  // Routes and delivers a tuple that was made; returns the receiving tasks (targets_).
  virtual const std::vector<int>& Send(std::shared_ptr<const EmittedTuple> tuple,
                                       const std::string& message_id_json,
                                       const std::vector<std::string>& anchors,
                                       std::optional<int> direct_task) = 0;
  // A tuple that could not be made or routed (reported and counted already).
  virtual void Dropped(const std::string& /*message_id_json*/) {}

  // Chooses the receivers into targets_. An emit the topology does not allow is reported and
  // counted as dropped (false, targets_ empty); otherwise counts the emit (true).
  bool RouteEmit(const EmittedTuple& tuple, std::optional<int> direct_task);

  TupleHost& tuple_host_;
  std::unique_ptr<BuiltinComponent> impl_;
  bool open_ = false;
  std::vector<int> targets_;
  base::LifetimeGate gate_;

 private:
  // A tuple on `stream` holding `values_json`, spans not yet set; null (reported and counted)
  // when the component did not declare the stream.
  std::shared_ptr<EmittedTuple> NewTuple(const std::string& stream, std::string values_json);
};

}  // namespace sparse::runtime
