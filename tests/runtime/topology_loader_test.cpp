#include "runtime/topology_loader.hpp"

#include <gtest/gtest.h>

#include "runtime/builtin_registry.hpp"
#include "runtime/plan.hpp"
#include "runtime/validate.hpp"

namespace sparse::runtime {
namespace {

class LoaderTest : public ::testing::Test {
 protected:
  LoaderTest() { RegisterStandardBuiltins(builtins_); }

  Topology Load(const std::string& yaml) {
    return LoadTopologyFromString(yaml, "/tmp/t/topo.yaml", builtins_);
  }

  // The diagnostics (as "line: message") of loading + validating `yaml`.
  std::vector<std::string> Errors(const std::string& yaml) {
    std::vector<std::string> out;
    try {
      auto t = Load(yaml);
      for (const auto& d : ValidateTopology(t, builtins_))
        out.push_back(std::to_string(d.where.line) + ": " + d.message);
    } catch (const TopologyError& e) {
      for (const auto& d : e.diagnostics())
        out.push_back(std::to_string(d.where.line) + ": " + d.message);
    }
    return out;
  }

  static bool Has(const std::vector<std::string>& errors, const std::string& prefix_line,
                  const std::string& fragment) {
    for (const auto& e : errors) {
      if (e.rfind(prefix_line + ": ", 0) == 0 && e.find(fragment) != std::string::npos) return true;
    }
    return false;
  }

  BuiltinRegistry builtins_;
};

constexpr const char* kConcise = R"(name: wc
config:
  topology.max.spout.pending: 100
spouts:
  - id: words
    command: [python3, spouts/words.py]
    outputs: [word]
bolts:
  - id: count
    command: python3 bolts/count.py
    parallelism: 3
    streams:
      default: [word, count]
      alerts: {fields: [msg], direct: true}
    inputs:
      - {from: words, grouping: fields, fields: [word]}
    config:
      topology.tick.tuple.freq.secs: 5
  - id: sink
    command: [python3, sink.py]
    inputs:
      - {from: count, stream: alerts, grouping: direct}
      - {from: count, grouping: global}
      - words
)";

TEST_F(LoaderTest, ConciseForm) {
  Topology t = Load(kConcise);
  EXPECT_EQ(t.name, "wc");
  EXPECT_FALSE(t.flux);
  EXPECT_EQ(t.config["topology.max.spout.pending"], 100);
  ASSERT_EQ(t.components.size(), 3u);
  const auto* words = t.Find("words");
  ASSERT_TRUE(words);
  EXPECT_TRUE(words->is_spout());
  EXPECT_EQ(words->command, (std::vector<std::string>{"python3", "spouts/words.py"}));
  EXPECT_EQ(words->streams.at(0).fields, std::vector<std::string>{"word"});
  const auto* count = t.Find("count");
  EXPECT_EQ(count->command, (std::vector<std::string>{"python3", "bolts/count.py"}));
  EXPECT_EQ(count->parallelism, 3);
  ASSERT_EQ(count->streams.size(), 2u);
  EXPECT_TRUE(count->FindStream("alerts")->direct);
  EXPECT_EQ(count->inputs.at(0).grouping.type, GroupingType::kFields);
  EXPECT_EQ(count->inputs.at(0).grouping.fields, std::vector<std::string>{"word"});
  EXPECT_EQ(count->config["topology.tick.tuple.freq.secs"], 5);
  const auto* sink = t.Find("sink");
  ASSERT_EQ(sink->inputs.size(), 3u);
  EXPECT_EQ(sink->inputs[0].grouping.type, GroupingType::kDirect);
  EXPECT_EQ(sink->inputs[0].stream, "alerts");
  EXPECT_EQ(sink->inputs[1].grouping.type, GroupingType::kGlobal);
  EXPECT_EQ(sink->inputs[2].component, "words");
  EXPECT_EQ(sink->inputs[2].grouping.type, GroupingType::kShuffle);
  EXPECT_EQ(sink->inputs[0].where.line, 22);
  EXPECT_TRUE(ValidateTopology(t, builtins_).empty());
  EXPECT_EQ(t.resources_dir, "/tmp/t");
}

// Storm's Flux shell example, as published (node spout, python bolt, Java test components).
constexpr const char* kFlux = R"(# test
name: "shell-topology"
config:
  topology.workers: 1

spouts:
  - id: "sentence-spout"
    className: "org.apache.storm.flux.wrappers.spouts.FluxShellSpout"
    constructorArgs:
      # command line
      - ["node", "randomsentence.js"]
      # output fields
      - ["word"]
    parallelism: 1

bolts:
  - id: "splitsentence"
    className: "org.apache.storm.flux.wrappers.bolts.FluxShellBolt"
    constructorArgs:
      - ["python", "splitsentence.py"]
      - ["word"]
    parallelism: 1

