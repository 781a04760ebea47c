// MakePlan on small topologies: task ids, streams and subscriptions as indices, the task map of the
// handshake, and the task limit. (Config precedence and task numbering across components are in
// context_config_test.cpp, serializers in topology_loader_test.cpp.)
#include "runtime/plan.hpp"

#include <gtest/gtest.h>

#include "runtime/builtin_registry.hpp"
#include "runtime/config.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"

namespace sparse::runtime {
namespace {

// Sorted by id: a (task 1), b (tasks 2-4), s (tasks 5-6), whatever the file order.
constexpr const char* kPlanTopology = R"(name: planned
spouts:
  - id: s
    command: [x]
    parallelism: 2
    streams:
      default: [word, n]
      side: {fields: [k], direct: true}
      quiet: [q]
bolts:
  - id: b
    command: [x]
    parallelism: 3
    outputs: [c]
    inputs:
      - {from: s, grouping: fields, fields: [n, word]}
      - {from: s, stream: side, grouping: direct}
  - id: a
    command: [x]
    inputs:
      - {from: s, grouping: partial_key, fields: [n]}
      - {from: b, grouping: global}
)";

Topology LoadPlanTopology(const std::string& yaml) {
  const BuiltinRegistry no_builtins;  // these topologies run commands only
  Topology t = LoadTopologyFromString(yaml, "/tmp/plan/topo.yaml", no_builtins);
  for (const auto& d : ValidateTopology(t, no_builtins)) ADD_FAILURE() << d.message;
  return t;
}

const PlannedComponent& PlannedById(const Plan& plan, std::string_view id) {
  const int i = plan.FindComponent(id);
  EXPECT_GE(i, 0) << id;
  return plan.components.at(static_cast<std::size_t>(i));
}

TEST(MakePlan, TasksAreNumberedFromOneInComponentIdOrder) {
  const Topology t = LoadPlanTopology(kPlanTopology);
  const Plan p = MakePlan(t, nlohmann::json::object());
  EXPECT_EQ(p.topology, &t);
  ASSERT_EQ(p.components.size(), 3u);
  EXPECT_EQ(p.components[0].id, "a");
  EXPECT_EQ(p.components[1].id, "b");
  EXPECT_EQ(p.components[2].id, "s");
  for (const auto& c : p.components) EXPECT_EQ(c.def, t.Find(c.id)) << c.id;
  EXPECT_EQ(p.components[0].tasks, std::vector<int>{1});
  EXPECT_EQ(p.components[1].tasks, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(p.components[2].tasks, (std::vector<int>{5, 6}));
  ASSERT_EQ(p.num_tasks(), 6);
  EXPECT_EQ(p.task_component, (std::vector<int>{-1, 0, 1, 1, 1, 2, 2}));
  EXPECT_EQ(p.task_index, (std::vector<int>{-1, 0, 0, 1, 2, 0, 1}));
  EXPECT_EQ(
      nlohmann::json::parse(p.task_to_component_json),
      (nlohmann::json{{"1", "a"}, {"2", "b"}, {"3", "b"}, {"4", "b"}, {"5", "s"}, {"6", "s"}}));
  EXPECT_EQ(p.FindComponent("nope"), -1);
  EXPECT_EQ(p.topology_config[keys::kTopologyName], "planned");
}

TEST(MakePlan, StreamsKeepTheirFieldsAndDirectness) {
  const Topology t = LoadPlanTopology(kPlanTopology);
  const Plan p = MakePlan(t, nlohmann::json::object());
  const auto& s = PlannedById(p, "s");
  ASSERT_EQ(s.streams.size(), 3u);
  ASSERT_EQ(s.stream_index.size(), 3u);
  ASSERT_EQ(s.subscribers.size(), 3u);
  for (const auto& [id, i] : s.stream_index) EXPECT_EQ(s.streams.at(i).id, id);
  const auto& def = s.streams[s.stream_index.at("default")];
  EXPECT_EQ(def.fields, (std::vector<std::string>{"word", "n"}));
  EXPECT_FALSE(def.direct);
  const auto& side = s.streams[s.stream_index.at("side")];
  EXPECT_EQ(side.fields, std::vector<std::string>{"k"});
  EXPECT_TRUE(side.direct);
  for (const auto& c : p.components) EXPECT_EQ(c.subscribers.size(), c.streams.size()) << c.id;
}

// Each stream's subscribers, in component index order, as "target type [field indices]".
struct PlanSubscriptionCase {
  const char* source;
  const char* stream;
  std::vector<std::string> subscribers;
};

std::string DescribePlanSubscription(const Plan& p, const Subscription& sub) {
  std::string out =
      p.components[sub.target_component].id + " " + std::string(GroupingName(sub.type)) + " [";
  for (std::size_t i = 0; i < sub.field_indices.size(); ++i) {
    out += (i ? "," : "") + std::to_string(sub.field_indices[i]);
  }
  return out + "]";
}

TEST(MakePlan, SubscriptionsPointAtTargetsAndFieldIndices) {
  const Topology t = LoadPlanTopology(kPlanTopology);
  const Plan p = MakePlan(t, nlohmann::json::object());
  const std::string partial_key(GroupingName(GroupingType::kPartialKey));
  const std::string fields(GroupingName(GroupingType::kFields));
  const std::string direct(GroupingName(GroupingType::kDirect));
  const std::string global(GroupingName(GroupingType::kGlobal));
  // Field indices follow the grouping's order ([n, word]), not the stream's ([word, n]).
  const PlanSubscriptionCase cases[] = {
      {"s", "default", {"a " + partial_key + " [1]", "b " + fields + " [1,0]"}},
      {"s", "side", {"b " + direct + " []"}},
      {"s", "quiet", {}},
      {"b", "default", {"a " + global + " []"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.source) + ":" + c.stream);
    const auto& src = PlannedById(p, c.source);
    std::vector<std::string> got;
    for (const auto& sub : src.subscribers.at(src.stream_index.at(c.stream))) {
      got.push_back(DescribePlanSubscription(p, sub));
    }
    EXPECT_EQ(got, c.subscribers);
  }
}

// Storm's submitter sets topology.name to the name the topology is submitted under, over any
// configuration; a local run does the same, topology-wide and for each component.
TEST(MakePlan, TopologyNameIsTheTopologysOwnWhateverTheConfigurationSays) {
  std::string yaml = kPlanTopology;
  yaml.replace(yaml.find("parallelism: 3"), 14,
               "parallelism: 3\n    config: {topology.name: mine}");
  const Topology t = LoadPlanTopology(yaml);
  const Plan p = MakePlan(t, nlohmann::json{{keys::kTopologyName, "renamed"}});
  EXPECT_EQ(p.topology_config[keys::kTopologyName], "planned");
  for (const auto& c : p.components) EXPECT_EQ(c.config[keys::kTopologyName], "planned") << c.id;
}

struct PlanTaskLimitCase {
  const char* where_limit;  // "topology", "override" or "default"
  int limit;
  int b_parallelism;  // `s` has 2 tasks, `a` 1
  bool refused;
};

const PlanTaskLimitCase kPlanTaskLimitCases[] = {
    {"topology", 6, 3, false},  // exactly at the limit
    {"topology", 5, 3, true},     {"override", 6, 3, false},   {"override", 5, 3, true},
    {"override", 100, 97, false}, {"override", 100, 98, true},
};

TEST(MakePlan, MoreTasksThanTheLimitAreRefusedNamingTheLargestComponent) {
  for (const auto& c : kPlanTaskLimitCases) {
    SCOPED_TRACE(std::string(c.where_limit) + " limit " + std::to_string(c.limit) + ", b has " +
                 std::to_string(c.b_parallelism));
    std::string yaml = kPlanTopology;
    yaml.replace(yaml.find("parallelism: 3"), 14,
                 "parallelism: " + std::to_string(c.b_parallelism));
    nlohmann::json overrides = nlohmann::json::object();
    if (std::string(c.where_limit) == "topology") {
      yaml.replace(0, 13,
                   "name: planned\nconfig: {sparse.max.tasks: " + std::to_string(c.limit) + "}");
    } else {
      overrides[keys::kMaxTasks] = c.limit;
    }
    const Topology t = LoadPlanTopology(yaml);
    const int total = 3 + c.b_parallelism;
    if (!c.refused) {
      EXPECT_EQ(MakePlan(t, overrides).num_tasks(), total);
      continue;
    }
    try {
      MakePlan(t, overrides);
      ADD_FAILURE() << "not refused";
    } catch (const TopologyError& e) {
      ASSERT_EQ(e.diagnostics().size(), 1u);
      const auto& d = e.diagnostics()[0];
      EXPECT_EQ(d.where.file, t.Find("b")->where.file);
      EXPECT_EQ(d.where.line, t.Find("b")->where.line);
      EXPECT_GT(d.where.line, 0);
      const std::string expected_start =
          "the topology has " + std::to_string(total) + " tasks (`b` alone has " +
          std::to_string(c.b_parallelism) + "); a local run allows at most " +
          std::to_string(c.limit) + " ";
      EXPECT_EQ(d.message.substr(0, expected_start.size()), expected_start) << d.message;
      EXPECT_NE(d.message.find(keys::kMaxTasks), std::string::npos) << d.message;
    }
  }
}

}  // namespace
}  // namespace sparse::runtime
