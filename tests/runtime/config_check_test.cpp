// Config validation, data-driven: tests/runtime/data/config_cases.txt holds each case's config
// block and the diagnostics it must give (see that file's header for the format).
// Then reading (ConfigView: fractional seconds, limits that are off until set) and merging.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runtime/builtin_registry.hpp"
#include "runtime/config.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"

namespace sparse::runtime {
namespace {

struct Case {
  std::string name;
  std::string config;                 // the indented lines under `config:`
  std::vector<std::string> expected;  // "error 3: ..." / "warning 3: ..."
};

std::vector<Case> ReadCases() {
  std::ifstream in(SPARSE_CONFIG_CASES);
  std::vector<Case> cases;
  std::string line;
  enum { kOutside, kConfig, kExpected } state = kOutside;
  while (std::getline(in, line)) {
    if (state == kOutside) {
      if (line.starts_with("case ")) {
        cases.push_back({line.substr(5), "", {}});
        state = kConfig;
      }
    } else if (state == kConfig) {
      if (line == "----") {
        state = kExpected;
      } else {
        cases.back().config += line + "\n";
      }
    } else if (line.empty()) {
      state = kOutside;
    } else if (line != "none") {
      cases.back().expected.push_back(line);
    }
  }
  return cases;
}

std::vector<std::string> Diagnose(const Case& c, const BuiltinRegistry& builtins) {
  const std::string yaml =
      "name: cases\nconfig:\n" + c.config + "spouts:\n  - {id: s, command: [x], outputs: [a]}\n";
  const Topology t = LoadTopologyFromString(yaml, "/tmp/cases/topo.yaml", builtins);
  std::vector<std::string> out;
  for (const auto& d : ValidateTopology(t, builtins)) {
    out.push_back("error " + std::to_string(d.where.line) + ": " + d.message);
  }
  for (const auto& d : ConfigWarnings(t, builtins)) {
    out.push_back("warning " + std::to_string(d.where.line) + ": " + d.message);
  }
  return out;
}

TEST(ConfigCheck, EveryCaseOfTheDataFile) {
  BuiltinRegistry builtins;
  RegisterStandardBuiltins(builtins);
  const auto cases = ReadCases();
  ASSERT_GE(cases.size(), 10u) << "cannot read " << SPARSE_CONFIG_CASES;
  for (const auto& c : cases) {
    SCOPED_TRACE("case " + c.name);
    EXPECT_EQ(Diagnose(c, builtins), c.expected);
  }
}

// Every key has one declaration, and its default passes its own check.
TEST(ConfigCheck, DefaultsPassTheirOwnChecks) {
  nlohmann::json defaults = DefaultConfig();
  for (auto it = defaults.begin(); it != defaults.end();) {
    it = it->is_null() ? defaults.erase(it) : std::next(it);
  }
  EXPECT_TRUE(CheckConfig(defaults).empty()) << CheckConfig(defaults).front().message;
  EXPECT_EQ(DefaultConfig().size(), Settings().size()) << "a key declared twice";
}

// The command line's -o values and an environment's options are checked like the file's, and
// named by where they come from.
TEST(ConfigCheck, OverridesAreCheckedAndNamed) {
  const BuiltinRegistry no_builtins;
  const Topology t =
      LoadTopologyFromString("name: o\nspouts:\n  - {id: s, command: [x], outputs: [a]}\n",
                             "/tmp/o/topo.yaml", no_builtins);
  const auto d = ValidateTopology(
      t, no_builtins,
      {{{"command line (-o)"}, {{"topology.max.spout.pending", "abc"}}},
       {{"config.json (environment `prod` options)"}, {{"sparse.restart.mx", 1}}}});
  ASSERT_EQ(d.size(), 2u);
  EXPECT_EQ(d[0].ToString(),
            "command line (-o): `topology.max.spout.pending` must be a whole number, got \"abc\"");
  EXPECT_EQ(d[1].ToString(),
            "config.json (environment `prod` options): unknown key `sparse.restart.mx` (did you "
            "mean `sparse.restart.max`?)");
}

// Found by fuzz/topology_fuzz.cpp: a value with invalid UTF-8 (YAML strings may hold any byte)
// made the error message itself throw.
TEST(ConfigCheck, AValueThatIsNotUtf8IsShownNotThrown) {
  const nlohmann::json conf = {{"topology.debug", std::string("y\xffs")}};
  const auto issues = CheckConfig(conf);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].message, "`topology.debug` must be true or false, got \"y\xef\xbf\xbds\"");
}

