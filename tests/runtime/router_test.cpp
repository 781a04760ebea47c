// The router on plans built from small topologies: which tasks each grouping picks through the
// plan's subscriptions, the checks it makes on every emit (arity, direct streams and targets), and
// the per-(task, stream) counts it keeps.
#include "runtime/router.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "runtime/builtin_registry.hpp"
#include "runtime/plan.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"

namespace sparse::runtime {
namespace {

// A validated topology, its plan and a router over it (the router keeps a reference to the plan,
// the plan to the topology).
class RouterSetup {
 public:
  explicit RouterSetup(const std::string& yaml, std::uint64_t seed = 0x5eed)
      : topology_(LoadTopologyFromString(yaml, "/tmp/router/topo.yaml", no_builtins_)) {
    for (const auto& d : ValidateTopology(topology_, no_builtins_)) ADD_FAILURE() << d.message;
    plan_ = MakePlan(topology_, nlohmann::json::object());
    router_ = std::make_unique<Router>(plan_, seed);
  }
  const Plan& plan() const { return plan_; }
  Router& router() { return *router_; }
  const std::vector<int>& Tasks(const char* component) const {
    return plan_.components[plan_.FindComponent(component)].tasks;
  }
  // An emit of `values_json` by `task` on its component's stream `stream`.
  EmittedTuple Emit(int task, const std::string& stream, std::string values_json) const {
    EmittedTuple t;
    t.values_json = std::move(values_json);
    EXPECT_TRUE(SplitJsonArray(t.values_json, t.spans)) << t.values_json;
    t.source_task = task;
    t.source_component = plan_.task_component[task];
    t.stream = plan_.components[t.source_component].stream_index.at(stream);
    return t;
  }

