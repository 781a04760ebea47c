// Topology -> StormTopology and jsonConf, launchers' names, topology names and Nimbus addresses.
#include "storm/convert.hpp"

#include <gtest/gtest.h>

#include "expected.hpp"
#include "process.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"
#include "storm/launcher.hpp"
#include "storm/nimbus_client.hpp"
#include "storm/thrift_json.hpp"

namespace sparse::storm {
namespace {

namespace fs = std::filesystem;
using testing::FixturesDir;

runtime::Topology LoadFull() {
  const runtime::BuiltinRegistry no_builtins;
  auto t =
      runtime::LoadTopology(fs::path(FixturesDir()) / "full/topologies/full.yaml", no_builtins);
  runtime::ValidateOrThrow(t, no_builtins);
  return t;
}

TEST(Convert, EveryComponentStreamGroupingParallelismAndConfig) {
  const auto conversion = ToStormTopology(LoadFull(), nlohmann::json::object());
  EXPECT_EQ(StormTopologyToJson(conversion.topology), testing::ExpectedFullTopology(10));
  // Storm requires state_spouts; sparse sends it empty.
  EXPECT_TRUE(conversion.topology.state_spouts.empty());
  // The raw union members, not only their JSON view.
  const auto& events = conversion.topology.spouts.at("events");
  EXPECT_TRUE(events.spout_object.__isset.shell);
  EXPECT_TRUE(events.common.streams.at("alerts").direct);
  EXPECT_FALSE(events.common.streams.at("default").direct);
  gen::GlobalStreamId by_user;
  by_user.__set_componentId("by_user");
  by_user.__set_streamId("default");
  const auto& total = conversion.topology.bolts.at("total").common.inputs.at(by_user);
  EXPECT_TRUE(total.__isset.fields);
  EXPECT_TRUE(total.fields.empty());
  const auto& anywhere = conversion.topology.bolts.at("anywhere").common.inputs.at(by_user);
  EXPECT_TRUE(anywhere.__isset.local_or_shuffle);
  EXPECT_FALSE(anywhere.__isset.shuffle);
}

// The warnings of converting the full fixture with `overrides` that mention `part`.
std::vector<std::string> WarningsAbout(const nlohmann::json& overrides, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& w : ToStormTopology(LoadFull(), overrides).warnings) {
    if (w.ToString().find(part) != std::string::npos) out.push_back(w.ToString());
  }
  return out;
}

TEST(Convert, PartialKeyBecomesFieldsWithAWarningNamingTheLine) {
  const auto warnings = WarningsAbout(nlohmann::json::object(), "partial_key");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("full.yaml:"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("`partial`"), std::string::npos) << warnings[0];
}

TEST(Convert, DirectStreamsWarnThatStormsJsonSerializerFailsTheirEmits) {
  // A real Storm 2.8.3 worker dies on a shell component's direct emit under JSON
  // (tests/storm/real: ClassCastException, Integer cannot be cast to Long).
  const auto warnings = WarningsAbout(nlohmann::json::object(), "direct stream");
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("full.yaml:15"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("`events` declares the direct stream `alerts`"), std::string::npos)
      << warnings[0];
  EXPECT_NE(warnings[0].find("topology.multilang.serializer"), std::string::npos) << warnings[0];
  // Naming Storm's JSON serializer changes nothing; another serializer silences it.
  const std::string key = "topology.multilang.serializer";
  EXPECT_EQ(
      WarningsAbout({{key, "org.apache.storm.multilang.JsonSerializer"}}, "direct stream").size(),
      1u);
  EXPECT_TRUE(WarningsAbout({{key, "com.example.MsgpackSerializer"}}, "direct stream").empty());
}

TEST(Convert, OverridesReplaceKeysInComponentConfigToo) {
  const auto conversion =
      ToStormTopology(LoadFull(), {{"topology.max.spout.pending", 7}, {"unrelated", 1}});
  EXPECT_EQ(StormTopologyToJson(conversion.topology), testing::ExpectedFullTopology(7));
}

TEST(Convert, JsonConfLayersTopologyEnvironmentOverridesWithIntegers) {
  const auto conf = MakeJsonConf(LoadFull(),
                                 {{"topology.workers", 3},
                                  {"topology.message.timeout.secs", 60},
                                  {"x.float", 2.0},
                                  {"x.ratio", 0.5}},
                                 {{"topology.max.spout.pending", 7}});
  const nlohmann::json expected = {{"topology.message.timeout.secs", 60},
                                   {"topology.max.spout.pending", 7},
                                   {"topology.workers", 3},
                                   {"app.ratio", 1},
                                   {"x.float", 2},
                                   {"x.ratio", 0.5}};
  EXPECT_EQ(conf, expected);
  // Whole numbers are written without a decimal point, as Nimbus requires.
  EXPECT_EQ(conf.dump().find("2.0"), std::string::npos);
  EXPECT_TRUE(conf["topology.workers"].is_number_integer());
}

TEST(Convert, NormalizeNumbersRecurses) {
  EXPECT_EQ(NormalizeNumbers({{"a", {1.0, 2.5}}, {"b", {{"c", 3.0}}}}).dump(),
            R"({"a":[1,2.5],"b":{"c":3}})");
}

TEST(Convert, BuiltInComponentsAreRefusedByName) {
  runtime::BuiltinRegistry builtins;
  runtime::RegisterStandardBuiltins(builtins);
  const auto t = runtime::LoadTopology(fs::path(FixturesDir()) / "builtin/topology.yaml", builtins);
  const auto problems = CheckSubmittable(t);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].ToString().find("topology.yaml:5"), std::string::npos)
      << problems[0].ToString();
  EXPECT_NE(problems[0].message.find("`words`"), std::string::npos);
  EXPECT_NE(problems[0].message.find("test_word_spout"), std::string::npos);
  // Storm ships this one as a Java class: with the registry, the refusal names it.
  const auto named = CheckSubmittable(t, &builtins);
  ASSERT_EQ(named.size(), 1u);
  EXPECT_NE(
      named[0].message.find("; on Storm, use Storm's own org.apache.storm.testing.TestWordSpout"),
      std::string::npos)
      << named[0].message;
  EXPECT_THROW(ToStormTopology(t, nlohmann::json::object()), runtime::TopologyError);
}