// Reading never trusts an unchecked configuration: a wrong type reads as the default.
TEST(ConfigView, AWrongTypeReadsAsTheDefault) {
  const nlohmann::json c = {{"topology.message.timeout.secs", "thirty"},
                            {"topology.max.spout.pending", "abc"}};
  const ConfigView view(&c);
  EXPECT_EQ(view.SecondsValue(keys::kMessageTimeoutSecs), std::chrono::seconds(30));
  EXPECT_FALSE(view.Int(keys::kMaxSpoutPending));
}

// sparse's own *.secs keys take fractions, and a view keeps the milliseconds. Storm's (tick
// frequency, message timeout) are whole seconds there: a fraction is refused by the check and
// reads as the default.
TEST(ConfigView, SparsesSecondsMayBeFractionalStormsAreWhole) {
  const std::pair<nlohmann::json, std::chrono::milliseconds> cases[] = {
      {30, std::chrono::milliseconds(30000)},
      {1.5, std::chrono::milliseconds(1500)},
      {0.25, std::chrono::milliseconds(250)},
      {0.0014, std::chrono::milliseconds(1)},  // below a millisecond: truncated
  };
  for (const auto& [value, expected] : cases) {
    const nlohmann::json c = {{keys::kHandshakeTimeoutSecs, value}};
    EXPECT_TRUE(CheckConfig(c).empty()) << value.dump();
    EXPECT_EQ(ConfigView(&c).Seconds(keys::kHandshakeTimeoutSecs), expected) << value.dump();
  }
  const nlohmann::json storm = {{keys::kTickTupleFreqSecs, 1.5}};
  const auto issues = CheckConfig(storm);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].key, keys::kTickTupleFreqSecs);
  EXPECT_FALSE(ConfigView(&storm).Seconds(keys::kTickTupleFreqSecs)) << "its default: no ticks";
}

TEST(ConfigView, ALimitThatIsOffByDefaultIsNulloptUntilSet) {
  const nlohmann::json unset = nlohmann::json::object();
  EXPECT_FALSE(ConfigView(&unset).Int(keys::kMaxSpoutPending));
  EXPECT_FALSE(ConfigView(&unset).Seconds(keys::kTickTupleFreqSecs));
  EXPECT_TRUE(ConfigView(&unset).AckingEnabled());
  const nlohmann::json set = {{keys::kMaxSpoutPending, 7}, {keys::kAckerExecutors, 0}};
  EXPECT_EQ(ConfigView(&set).Int(keys::kMaxSpoutPending), 7);
  EXPECT_FALSE(ConfigView(&set).AckingEnabled());
}

// A null merged over a value replaces it (Storm merges maps the same way), and a view reads the
// null as the key's default: `-o topology.max.spout.pending=null` lifts a limit the file set.
TEST(MergeConfig, ANullReplacesTheValueAndReadsAsTheDefault) {
  nlohmann::json base = {{keys::kMaxSpoutPending, 10}, {keys::kMessageTimeoutSecs, 5}};
  MergeConfig(base, nlohmann::json{{keys::kMaxSpoutPending, nullptr}, {"myapp.k", "v"}});
  EXPECT_TRUE(base.at(keys::kMaxSpoutPending).is_null());
  EXPECT_EQ(base.at("myapp.k"), "v");
  EXPECT_EQ(base.at(keys::kMessageTimeoutSecs), 5) << "keys the overlay lacks stay";
  const ConfigView view(&base);
  EXPECT_FALSE(view.Int(keys::kMaxSpoutPending));
  EXPECT_EQ(view.SecondsValue(keys::kMessageTimeoutSecs), std::chrono::seconds(5));
}

TEST(MergeConfig, AnOverlayThatIsNotAMappingChangesNothing) {
  const nlohmann::json before = {{keys::kMaxSpoutPending, 10}};
  for (const nlohmann::json& over : {nlohmann::json(nullptr), nlohmann::json(3),
                                     nlohmann::json::array({1, 2}), nlohmann::json("text")}) {
    nlohmann::json base = before;
    MergeConfig(base, over);
    EXPECT_EQ(base, before) << over.dump();
  }
}

}  // namespace
}  // namespace sparse::runtime