  - id: "log"
    className: "org.apache.storm.flux.wrappers.bolts.LogInfoBolt"
    parallelism: 1

  - id: "count"
    className: "org.apache.storm.testing.TestWordCounter"
    parallelism: 1

streams:
  - name: "spout --> split"
    from: "sentence-spout"
    to: "splitsentence"
    grouping:
      type: SHUFFLE

  - name: "split --> count"
    from: "splitsentence"
    to: "count"
    grouping:
      type: FIELDS
      args: ["word"]

  - name: "count --> log"
    from: "count"
    to: "log"
    grouping:
      type: SHUFFLE
)";

TEST_F(LoaderTest, FluxShellExample) {
  Topology t = Load(kFlux);
  EXPECT_TRUE(t.flux);
  EXPECT_EQ(t.name, "shell-topology");
  EXPECT_EQ(t.config["topology.workers"], 1);
  const auto* spout = t.Find("sentence-spout");
  ASSERT_TRUE(spout && spout->is_spout());
  EXPECT_EQ(spout->command, (std::vector<std::string>{"node", "randomsentence.js"}));
  const auto* split = t.Find("splitsentence");
  EXPECT_EQ(split->streams.at(0).fields, std::vector<std::string>{"word"});
  ASSERT_EQ(split->inputs.size(), 1u);
  EXPECT_EQ(split->inputs[0].component, "sentence-spout");
  EXPECT_EQ(t.Find("count")->builtin, "test_word_counter");
  EXPECT_EQ(t.Find("count")->streams.at(0).fields, (std::vector<std::string>{"word", "count"}));
  EXPECT_EQ(t.Find("count")->inputs.at(0).grouping.type, GroupingType::kFields);
  EXPECT_EQ(t.Find("log")->builtin, "log_info");
  EXPECT_TRUE(ValidateTopology(t, builtins_).empty());
}