 private:
  const BuiltinRegistry no_builtins_;  // these topologies run commands only
  Topology topology_;
  Plan plan_;
  std::unique_ptr<Router> router_;
};

// One subscriber `b` (4 tasks: ids 1-4) reads `s`'s default stream [word, n] with the grouping
// under test; `s` has two tasks (5, 6).
std::string RouterGroupingTopology(const std::string& grouping) {
  return "name: r\n"
         "spouts:\n"
         "  - {id: s, command: [x], parallelism: 2, outputs: [word, n]}\n"
         "bolts:\n"
         "  - {id: b, command: [x], parallelism: 4, inputs: [{from: s, " +
         grouping + "}]}\n";
}

enum class RouterRule {
  kRoundRobin,     // one task per emit, each task once per round of 4
  kEveryTask,      // all four tasks, in task order
  kLowestTask,     // always task 1
  kHashOfN,        // one task: tasks[HashFields(n) % 4], n being field 1
  kTwoChoicesOfN,  // one task, at most two per value of n
};

struct RouterGroupingCase {
  const char* grouping;  // the input's YAML, after `from: s,`
  RouterRule rule;
};

const RouterGroupingCase kRouterGroupingCases[] = {
    {"grouping: shuffle", RouterRule::kRoundRobin},
    {"grouping: none", RouterRule::kRoundRobin},
    {"grouping: local_or_shuffle", RouterRule::kRoundRobin},
    {"grouping: all", RouterRule::kEveryTask},
    {"grouping: global", RouterRule::kLowestTask},
    {"grouping: fields, fields: [n]", RouterRule::kHashOfN},
    {"grouping: partial_key, fields: [n]", RouterRule::kTwoChoicesOfN},
};

TEST(Router, EachGroupingPicksItsTasks) {
  for (const auto& c : kRouterGroupingCases) {
    SCOPED_TRACE(c.grouping);
    RouterSetup setup(RouterGroupingTopology(c.grouping));
    ASSERT_EQ(setup.Tasks("b"), (std::vector<int>{1, 2, 3, 4}));
    ASSERT_EQ(setup.Tasks("s"), (std::vector<int>{5, 6}));
    std::map<int, int> per_task;
    std::map<std::string, std::set<int>> tasks_of_n;
    const int emits = 40;
    for (int i = 0; i < emits; ++i) {
      const std::string n = std::to_string(i % 5);
      const auto tuple = setup.Emit(5, "default", "[\"w" + std::to_string(i) + "\", " + n + "]");
      std::vector<int> targets;
      ASSERT_EQ(setup.router().Route(5, tuple, std::nullopt, targets), std::nullopt);
      for (int t : targets) per_task[t]++;
      switch (c.rule) {
        case RouterRule::kRoundRobin:
          ASSERT_EQ(targets.size(), 1u);
          if (i % 4 == 3) {
            for (int t = 1; t <= 4; ++t) EXPECT_EQ(per_task[t], i / 4 + 1) << "task " << t;
          }
          break;
        case RouterRule::kEveryTask:
          EXPECT_EQ(targets, (std::vector<int>{1, 2, 3, 4}));
          break;
        case RouterRule::kLowestTask:
          EXPECT_EQ(targets, std::vector<int>{1});
          break;
        case RouterRule::kHashOfN:
          ASSERT_EQ(targets.size(), 1u);
          EXPECT_EQ(targets[0], 1 + static_cast<int>(HashFields(tuple, {1}) % 4)) << n;
          break;
        case RouterRule::kTwoChoicesOfN:
          ASSERT_EQ(targets.size(), 1u);
          tasks_of_n[n].insert(targets[0]);
          break;
      }
    }
    for (const auto& [n, tasks] : tasks_of_n) EXPECT_LE(tasks.size(), 2u) << "n = " << n;
    const auto& count = setup.router().Count(5, 0);
    EXPECT_EQ(count.emitted, static_cast<std::uint64_t>(emits));
    EXPECT_EQ(count.transferred,
              static_cast<std::uint64_t>(c.rule == RouterRule::kEveryTask ? 4 * emits : emits));
    EXPECT_EQ(setup.router().Count(6, 0).emitted, 0u) << "the other spout task emitted nothing";
  }
}

TEST(Router, FieldsGroupingHashesTheSubscribedFieldsInTheirOrder) {
  // `fields: [n, word]` hashes n then word, whatever order the stream declares them in.
  RouterSetup setup(RouterGroupingTopology("grouping: fields, fields: [n, word]"));
  std::set<int> used;
  for (int i = 0; i < 50; ++i) {
    const auto tuple =
        setup.Emit(6, "default", "[\"w" + std::to_string(i) + "\", " + std::to_string(i * 7) + "]");
    std::vector<int> targets;
    ASSERT_EQ(setup.router().Route(6, tuple, std::nullopt, targets), std::nullopt);
    ASSERT_EQ(targets.size(), 1u);
    EXPECT_EQ(targets[0], 1 + static_cast<int>(HashFields(tuple, {1, 0}) % 4)) << i;
    used.insert(targets[0]);
  }
  EXPECT_EQ(used.size(), 4u);
}

// `s` has a default stream read by `a` (all, 2 tasks) and `g` (global, 3 tasks), a stream `lone`
// nobody reads, and a stream `pair` read by `a` (shuffle). Tasks: a 1-2, g 3-5, s 6-7.
constexpr const char* kRouterFanOut = R"(name: fan
spouts:
  - {id: s, command: [x], parallelism: 2, streams: {default: [w], lone: [z], pair: [p, q]}}
bolts:
  - {id: a, command: [x], parallelism: 2,
     inputs: [{from: s, grouping: all}, {from: s, stream: pair, grouping: shuffle}]}
  - {id: g, command: [x], parallelism: 3, inputs: [{from: s, grouping: global}]}
)";

TEST(Router, EverySubscriberGetsItsShareAppendedToTheTargets) {
  RouterSetup setup(kRouterFanOut);
  ASSERT_EQ(setup.Tasks("a"), (std::vector<int>{1, 2}));
  ASSERT_EQ(setup.Tasks("g"), (std::vector<int>{3, 4, 5}));
  std::vector<int> targets = {99};  // what an earlier emit left: kept, not counted
  ASSERT_EQ(setup.router().Route(6, setup.Emit(6, "default", "[1]"), std::nullopt, targets),
            std::nullopt);
  EXPECT_EQ(std::multiset<int>(targets.begin(), targets.end()), (std::multiset<int>{99, 1, 2, 3}));
  EXPECT_EQ(targets[0], 99);
  const auto& count = setup.router().Count(6, 0);
  EXPECT_EQ(count.emitted, 1u);
  EXPECT_EQ(count.transferred, 3u);
}

TEST(Router, AStreamNobodyReadsCountsTheEmitAndNoTransfer) {
  RouterSetup setup(kRouterFanOut);
  const auto tuple = setup.Emit(7, "lone", "[\"z\"]");
  std::vector<int> targets;
  ASSERT_EQ(setup.router().Route(7, tuple, std::nullopt, targets), std::nullopt);
  EXPECT_TRUE(targets.empty());
  const auto& count = setup.router().Count(7, static_cast<std::size_t>(tuple.stream));
  EXPECT_EQ(count.emitted, 1u);
  EXPECT_EQ(count.transferred, 0u);
}

TEST(RouterDeathTest, ATaskOrStreamOutsideThePlanIsAnInternalError) {
  RouterSetup setup(kRouterFanOut);
  std::vector<int> targets;
  auto tuple = setup.Emit(6, "default", "[1]");
  EXPECT_DEATH(setup.router().Route(99, tuple, std::nullopt, targets), "not in the plan");
  tuple.stream = 42;
  EXPECT_DEATH(setup.router().Route(6, tuple, std::nullopt, targets),
               "a stream its component does not have");
}

TEST(Router, CountsAreKeptPerTaskAndStream) {
  RouterSetup setup(kRouterFanOut);
  const auto& s = setup.plan().components[setup.plan().FindComponent("s")];
  const std::size_t def = s.stream_index.at("default"), pair = s.stream_index.at("pair");
  std::vector<int> targets;
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(setup.router().Route(6, setup.Emit(6, "default", "[1]"), std::nullopt, targets),
              std::nullopt);
  }
  ASSERT_EQ(setup.router().Route(7, setup.Emit(7, "pair", "[1, 2]"), std::nullopt, targets),
            std::nullopt);
  EXPECT_EQ(setup.router().Count(6, def).emitted, 3u);
  EXPECT_EQ(setup.router().Count(6, def).transferred, 9u);
  EXPECT_EQ(setup.router().Count(6, pair).emitted, 0u);
  EXPECT_EQ(setup.router().Count(7, def).emitted, 0u);
  EXPECT_EQ(setup.router().Count(7, pair).emitted, 1u);
  EXPECT_EQ(setup.router().Count(7, pair).transferred, 1u);
}

