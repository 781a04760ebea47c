// The execution plan: a validated topology with task ids assigned and every name turned into an
// index, so the data path never looks up strings.
//
// Task ids follow Storm: components sorted by id, tasks numbered from 1 in that order.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/index.hpp"
#include "multilang/serializer.hpp"
#include "runtime/topology.hpp"

namespace sparse::runtime {

struct PlannedStream {
  std::string id;
  std::vector<std::string> fields;
  bool direct = false;
};

struct Subscription {
  int target_component = 0;
  GroupingType type = GroupingType::kShuffle;
  std::vector<int> field_indices;  // into the source stream's fields
};

struct PlannedComponent {
  const ComponentDef* def = nullptr;
  std::string id;
  std::vector<int> tasks;  // global task ids
  std::vector<PlannedStream> streams;
  std::unordered_map<std::string, int> stream_index;  // stream id -> index into streams
  // subscribers[stream index] = who reads that stream, and how.
  std::vector<std::vector<Subscription>> subscribers;
  nlohmann::json config;  // effective: defaults < topology < component < overrides
  multilang::Serializer serializer = multilang::Serializer::kJson;  // what a shell child speaks

  const PlannedStream& stream(int index) const { return streams[base::Idx(index)]; }
};

struct Plan {
  const Topology* topology = nullptr;
  nlohmann::json topology_config;            // defaults < topology < overrides
  std::vector<PlannedComponent> components;  // sorted by id
  std::vector<int> task_component;           // task id -> component index (index 0 unused)
  std::vector<int> task_index;               // task id -> index among its component's tasks
  // Storm's `task->component` map of the handshake context, as JSON text: the same for every
  // task, so it is built once (a handshake per task would otherwise cost O(tasks) each).
  std::string task_to_component_json;
  int num_tasks() const { return static_cast<int>(task_component.size()) - 1; }
  int FindComponent(std::string_view id) const;

  // Lookups by the ints the data path carries; each must be in range (see base/index.hpp).
  const PlannedComponent& component(int index) const { return components[base::Idx(index)]; }
  int ComponentIndexOfTask(int task) const { return task_component[base::Idx(task)]; }
  const PlannedComponent& ComponentOfTask(int task) const {
    return component(ComponentIndexOfTask(task));
  }
};

// Builds the plan. The topology must have passed validation and outlive the plan. Throws
// TopologyError (naming the largest component's file and line) when the tasks would exceed
// `sparse.max.tasks`, before allocating anything per task.
Plan MakePlan(const Topology& topology, const nlohmann::json& overrides);

}  // namespace sparse::runtime