TEST_F(LoaderTest, FluxConfigMethods) {
  Topology t = Load(R"(name: x
spouts:
  - id: s
    className: org.apache.storm.flux.wrappers.spouts.FluxShellSpout
    constructorArgs: [[python3, s.py], [a]]
    configMethods:
      - name: setNamedStream
        args: [other, [b, c]]
      - name: addComponentConfig
        args: [topology.tick.tuple.freq.secs, 3]
)");
  const auto* s = t.Find("s");
  ASSERT_EQ(s->streams.size(), 2u);
  EXPECT_EQ(s->FindStream("other")->fields, (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(s->config["topology.tick.tuple.freq.secs"], 3);
}

TEST_F(LoaderTest, FluxJavaClassIsRefusedWithLine) {
  auto e = Errors(R"(name: x
spouts:
  - id: s
    className: com.example.MySpout
)");
  EXPECT_TRUE(Has(e, "4", "Java class `com.example.MySpout` cannot run under sparse")) << e.at(0);
}

TEST_F(LoaderTest, SyntaxErrorNamesLine) {
  auto e = Errors("name: x\nspouts:\n  - id: [unclosed\n");
  ASSERT_FALSE(e.empty());
  EXPECT_NE(e[0].find("YAML syntax error"), std::string::npos);
}

TEST_F(LoaderTest, EveryValidationError) {
  auto e = Errors(R"(name: x
spouts:
  - id: s
    command: [a]
    outputs: [f]
    inputs:
      - {from: b}
  - id: s
    command: [a]
bolts:
  - id: b
    outputs: [g]
    inputs:
      - {from: nowhere}
      - {from: s, grouping: fields, fields: [nope]}
      - {from: s, stream: missing}
  - id: __sys
    command: [a]
    streams:
      __hidden: [z]
  - id: d
    command: [a]
    inputs:
      - {from: s, grouping: direct}
)");
  EXPECT_TRUE(Has(e, "7", "spout `s` cannot have inputs"));
  EXPECT_TRUE(Has(e, "8", "duplicate component id `s`"));
  EXPECT_TRUE(Has(e, "11", "component `b` has no `command`"));
  EXPECT_TRUE(Has(e, "14", "unknown component `nowhere`"));
  EXPECT_TRUE(Has(e, "15", "fields grouping on `nope`"));
  EXPECT_TRUE(Has(e, "16", "reads stream `missing` that `s` does not declare"));
  EXPECT_TRUE(Has(e, "17", "component id `__sys` must not start with `__`"));
  EXPECT_TRUE(Has(e, "20", "stream id `__hidden`"));
  EXPECT_TRUE(
      Has(e, "24", "direct grouping on stream `default` of `s`, which is not declared direct"));
  for (const auto& x : e) SCOPED_TRACE(x);
}

// Issue 18: an id like `../../x` or `/tmp/x` wrote the component's log outside logs/. Ids that
// Storm users write (dots, dashes, underscores, non-ASCII letters) stay valid.
TEST_F(LoaderTest, ComponentIdsThatWouldEscapeTheLogFolderAreRefused) {
  auto e = Errors(R"(name: x
spouts:
  - {id: ../../x, command: [a], outputs: [f]}
  - {id: /tmp/x, command: [a], outputs: [f]}
  - {id: "a\\b", command: [a], outputs: [f]}
  - {id: .., command: [a], outputs: [f]}
  - {id: "tab\there", command: [a], outputs: [f]}
  - {id: split.sentence-v2_ü, command: [a], outputs: [f]}
)");
  EXPECT_TRUE(Has(e, "3", "component id `../../x` must not contain / or \\"));
  EXPECT_TRUE(Has(e, "4", "component id `/tmp/x` must not contain / or \\"));
  EXPECT_TRUE(Has(e, "5", "component id `a\\b` must not contain"));
  EXPECT_TRUE(Has(e, "6", "component id `..` is not a name"));
  EXPECT_TRUE(Has(e, "7", "component id `tab?here` must not contain control characters"));
  EXPECT_EQ(e.size(), 5u);
  for (const auto& x : e) SCOPED_TRACE(x);
}

TEST_F(LoaderTest, CyclesAreAllowed) {
  auto e = Errors(R"(name: x
spouts:
  - {id: s, command: [a], outputs: [f]}
bolts:
  - id: a
    command: [a]
    outputs: [f]
    inputs: [{from: s}, {from: b}]
  - id: b
    command: [a]
    outputs: [f]
    inputs: [{from: a}]
)");
  EXPECT_TRUE(e.empty()) << e.at(0);
}

TEST_F(LoaderTest, UnknownKeysAndGroupings) {
  auto e = Errors(R"(name: x
spouts:
  - {id: s, command: [a], outputs: [f], paralelism: 2}
bolts:
  - id: b
    command: [a]
    inputs: [{from: s, grouping: sideways}]
)");
  EXPECT_TRUE(Has(e, "3", "unknown key `paralelism`"));
  EXPECT_TRUE(Has(e, "7", "unknown grouping `sideways`"));
}

TEST_F(LoaderTest, NoSpoutAndBadName) {
  auto e = Errors("name: a.b\nbolts:\n  - {id: b, command: [x]}\n");
  bool name = false, spout = false;
  for (const auto& x : e) {
    name = name || x.find("must not contain") != std::string::npos;
    spout = spout || x.find("no spout") != std::string::npos;
  }
  EXPECT_TRUE(name);
  EXPECT_TRUE(spout);
}

TEST_F(LoaderTest, BuiltinUnknown) {
  auto e = Errors("name: x\nspouts:\n  - {id: s, builtin: teleporter}\n");
  EXPECT_TRUE(Has(e, "3", "unknown built-in component `teleporter`"));
}

}  // namespace
}  // namespace sparse::runtime