// A refused built-in's message carries what its registration says Storm offers instead; without
// the registry, or for a built-in that says nothing, the general advice.
TEST(Convert, ARefusedBuiltInSaysWhatStormOffersInstead) {
  runtime::BuiltinRegistry builtins;
  runtime::BuiltinInfo source{"source",
                              runtime::ComponentKind::kSpout,
                              {},
                              [](const nlohmann::json&, std::string&) {
                                runtime::StreamDef s;
                                s.id = "default";
                                s.fields = {"v"};
                                return std::vector<runtime::StreamDef>{s};
                              },
                              {},
                              {},
                              "on Storm, use the source spout of the storm-source jar"};
  runtime::BuiltinInfo silent = source;
  silent.name = "silent";
  silent.on_storm.clear();
  builtins.Add(std::move(source));
  builtins.Add(std::move(silent));
  const auto t = runtime::LoadTopologyFromString(R"(name: hints
spouts:
  - {id: s, builtin: source}
  - {id: w, builtin: silent}
)",
                                                 "/nonexistent/hints.yaml", builtins);
  const auto with = CheckSubmittable(t, &builtins);
  ASSERT_EQ(with.size(), 2u);
  EXPECT_NE(with[0].message.find("; on Storm, use the source spout of the storm-source jar"),
            std::string::npos)
      << with[0].message;
  EXPECT_NE(with[1].message.find("replace it with a shell component"), std::string::npos)
      << with[1].message;
  const auto without = CheckSubmittable(t);
  ASSERT_EQ(without.size(), 2u);
  EXPECT_EQ(without[0].message.find("storm-source"), std::string::npos) << without[0].message;
  EXPECT_NE(without[0].message.find("replace it with a shell component"), std::string::npos);
}

TEST(Convert, TwoSubscriptionsToOneStreamAreRefused) {
  const auto t =
      runtime::LoadTopologyFromString(R"(name: twice
spouts:
  - {id: s, command: [x], outputs: [a]}
bolts:
  - id: b
    command: [y]
    inputs:
      - {from: s, grouping: shuffle}
      - {from: s, grouping: all}
)",
                                      "/nonexistent/twice.yaml", runtime::BuiltinRegistry{});
  const auto problems = CheckSubmittable(t);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].where.line, 9);
  EXPECT_NE(problems[0].message.find("twice"), std::string::npos);
}