TEST(Router, AWrongNumberOfValuesIsRefusedAndNotCounted) {
  RouterSetup setup(kRouterFanOut);
  for (const char* values : {"[]", "[1]", "[1, 2, 3]"}) {
    std::vector<int> targets;
    const auto error =
        setup.router().Route(6, setup.Emit(6, "pair", values), std::nullopt, targets);
    ASSERT_TRUE(error) << values;
    EXPECT_EQ(*error, "emit of " + std::to_string(setup.Emit(6, "pair", values).size()) +
                          " value(s) to stream `pair`, which declares 2 field(s) [p, q]");
    EXPECT_TRUE(targets.empty());
  }
  const auto& s = setup.plan().components[setup.plan().FindComponent("s")];
  EXPECT_EQ(setup.router().Count(6, s.stream_index.at("pair")).emitted, 0u);
}

TEST(Router, SameSeedSameShuffleAndEachSourceTaskDealsAllTasks) {
  const std::string yaml = RouterGroupingTopology("grouping: shuffle");
  RouterSetup one(yaml, 12345), two(yaml, 12345);
  for (int source : {5, 6}) {
    std::vector<int> first, second;
    for (int i = 0; i < 12; ++i) {
      const auto tuple = one.Emit(source, "default", "[\"w\", 1]");
      ASSERT_EQ(one.router().Route(source, tuple, std::nullopt, first), std::nullopt);
      ASSERT_EQ(two.router().Route(source, tuple, std::nullopt, second), std::nullopt);
    }
    EXPECT_EQ(first, second) << "source task " << source;
    for (std::size_t round = 0; round < 3; ++round) {
      std::set<int> dealt(first.begin() + round * 4, first.begin() + round * 4 + 4);
      EXPECT_EQ(dealt, (std::set<int>{1, 2, 3, 4})) << "source " << source << " round " << round;
    }
  }
}

