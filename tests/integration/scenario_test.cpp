// Integration scenarios as data (scenarios/*.yaml, one gtest case each, named after the file):
// a topology, the `sparse run` arguments, and what must come of it: the exit code, lines on
// stderr, numbers in the --stats-json file, lines the sink wrote, and no process left behind.
// A scenario is the test; this file only runs them. The keys (an unknown one fails the case, so
// a misspelt expectation cannot pass unchecked):
//
//   bolt: [python3, raw_components.py, MODE]   the component under test, as bolt `bad` fed by a
//                                              fixtures/components.py spout; or
//   topology: |                                a whole topology; {py:CLASS} stands for the
//     name: ...                                command of a fixtures/components.py class
//   spout: NumberSpout      with `bolt`: the spout's class (default SentenceSpout: "a b" x 3)
//   sink: true              with `bolt`: a RecordSink bolt `sink` reads what `bad` emits
//   args: [-o, key=value]   after `run topo.yaml --stop-when-idle 1 -t 60 -o test.out=...`
//   exit: 3                 the exit code, or a list of the acceptable ones
//   stderr: [text, ...]     each must occur in the run's stderr
//   stats: {bad: {acked: 3}}   numbers of components in the --stats-json file
//   sink_lines: 3           complete JSON lines in the out/sink-* files
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "harness.hpp"

namespace sparse::testing {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> ScenarioFiles() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(SPARSE_SCENARIOS)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string Where(const fs::path& file, const YAML::Node& node) {
  return file.filename().string() + ":" + std::to_string(node.Mark().line + 1);
}

// {py:CLASS} -> the command of that fixtures/components.py class.
std::string ExpandPy(std::string text) {
  for (auto at = text.find("{py:"); at != std::string::npos; at = text.find("{py:", at)) {
    const auto end = text.find('}', at);
    if (end == std::string::npos) break;
    const std::string command = Py(text.substr(at + 4, end - at - 4));
    text.replace(at, end - at + 1, command);
    at += command.size();
  }
  return text;
}

std::string FlowList(const YAML::Node& list) {
  std::string out = "[";
  for (const auto& item : list) out += (out.size() > 1 ? ", " : "") + item.as<std::string>();
  return out + "]";
}

// The topology a scenario describes (a failure, and "", when it describes none).
std::string TopologyOf(const fs::path& file, const YAML::Node& s) {
  if (s["topology"]) return ExpandPy(s["topology"].as<std::string>());
  if (!s["bolt"] || !s["bolt"].IsSequence()) {
    ADD_FAILURE() << file.filename() << ": needs `topology` or `bolt` (a command list)";
    return "";
  }
  std::string text =
      "name: scenario\n"
      "config: {test.sentences: [\"a b\"], test.repeat: 3}\n"
      "spouts:\n"
      "  - {id: sentences, command: " +
      Py(s["spout"] ? s["spout"].as<std::string>() : "SentenceSpout") +
      ", outputs: [sentence]}\n"
      "bolts:\n"
      "  - {id: bad, command: " +
      FlowList(s["bolt"]) + ", outputs: [sentence], inputs: [{from: sentences}]}\n";
  if (s["sink"] && s["sink"].as<bool>()) {
    text += "  - {id: sink, command: " + Py("RecordSink") + ", inputs: [{from: bad}]}\n";
  }
  return text;
}

class Scenario : public ::testing::TestWithParam<fs::path> {};

TEST_P(Scenario, Runs) {
  const fs::path& file = GetParam();
  const YAML::Node s = YAML::LoadFile(file.string());
  ASSERT_TRUE(s.IsMap()) << file << ": a scenario is a YAML mapping";
  static const std::set<std::string> kKeys = {"bolt", "topology", "spout", "sink",      "args",
                                              "exit", "stderr",   "stats", "sink_lines"};
  for (const auto& kv : s) {
    ASSERT_TRUE(kKeys.count(kv.first.as<std::string>()))
        << Where(file, kv.first) << ": unknown key `" << kv.first.as<std::string>() << "`";
  }
  ASSERT_TRUE(s["exit"]) << file.filename() << ": says no `exit`";

  Sandbox sb;
  const std::string topology = TopologyOf(file, s);
  ASSERT_FALSE(topology.empty());
  sb.Write("topo.yaml", topology);
  std::vector<std::string> args = RunArgs(sb);
  if (s["stats"]) args.insert(args.end(), {"--stats-json", "stats.json"});
  if (s["args"]) {
    for (const auto& a : s["args"]) args.push_back(a.as<std::string>());
  }
  const RunResult r = sb.Run(args);
  const std::string err = r.err.substr(0, 3000);

  std::vector<int> exits;
  if (s["exit"].IsSequence()) {
    for (const auto& e : s["exit"]) exits.push_back(e.as<int>());
  } else {
    exits.push_back(s["exit"].as<int>());
  }
  EXPECT_NE(std::find(exits.begin(), exits.end(), r.exit_code), exits.end())
      << Where(file, s["exit"]) << ": exit code " << r.exit_code << "\n"
      << err;
  if (s["stderr"]) {
    for (const auto& text : s["stderr"]) {
      EXPECT_NE(r.err.find(text.as<std::string>()), std::string::npos)
          << Where(file, text) << ": not on stderr: " << text.as<std::string>() << "\n"
          << err;
    }
  }
  if (s["stats"]) {
    const auto stats = ReadStats(sb);
    for (const auto& component : s["stats"]) {
      const auto of = StatsOf(stats, component.first.as<std::string>());
      for (const auto& field : component.second) {
        const std::string key = field.first.as<std::string>();
        EXPECT_EQ(of.value(key, nlohmann::json()), nlohmann::json(field.second.as<long>()))
            << Where(file, field.first) << ": " << component.first.as<std::string>() << "." << key
            << "\n"
            << err;
      }
    }
  }
  if (s["sink_lines"]) {
    EXPECT_EQ(sb.Lines("sink-").size(), s["sink_lines"].as<std::size_t>())
        << Where(file, s["sink_lines"]) << "\n"
        << err;
  }
  ExpectNoLeftovers(sb);
}

INSTANTIATE_TEST_SUITE_P(Scenarios, Scenario, ::testing::ValuesIn(ScenarioFiles()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace sparse::testing