TEST(Convert, TopologyNames) {
  EXPECT_FALSE(CheckTopologyName("word-count_2"));
  for (const char* bad : {"a/b", "a.b", "a:b", "a\\b", ""}) {
    EXPECT_TRUE(CheckTopologyName(bad)) << bad;
  }
  // A real Nimbus fails the submit of a name its blob store refuses (`a+b`), and a real
  // supervisor exits when a topology with a space in its name is killed.
  for (const char* bad : {"a+b", "a b", "a\tb", "caf\xc3\xa9", "a%20b", "a*b"}) {
    const auto why = CheckTopologyName(bad);
    ASSERT_TRUE(why) << bad;
    EXPECT_NE(why->find("only letters, digits, '-' and '_'"), std::string::npos) << *why;
  }
  EXPECT_FALSE(CheckTopologyName("ABC-xyz_09"));
}

TEST(Convert, TopologyYamlLoadsBackInLauncherForm) {
  const auto original = LoadFull();
  const std::string text = TopologyYaml(LauncherForm(original), "header line 1\nline 2");
  EXPECT_EQ(text.rfind("# header line 1\n# line 2\n", 0), 0u) << text;
  const runtime::BuiltinRegistry no_builtins;
  const auto back = runtime::LoadTopologyFromString(text, "/x/topology.yaml", no_builtins);
  runtime::ValidateOrThrow(back, no_builtins);
  EXPECT_EQ(back.name, original.name);
  EXPECT_EQ(back.config, original.config);
  ASSERT_EQ(back.components.size(), original.components.size());
  for (std::size_t i = 0; i < back.components.size(); ++i) {
    const auto& b = back.components[i];
    const auto* o = original.Find(b.id);
    ASSERT_NE(o, nullptr) << b.id;
    EXPECT_EQ(b.kind, o->kind);
    EXPECT_EQ(b.command, LauncherArgv(b.id));
    EXPECT_EQ(b.parallelism, o->parallelism);
    EXPECT_EQ(b.config, o->config);
    ASSERT_EQ(b.streams.size(), o->streams.size());
    for (const auto& s : o->streams) {
      const auto* bs = b.FindStream(s.id);
      ASSERT_NE(bs, nullptr);
      EXPECT_EQ(bs->fields, s.fields);
      EXPECT_EQ(bs->direct, s.direct);
    }
    ASSERT_EQ(b.inputs.size(), o->inputs.size());
    for (std::size_t k = 0; k < b.inputs.size(); ++k) {
      EXPECT_EQ(b.inputs[k].component, o->inputs[k].component);
      EXPECT_EQ(b.inputs[k].stream, o->inputs[k].stream);
      EXPECT_EQ(b.inputs[k].grouping.type, o->inputs[k].grouping.type);
      EXPECT_EQ(b.inputs[k].grouping.fields, o->inputs[k].grouping.fields);
    }
  }
}

TEST(Launcher, FileNamesAreSafeAndDistinct) {
  EXPECT_EQ(LauncherFileName("count-2"), "count-2");
  EXPECT_EQ(LauncherFileName("by_user"), "by_5fuser");
  EXPECT_EQ(LauncherFileName("a/b c"), "a_2fb_20c");
  EXPECT_NE(LauncherFileName("a_b"), LauncherFileName("a_5fb"));
  EXPECT_EQ(LauncherArgv("by_user"),
            (std::vector<std::string>{"sh", "_sparse/launch/by_5fuser.sh"}));
}

TEST(Launcher, ShellQuoting) {
  EXPECT_EQ(ShellQuote("plain"), "'plain'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$HOME *"), "'$HOME *'");
}

TEST(NimbusAddress, Parsing) {
  EXPECT_EQ(ParseNimbusAddress("nimbus"), (NimbusAddress{"nimbus", 6627}));
  EXPECT_EQ(ParseNimbusAddress("10.0.0.1:7000"), (NimbusAddress{"10.0.0.1", 7000}));
  EXPECT_EQ(ParseNimbusAddress("[::1]:6628"), (NimbusAddress{"::1", 6628}));
  EXPECT_EQ(ParseNimbusAddress("[::1]:6628").ToString(), "[::1]:6628");
  for (const char* bad :
       {"", ":6627", "host:", "host:0", "host:70000", "host:x", "::1:6627", "[::1"}) {
    EXPECT_THROW(ParseNimbusAddress(bad), std::invalid_argument) << bad;
  }
}

}  // namespace
}  // namespace sparse::storm
