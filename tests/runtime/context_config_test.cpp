#include <gtest/gtest.h>

#include "runtime/builtin_registry.hpp"
#include "runtime/config.hpp"
#include "runtime/context.hpp"
#include "runtime/plan.hpp"
#include "runtime/topology_loader.hpp"

namespace sparse::runtime {
namespace {

constexpr const char* kTopo = R"(name: ctx
config: {topology.message.timeout.secs: 10}
spouts:
  - {id: s, command: [a], parallelism: 2, streams: {default: [w], side: [x, y]}}
bolts:
  - id: b
    command: [a]
    parallelism: 2
    outputs: [w, n]
    config: {topology.message.timeout.secs: 20}
    inputs:
      - {from: s, grouping: fields, fields: [w]}
      - {from: s, stream: side, grouping: global}
  - id: a
    command: [a]
    inputs: [{from: b, grouping: all}]
)";

TEST(Plan, TaskIdsFollowSortedComponentIds) {
  Topology t = LoadTopologyFromString(kTopo, "/tmp/ctx.yaml", BuiltinRegistry{});
  Plan p = MakePlan(t, nlohmann::json::object());
  ASSERT_EQ(p.num_tasks(), 5);
  // a: 1; b: 2, 3; s: 4, 5
  EXPECT_EQ(p.components[p.task_component[1]].id, "a");
  EXPECT_EQ(p.components[p.task_component[2]].id, "b");
  EXPECT_EQ(p.components[p.task_component[3]].id, "b");
  EXPECT_EQ(p.components[p.task_component[4]].id, "s");
  EXPECT_EQ(p.task_index[5], 1);
}

TEST(Plan, ConfigPrecedence) {
  Topology t = LoadTopologyFromString(kTopo, "/tmp/ctx.yaml", BuiltinRegistry{});
  Plan p =
      MakePlan(t, nlohmann::json{{"topology.debug", true}, {"topology.message.timeout.secs", 7}});
  const auto& b = p.components[p.FindComponent("b")];
  const auto& s = p.components[p.FindComponent("s")];
  EXPECT_EQ(b.config["topology.message.timeout.secs"], 7) << "-o wins over component config";
  EXPECT_EQ(s.config["topology.debug"], true);
  EXPECT_EQ(s.config["topology.shellbolt.max.pending"], 100) << "Storm default";
  Plan q = MakePlan(t, nlohmann::json::object());
  EXPECT_EQ(q.components[q.FindComponent("b")].config["topology.message.timeout.secs"], 20);
  EXPECT_EQ(q.components[q.FindComponent("s")].config["topology.message.timeout.secs"], 10);
  EXPECT_TRUE(q.topology_config["topology.max.spout.pending"].is_null());
}

TEST(Context, HandshakeHasStormsKeys) {
  Topology t = LoadTopologyFromString(kTopo, "/tmp/ctx.yaml", BuiltinRegistry{});
  Plan p = MakePlan(t, nlohmann::json::object());
  auto hs = nlohmann::json::parse(MakeHandshake(p, 2, "/tmp/pids/2"));
  EXPECT_EQ(hs["pidDir"], "/tmp/pids/2");
  EXPECT_EQ(hs["conf"]["topology.name"], "ctx");
  const auto& c = hs["context"];
  EXPECT_EQ(c["taskid"], 2);
  EXPECT_EQ(c["componentid"], "b");
  EXPECT_EQ(c["task->component"],
            (nlohmann::json{{"1", "a"}, {"2", "b"}, {"3", "b"}, {"4", "s"}, {"5", "s"}}));
  EXPECT_EQ(c["streams"], nlohmann::json::array({"default"}));
  EXPECT_EQ(c["stream->outputfields"]["default"], nlohmann::json::array({"w", "n"}));
  EXPECT_EQ(c["stream->target->grouping"]["default"]["a"], (nlohmann::json{{"type", "ALL"}}));
  EXPECT_EQ(c["source->stream->grouping"]["s"]["default"],
            (nlohmann::json{{"type", "FIELDS"}, {"fields", {"w"}}}));
  // Global grouping is FIELDS with an empty list on the wire.
  EXPECT_EQ(c["source->stream->grouping"]["s"]["side"],
            (nlohmann::json{{"type", "FIELDS"}, {"fields", nlohmann::json::array()}}));
  EXPECT_EQ(c["source->stream->fields"]["s"]["side"], nlohmann::json::array({"x", "y"}));

  auto spout = nlohmann::json::parse(MakeHandshake(p, 4, "/p"))["context"];
  EXPECT_EQ(spout["streams"], nlohmann::json::array({"default", "side"}));
  EXPECT_EQ(spout["source->stream->grouping"], nlohmann::json::object());
}

TEST(Config, OverridesParseAsYaml) {
  auto a = ParseOverride("topology.max.spout.pending=500");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->first, "topology.max.spout.pending");
  EXPECT_EQ(a->second, 500);
  EXPECT_EQ(ParseOverride("x=true")->second, true);
  EXPECT_EQ(ParseOverride("x=1.5")->second, 1.5);
  EXPECT_EQ(ParseOverride("x=[a, 2]")->second, (nlohmann::json{"a", 2}));
  EXPECT_EQ(ParseOverride("x=hello world")->second, "hello world");
  EXPECT_EQ(ParseOverride("x='42'")->second, "42");
  EXPECT_TRUE(ParseOverride("x=")->second.is_null());
  EXPECT_FALSE(ParseOverride("novalue"));
  EXPECT_FALSE(ParseOverride("=3"));
}

TEST(Config, SubprocessTimeoutFallsBackToWorkerTimeout) {
  nlohmann::json c = DefaultConfig();
  EXPECT_EQ(ConfigView(&c).SubprocessTimeout(), std::chrono::seconds(30));
  c[keys::kSubprocessTimeoutSecs] = 2;
  EXPECT_EQ(ConfigView(&c).SubprocessTimeout(), std::chrono::seconds(2));
  EXPECT_TRUE(ConfigView(&c).AckingEnabled());
  c[keys::kAckerExecutors] = 0;
  EXPECT_FALSE(ConfigView(&c).AckingEnabled());
}

}  // namespace
}  // namespace sparse::runtime