namespace sparse::runtime {
namespace {

// Where a component's serializer comes from, strongest first: its `serializer`, its command's
// -s/--serializer (as streamparse runs components), topology.multilang.serializer.
TEST_F(LoaderTest, SerializerFromYamlCommandOrConfig) {
  Topology t = Load(R"(name: x
config: {topology.multilang.serializer: com.example.MsgpackSerializer}
spouts:
  - {id: a, command: [python3, a.py], outputs: [w], serializer: json}
bolts:
  - {id: b, command: [streamparse_run, bolts.B, -s, json], inputs: [a]}
  - {id: c, command: [streamparse_run, bolts.C, --serializer=msgpack], inputs: [a],
     config: {topology.multilang.serializer: org.apache.storm.multilang.JsonSerializer}}
  - {id: d, command: [python3, d.py], inputs: [a]}
  - {id: e, command: [python3, e.py], inputs: [a],
     config: {topology.multilang.serializer: org.apache.storm.multilang.JsonSerializer}}
)");
  ASSERT_TRUE(ValidateTopology(t, builtins_).empty());
  Plan plan = MakePlan(t, nlohmann::json::object());
  auto ser = [&](const char* id) { return plan.components[plan.FindComponent(id)].serializer; };
  EXPECT_EQ(ser("a"), multilang::Serializer::kJson);
  EXPECT_EQ(ser("b"), multilang::Serializer::kJson);
  EXPECT_EQ(ser("c"), multilang::Serializer::kMsgpack);
  EXPECT_EQ(ser("d"), multilang::Serializer::kMsgpack);
  EXPECT_EQ(ser("e"), multilang::Serializer::kJson);
}

TEST_F(LoaderTest, UnknownSerializerNamesTheComponentAndLine) {
  auto errors = Errors(R"(name: x
spouts:
  - {id: a, command: [python3, a.py], outputs: [w], serializer: thrift}
bolts:
  - {id: b, command: [run, -s, protobuf], inputs: [a]}
  - {id: c, command: [python3, c.py], inputs: [a],
     config: {topology.multilang.serializer: com.example.ThriftSerializer}}
)");
  EXPECT_TRUE(Has(errors, "3", "component `a`: `serializer`: unknown serializer `thrift`"));
  EXPECT_TRUE(Has(errors, "5", "component `b`: the command's -s option: unknown serializer"));
  EXPECT_TRUE(Has(errors, "6", "unknown serializer `com.example.ThriftSerializer`"));
}

// Issue 18: nine anchors, each a list of nine aliases of the one before, stand for 9^9 values
// in a few hundred bytes; converting them aborted the runtime with bad_alloc (exit 134).
TEST_F(LoaderTest, AliasBombIsAnErrorAtItsLine) {
  std::string yaml = "name: x\nconfig:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    yaml += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) yaml += ", " + prev;
    yaml += "]\n";
  }
  yaml += "spouts:\n  - {id: s, command: [sh, s.sh], outputs: [f], config: {bomb: *l9}}\n";
  const auto e = Errors(yaml);
  EXPECT_TRUE(Has(e, "3", "`config` expands to more than 1000000 values"))
      << ::testing::PrintToString(e);
  EXPECT_TRUE(Has(e, "14", "`config` expands to more than")) << ::testing::PrintToString(e);
}

// Found by fuzz/topology_fuzz.cpp: shapes the loader did not foresee (here a configMethod that
// is a string) escaped as yaml-cpp exceptions, without the file's name, instead of errors.
TEST_F(LoaderTest, UnforeseenShapesAreErrorsWithLines) {
  const auto e = Errors(R"(name: x
spouts:
  - id: s
    className: org.apache.storm.flux.wrappers.spouts.FluxShellSpout
    constructorArgs: [[python3, s.py], [a]]
    configMethods:
      - setNamedStream
)");
  EXPECT_TRUE(Has(e, "7", "unexpected YAML structure")) << ::testing::PrintToString(e);
  const auto keys = Errors("name: x\n? [a, b]\n: 1\nspouts: []\n");
  ASSERT_FALSE(keys.empty());
}

}  // namespace
}  // namespace sparse::runtime