// Direct streams. `s` (task 3) has a direct stream `d` read by `dt` (tasks 1-2, direct grouping)
// and a plain default stream read by `sh` (task 4).
constexpr const char* kRouterDirect = R"(name: direct
spouts:
  - {id: s, command: [x], streams: {default: [v], d: {fields: [v], direct: true}}}
bolts:
  - {id: dt, command: [x], parallelism: 2, inputs: [{from: s, stream: d, grouping: direct}]}
  - {id: sh, command: [x], inputs: [{from: s, grouping: shuffle}]}
)";

struct RouterDirectCase {
  const char* stream;
  std::optional<std::int64_t> task;
  std::vector<int> targets;  // when allowed
  const char* error;         // when refused
};

const RouterDirectCase kRouterDirectCases[] = {
    {"d", 1, {1}, nullptr},
    {"d", 2, {2}, nullptr},
    {"d", 0, {}, "direct emit to task 0, which does not exist"},
    {"d", -1, {}, "direct emit to task -1, which does not exist"},
    {"d", 5, {}, "direct emit to task 5, which does not exist"},
    // Not cut to an int before the check (that would make it task 1).
    {"d", 4294967297, {}, "direct emit to task 4294967297, which does not exist"},
    {"d", 4, {}, "direct emit to task 4 (`sh`), which does not subscribe to stream `d` of `s`"},
    {"d", 3, {}, "direct emit to task 3 (`s`), which does not subscribe to stream `d` of `s`"},
    {"d", std::nullopt, {}, "emit without a task to direct stream `d`"},
    {"default", 4, {}, "direct emit (task 4) to stream `default`, which is not declared direct"},
    {"default", std::nullopt, {4}, nullptr},
};

TEST(Router, DirectEmitsAreChecked) {
  RouterSetup setup(kRouterDirect);
  ASSERT_EQ(setup.Tasks("dt"), (std::vector<int>{1, 2}));
  ASSERT_EQ(setup.Tasks("s"), std::vector<int>{3});
  ASSERT_EQ(setup.Tasks("sh"), std::vector<int>{4});
  std::map<std::string, std::uint64_t> allowed;
  for (const auto& c : kRouterDirectCases) {
    SCOPED_TRACE(std::string(c.stream) + " task " + (c.task ? std::to_string(*c.task) : "none"));
    std::vector<int> targets;
    const auto error = setup.router().Route(3, setup.Emit(3, c.stream, "[7]"), c.task, targets);
    if (c.error) {
      EXPECT_EQ(error, std::optional<std::string>(c.error));
      EXPECT_TRUE(targets.empty());
    } else {
      EXPECT_EQ(error, std::nullopt);
      EXPECT_EQ(targets, c.targets);
      allowed[c.stream]++;
    }
  }
  // Only the allowed emits are counted, one transfer each.
  const auto& s = setup.plan().components[setup.plan().FindComponent("s")];
  for (const char* stream : {"d", "default"}) {
    const auto& count = setup.router().Count(3, s.stream_index.at(stream));
    EXPECT_EQ(count.emitted, allowed[stream]) << stream;
    EXPECT_EQ(count.transferred, allowed[stream]) << stream;
  }
}

}  // namespace
}  // namespace sparse::runtime
