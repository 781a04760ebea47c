// End-to-end runs of real topologies with real Python components (issue: local runtime).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "harness.hpp"

namespace sparse::testing {
namespace {

using nlohmann::json;

TEST(Run, WordCountExactCounts) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: wordcount
config:
  test.sentences: ["the cow jumped over the moon", "an apple a day keeps the doctor away", "four score and seven years ago"]
  test.repeat: 40
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") + R"(, outputs: [sentence]}
bolts:
  - id: split
    command: )" + Py("SplitBolt") +
                            R"(
    parallelism: 2
    outputs: [word]
    inputs: [{from: sentences, grouping: shuffle}]
  - id: count
    command: )" + Py("CountBolt") +
                            R"(
    parallelism: 3
    outputs: [word, count]
    inputs: [{from: split, grouping: fields, fields: [word]}]
)");
  auto r = sb.Run(RunArgs(sb, {"--stats-json", (sb.dir() / "stats.json").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, int> expected;
  for (const char* s : {"the cow jumped over the moon", "an apple a day keeps the doctor away",
                        "four score and seven years ago"}) {
    std::istringstream in(s);
    for (std::string w; in >> w;) expected[w] += 40;
  }
  std::map<std::string, int> final_counts;
  std::map<std::string, std::set<std::string>> tasks_per_word;
  for (const auto& [file, lines] : sb.LinesByFile("count-")) {
    for (const auto& l : lines) {
      const std::string w = l[0];
      final_counts[w] = std::max(final_counts[w], l[1].get<int>());
      tasks_per_word[w].insert(file);
    }
  }
  EXPECT_EQ(final_counts, expected);
  for (const auto& [w, files] : tasks_per_word)
    EXPECT_EQ(files.size(), 1u) << w << " split over tasks";
  // The summary table and the stats agree with what arrived.
  EXPECT_NE(r.out.find("count"), std::string::npos);
  std::ifstream stats_in(sb.dir() / "stats.json");
  json stats = json::parse(stats_in);
  int total = 0;
  for (auto& [w, c] : expected) total += c;
  for (const auto& c : stats["components"]) {
    if (c["id"] == "count") {
      EXPECT_EQ(c["executed"], total);
      EXPECT_EQ(c["acked"], total);
      EXPECT_EQ(c["tasks"], 3);
    }
    if (c["id"] == "sentences") {
      EXPECT_EQ(c["emitted"], 120);
    }
  }
  ExpectNoLeftovers(sb);
}

TEST(Run, MultipleStreams) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: streams
config: {test.sentences: ["alpha beta gamma"], test.repeat: 5}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") + R"(, outputs: [sentence]}
bolts:
  - id: split
    command: )" + Py("SplitBolt") +
                            R"(
    streams: {default: [word], lengths: [word, length]}
    inputs: [{from: sentences}]
  - id: words
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: split}]
  - id: lengths
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: split, stream: lengths, grouping: all}]
)");
  auto r = sb.Run(RunArgs(sb));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto words = sb.Lines("words-");
  auto lengths = sb.Lines("lengths-");
  ASSERT_EQ(words.size(), 15u);
  ASSERT_EQ(lengths.size(), 15u);
  for (const auto& w : words) EXPECT_EQ(w["stream"], "default");
  for (const auto& l : lengths) {
    EXPECT_EQ(l["stream"], "lengths");
    EXPECT_EQ(l["source"], "split");
    EXPECT_EQ(l["values"][1].get<int>(),
              static_cast<int>(l["values"][0].get<std::string>().size()));
  }
  ExpectNoLeftovers(sb);
}

TEST(Run, DirectGrouping) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: direct
config: {test.sentences: ["a b c d e f"], test.repeat: 4}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") + R"(, outputs: [sentence]}
bolts:
  - id: split
    command: )" + Py("SplitBolt") +
                            R"(
    outputs: [word]
    inputs: [{from: sentences}]
  - id: director
    command: )" + Py("DirectBolt") +
                            R"(
    streams: {direct: {fields: [word], direct: true}}
    inputs: [{from: split}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 3
    inputs: [{from: director, stream: direct, grouping: direct}]
)");
  auto r = sb.Run(RunArgs(sb));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto by_file = sb.LinesByFile("sink-");
  std::erase_if(by_file, [](const auto& kv) { return kv.second.empty(); });
  // Task ids: director 1, sentences 2, sink 3..5, split 6. Everything goes to task 5.
  ASSERT_EQ(by_file.size(), 1u);
  EXPECT_EQ(by_file.begin()->first, "sink-5.jsonl");
  EXPECT_EQ(by_file.begin()->second.size(), 24u);
  ExpectNoLeftovers(sb);
}

class NeedTaskIds : public ::testing::TestWithParam<bool> {};

TEST_P(NeedTaskIds, RepliesOnlyWhenAsked) {
  const bool need = GetParam();
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: taskids
config: {test.sentences: ["x y z w"], test.repeat: 5}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") + R"(, outputs: [sentence]}
bolts:
  - id: split
    command: )" + Py("SplitBolt") +
                            R"(
    outputs: [word]
    inputs: [{from: sentences}]
  - id: emitter
    command: )" + Py("TaskIdsBolt") +
                            R"(
    outputs: [word]
    inputs: [{from: split}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 2
    inputs: [{from: emitter, grouping: all}]
  - id: other
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 2
    inputs: [{from: emitter, grouping: fields, fields: [word]}]
)");
  auto r = sb.Run(RunArgs(sb, {"-o", std::string("test.need_ids=") + (need ? "true" : "false")}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto replies = sb.Lines("taskids-");
  ASSERT_EQ(replies.size(), 20u);
  // Where each word actually arrived, by task id (from the sink file names).
  std::map<std::string, std::set<int>> arrived;
  for (const auto& [file, lines] : sb.LinesByFile("sink-")) {
    int task = std::stoi(file.substr(5));
    for (const auto& l : lines) arrived[l["values"][0]].insert(task);
  }
  for (const auto& [file, lines] : sb.LinesByFile("other-")) {
    int task = std::stoi(file.substr(6));
    for (const auto& l : lines) arrived[l["values"][0]].insert(task);
  }
  for (const auto& rep : replies) {
    if (!need) {
      EXPECT_TRUE(rep["ids"].is_null());
      continue;
    }
    ASSERT_TRUE(rep["ids"].is_array());
    std::set<int> ids(rep["ids"].begin(), rep["ids"].end());
    EXPECT_EQ(ids.size(), 3u) << "both sink tasks (all grouping) and one `other` task";
    EXPECT_EQ(ids, arrived[rep["word"]]) << rep.dump();
  }
  ExpectNoLeftovers(sb);
}

INSTANTIATE_TEST_SUITE_P(OnOff, NeedTaskIds, ::testing::Bool());

TEST(Run, TickTuples) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: ticks
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") + R"(, outputs: [sentence]}
bolts:
  - id: ticker
    command: )" + Py("TickBolt") +
                            R"(
    inputs: [{from: sentences}]
    config: {topology.tick.tuple.freq.secs: 1}
)");
  auto r = sb.Run({"run", "topo.yaml", "-t", "3.6", "-o", "test.out=" + sb.out_dir().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto ticks = sb.Lines("ticks-");
  EXPECT_GE(ticks.size(), 2u);
  // Ticks start once the ticker is ready and go on through the drain, while the 3.6 s count
  // from when every task is ready: a few more than 3 on a loaded machine, never one every half
  // period (7 or more).
  EXPECT_LE(ticks.size(), 6u);
  for (const auto& t : ticks) EXPECT_EQ(t["tick"], 1);
  ExpectNoLeftovers(sb);
}

TEST(Run, FluxShellTopologyWithStormStyleComponentsAndBuiltins) {
  Sandbox sb;
  // The shape of Storm's Flux shell example: a shell spout and bolt written against the bare
  // protocol as storm.py does, Storm's TestWordCounter and LogInfoBolt, `python` as command.
  sb.Write("topo.yaml", R"(name: "shell-topology"
config:
  topology.workers: 1
spouts:
  - id: "sentence-spout"
    className: "org.apache.storm.flux.wrappers.spouts.FluxShellSpout"
    constructorArgs:
      - ["python", "raw_components.py", "storm_sentences"]
      - ["sentence"]
    parallelism: 1
bolts:
  - id: "splitsentence"
    className: "org.apache.storm.flux.wrappers.bolts.FluxShellBolt"
    constructorArgs:
      - ["python", "raw_components.py", "storm_split"]
      - ["word"]
    parallelism: 1
  - id: "log"
    className: "org.apache.storm.flux.wrappers.bolts.LogInfoBolt"
    parallelism: 1
  - id: "count"
    className: "org.apache.storm.testing.TestWordCounter"
    parallelism: 1
streams:
  - {name: "spout --> split", from: "sentence-spout", to: "splitsentence", grouping: {type: SHUFFLE}}
  - {name: "split --> count", from: "splitsentence", to: "count", grouping: {type: FIELDS, args: ["word"]}}
  - {name: "count --> log", from: "count", to: "log", grouping: {type: SHUFFLE}}
)");
  auto r = sb.Run({"run", "topo.yaml", "--stop-when-idle", "1", "-t", "60", "--stats-json",
                   (sb.dir() / "stats.json").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // "a b c", "b c", "c": a=1, b=2, c=3, logged by LogInfoBolt as the counts grow.
  EXPECT_NE(r.err.find("values: [\"c\",3]"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("values: [\"b\",2]"), std::string::npos) << r.err;
  std::ifstream stats_in(sb.dir() / "stats.json");
  json stats = json::parse(stats_in);
  for (const auto& c : stats["components"]) {
    if (c["id"] == "log") {
      EXPECT_EQ(c["executed"], 6);
    }
  }
  ExpectNoLeftovers(sb);
}

// --stats-json's runtime_max_rss_kb is the runtime's own peak. getrusage's ru_maxrss carried the
// launcher's memory across the exec: a runtime started by a 500 MB Python process reported 500 MB
// (the storm bench's Kafka row said 437 MB for a runtime of 61 MB). This launcher holds 400 MB.
TEST(Run, TheReportedPeakMemoryIsTheRuntimesOwnNotItsLaunchers) {
  constexpr std::size_t kLauncherBytes = 400u << 20;
  std::vector<char> ballast(kLauncherBytes);
  for (std::size_t i = 0; i < ballast.size(); i += 4096) ballast[i] = 1;  // resident, not reserved
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: peak
config: {test.sentences: ["a b"], test.repeat: 3}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
)");
  auto r = sb.Run(IdleRunArgs(sb, {"--no-ui"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const long peak_kb = RuntimePeakKb(sb);
  EXPECT_GT(peak_kb, 0);
  EXPECT_LT(peak_kb, 200 * 1024) << "the launcher holds " << (kLauncherBytes >> 20) << " MB";
  EXPECT_EQ(ballast[4096], 1);  // keeps the ballast alive until the run has ended
}

// --- misbehaving components --------------------------------------------------------------------
// Most are data: scenarios/*.yaml (scenario_test.cpp). These need more than a scenario says.

std::string OneBolt(const std::string& bolt_command, const std::string& spout = "SentenceSpout") {
  return R"(name: misbehave
config: {test.sentences: ["a b"], test.repeat: 3}
spouts:
  - {id: sentences, command: )" +
         Py(spout) + R"(, outputs: [sentence]}
bolts:
  - id: bad
    command: )" +
         bolt_command + R"(
    outputs: [sentence]
    inputs: [{from: sentences}]
)";
}

// A reliable spout written like storm.py (ids, task ids awaited, early commands kept for later)
// gets its acks pipelined behind a `next` by default, and one command at a time with
// sparse.spout.max.unsynced.commands: 1. Either way every tree is acked exactly once, the failed
// ones after their replay, and the numbers of the runtime and the spout agree.
class SpoutPipelining : public ::testing::TestWithParam<int> {};

TEST_P(SpoutPipelining, StormStyleSpoutGetsEveryAckOnce) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: storm-reliable
spouts:
  - id: numbers
    command: [python3, raw_components.py, storm_reliable_spout, "300"]
    outputs: [n]
bolts:
  - id: check
    command: )" + Py("FailOnceBolt") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: check}]
)");
  auto r =
      sb.Run(RunArgs(sb, {"-o", "sparse.spout.max.unsynced.commands=" + std::to_string(GetParam()),
                          "--stats-json", (sb.dir() / "stats.json").string()}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, int> acks, fails;
  for (const auto& l : sb.Lines("storm-spout-")) {
    if (l.contains("ack")) acks[l["ack"].get<int>()]++;
    if (l.contains("fail")) fails[l["fail"].get<int>()]++;
  }
  ASSERT_EQ(acks.size(), 300u) << r.err;
  for (const auto& [n, times] : acks) EXPECT_EQ(times, 1) << "ack of " << n;
  EXPECT_EQ(fails.size(), 30u) << "every tenth number fails once";
  for (const auto& [n, times] : fails) {
    EXPECT_EQ(n % 10, 0) << n;
    EXPECT_EQ(times, 1) << n;
  }
  std::set<int> seen;
  for (const auto& l : sb.Lines("sink-")) seen.insert(l["values"][0].get<int>());
  EXPECT_EQ(seen.size(), 300u);
  std::ifstream stats_in(sb.dir() / "stats.json");
  const json stats = json::parse(stats_in);
  for (const auto& c : stats["components"]) {
    if (c["id"] == "numbers") {
      EXPECT_EQ(c["acked"], 300);
      EXPECT_EQ(c["failed"], 30);
      EXPECT_EQ(c["errors"], 0);
      EXPECT_EQ(c["restarts"], 0);
    }
  }
  ExpectNoLeftovers(sb);
}

INSTANTIATE_TEST_SUITE_P(UnsyncedCommands, SpoutPipelining, ::testing::Values(1, 64));

// `next` commands are pipelined while the spout keeps emitting (the host writes the next ones
// before their syncs; one at a time with sparse.spout.max.unsynced.nexts: 1), and every tree is
// still acked exactly once.
class SpoutNextPipelining : public ::testing::TestWithParam<int> {};

TEST_P(SpoutNextPipelining, NextsAheadOnlyWhenAllowed) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: counting
spouts:
  - {id: numbers, command: [python3, raw_components.py, counting_spout, "200"], outputs: [n]}
bolts:
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: numbers}]
)");
  auto r =
      sb.Run(RunArgs(sb, {"-o", "sparse.spout.max.unsynced.nexts=" + std::to_string(GetParam())}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(sb.out_dir() / "counting-spout.json");
  const json seen = json::parse(in);
  EXPECT_EQ(seen["acked"], 200);
  if (GetParam() == 1) {
    EXPECT_EQ(seen["most_nexts_ahead"], 0);
  } else {
    EXPECT_GT(seen["most_nexts_ahead"], 0);
    EXPECT_LT(seen["most_nexts_ahead"], GetParam());
  }
  std::set<int> sunk;
  for (const auto& l : sb.Lines("sink-")) sunk.insert(l["values"][0].get<int>());
  EXPECT_EQ(sunk.size(), 200u);
}

INSTANTIATE_TEST_SUITE_P(UnsyncedNexts, SpoutNextPipelining, ::testing::Values(1, 8));

// Pipelined `next`s never take a spout past topology.max.spout.pending: the tuples the `next`s in
// flight may emit count as pending. The bolt never acks, so pending only grows until the cap.
TEST(SpoutNextPipelining, MaxSpoutPendingHolds) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: capped
config: {topology.max.spout.pending: 5, topology.message.timeout.secs: 30}
spouts:
  - {id: numbers, command: [python3, raw_components.py, counting_spout, "1000"], outputs: [n]}
bolts:
  - {id: hold, command: [python3, raw_components.py, never_ack], inputs: [numbers]}
)");
  auto r = sb.Run({"run", "topo.yaml", "-t", "2", "-o", "sparse.drain.secs=0", "-o",
                   "test.out=" + sb.out_dir().string()});
  std::ifstream in(sb.out_dir() / "counting-spout.json");
  ASSERT_TRUE(in) << r.err;
  const json seen = json::parse(in);
  EXPECT_EQ(seen["most_pending"], 5) << r.err;
}

// A spout that takes a while per `next` (1.2 s here, under a 3 s topology.subprocess.timeout.secs)
// is working, not stuck, however many `next`s wait for it in its pipe: the time a command is
// given counts from when the spout could start on it (its write, or the previous sync), not from
// its write alone. Each emitted tuple is acked, and the spout is never restarted.
TEST(SpoutNextPipelining, ASlowSpoutIsNotStuck) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: slow
config: {topology.subprocess.timeout.secs: 3, test.count: 4, test.next.sleep: 1.2}
spouts:
  - {id: numbers, command: )" +
                            Py("SlowNextSpout") +
                            R"(, outputs: [n]}
bolts:
  - {id: sink, command: )" + Py("RecordSink") +
                            R"(, inputs: [numbers]}
)");
  auto r = sb.Run(StatsRunArgs(sb, {"-t", "7"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("stuck"), std::string::npos) << r.err;
  const json spout = StatsOf(ReadStats(sb), "numbers");
  EXPECT_EQ(spout["restarts"], 0) << r.err;
  EXPECT_EQ(spout["acked"], 4) << r.err;
  EXPECT_EQ(sb.Lines("sink-").size(), 4u);
}

// Issue 18: values that are not valid JSON (`[tru]`) or are nested 100,000 deep passed the
// runtime and broke the bolt that received them, which was then blamed, and restarted in a loop,
// for the sender's fault. The runtime checks a tuple where it enters: the sender broke the
// protocol, and the receiver never sees the tuple.
// The two kinds of bad JSON a child may write (raw_components.py's INVALID_JSON) and the reason
// the runtime gives for each.
auto InvalidJsonCases() {
  return ::testing::Values(
      std::pair<std::string, std::string>{"tru", "invalid literal at byte 1"},
      std::pair<std::string, std::string>{
          "deep", "nested deeper than 511 levels (byte 511; messages nest at most 512)"});
}
std::string CaseName(const ::testing::TestParamInfo<std::pair<std::string, std::string>>& info) {
  return info.param.first;
}

class InvalidTuple : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(InvalidTuple, TheSenderIsBlamedNotTheReceiver) {
  const auto& [kind, reason] = GetParam();
  Sandbox sb;
  // A reliable spout replays what the broken bolt had, so the bolt keeps getting work.
  sb.Write("topo.yaml",
           OneBolt("[python3, raw_components.py, emit_invalid, " + kind + "]", "NumberSpout") +
               "  - {id: sink, command: " + Py("RecordSink") + ", inputs: [{from: bad}]}\n");
  auto r = sb.Run(RunArgs(sb, {"-o", "sparse.restart.max=1", "-o", "sparse.restart.backoff.ms=10",
                               "--stats-json", "stats.json"}));
  EXPECT_EQ(r.exit_code, 4) << r.err.substr(0, 3000);
  EXPECT_NE(r.err.find("crash loop: component `bad` (task 1) failed 2 times"), std::string::npos)
      << r.err.substr(0, 3000);
  EXPECT_NE(r.err.find("protocol violation: `tuple` is not a valid JSON array: " + reason),
            std::string::npos)
      << r.err.substr(0, 3000);
  EXPECT_EQ(r.err.find("component sink"), std::string::npos)
      << "the receiver did nothing wrong: " << r.err.substr(0, 3000);
  const auto sink = StatsOf(ReadStats(sb), "sink");
  EXPECT_EQ(sink["restarts"], 0) << sink.dump();
  EXPECT_EQ(sink["executed"], 0) << sink.dump();
  ExpectNoLeftovers(sb);
}

INSTANTIATE_TEST_SUITE_P(Issue18, InvalidTuple, InvalidJsonCases(), CaseName);

// A spout's message id goes back to the spout in its ack or fail: one the spout could not read
// back (not JSON, or nested past the limit) is refused where it enters, blaming the spout.
class InvalidMessageId : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(InvalidMessageId, IsRefusedAtTheEmit) {
  const auto& [kind, reason] = GetParam();
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: bad-ids
spouts:
  - {id: bad, command: [python3, raw_components.py, spout_invalid_id, )" +
                            kind + R"(], outputs: [x]}
bolts:
  - {id: sink, command: )" + Py("RecordSink") +
                            R"(, inputs: [{from: bad}]}
)");
  auto r = sb.Run(RunArgs(sb, {"-o", "sparse.restart.max=0", "--stats-json", "stats.json"}));
  EXPECT_EQ(r.exit_code, 4) << r.err.substr(0, 3000);
  EXPECT_NE(r.err.find("protocol violation: emit with an invalid message id: " + reason),
            std::string::npos)
      << r.err.substr(0, 3000);
  const auto sink = StatsOf(ReadStats(sb), "sink");
  EXPECT_EQ(sink["executed"], 0) << sink.dump();
  ExpectNoLeftovers(sb);
}

INSTANTIATE_TEST_SUITE_P(Issue18, InvalidMessageId, InvalidJsonCases(), CaseName);

TEST(Validation, InvalidTopologyExitsTwoWithFileAndLine) {
  Sandbox sb;
  sb.Write("topo.yaml",
           "name: bad\nspouts:\n  - {id: s, command: [a], outputs: [f]}\nbolts:\n"
           "  - {id: b, command: [a], inputs: [{from: s, grouping: fields, fields: [g]}]}\n");
  auto r = sb.Run({"run", "topo.yaml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("topo.yaml:5: fields grouping on `g`"), std::string::npos) << r.err;
}

// Issue 15: misspelt keys, wrong types and `-o key=abc` were accepted silently and a bad number
// meant *unlimited*. Every config problem of the file and the command line is reported at once
// (exit 2, file and line); a misspelt Storm key is a warning with a suggestion, and runs.
TEST(Validation, BadConfigIsReportedAllAtOnce) {
  Sandbox sb;
  sb.Write(
      "topo.yaml",
      "name: bad\nconfig:\n  topology.message.timeout.secs: \"thirty\"\n"
      "  sparse.queue.hihg.watermark: 10\n"
      "spouts:\n  - id: s\n    command: [a]\n    outputs: [f]\n"
      "    config: {topology.max.spout.pending: -1}\n"
      "bolts:\n  - {id: b, command: [a], inputs: [{from: s, grouping: fields, fields: [g]}]}\n");
  auto r = sb.Run({"run", "topo.yaml", "-o", "topology.max.spout.pending=abc"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  for (const char* want :
       {"command line (-o): `topology.max.spout.pending` must be a whole number, got \"abc\"",
        "topo.yaml:3: `topology.message.timeout.secs` must be a whole number, got \"thirty\"",
        "topo.yaml:4: unknown key `sparse.queue.hihg.watermark` (did you mean "
        "`sparse.queue.high.watermark`?)",
        "topo.yaml:9: component `s`: `topology.max.spout.pending` must be between 1 and "
        "1000000000, got -1",
        "topo.yaml:11: fields grouping on `g`"}) {
    EXPECT_NE(r.err.find(want), std::string::npos) << want << "\n" << r.err;
  }
}

TEST(Validation, MisspeltStormKeyWarnsAndRuns) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: typo
config: {topology.max.spout.pendng: 10, test.sentences: ["a"], test.repeat: 1}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
)");
  auto r = sb.Run(RunArgs(sb));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("sparse: warning: " + (sb.dir() / "topo.yaml").string() +
                       ":2: unknown key `topology.max.spout.pendng` (did you mean "
                       "`topology.max.spout.pending`?)"),
            std::string::npos)
      << r.err;
}

// Issue 18: a YAML alias bomb (9^9 values in 300 bytes) aborted `sparse run` with bad_alloc
// (exit 134); it is an invalid topology naming the file and line.
TEST(Validation, YamlAliasBombExitsTwoWithFileAndLine) {
  Sandbox sb;
  std::string yaml =
      "name: bomb\nspouts:\n  - id: s\n    command: [a]\n    outputs: [f]\n"
      "    config:\n      l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (int i = 1; i <= 9; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    yaml += "      l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) yaml += ", " + prev;
    yaml += "]\n";
  }
  sb.Write("topo.yaml", yaml);
  auto r = sb.Run({"run", "topo.yaml"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("topo.yaml:7: `config` expands to more than"), std::string::npos) << r.err;
}

TEST(Cpp, MixedPythonAndCppComponents) {
  Sandbox sb;
  // A Python spout, the C++ adapter's example splitter (parallelism 2), Python counters.
  sb.Write("topo.yaml", R"(name: mixed
config:
  test.sentences: ["the cow jumped over the moon", "the moon is bright"]
  test.repeat: 25
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") + R"(, outputs: [sentence]}
bolts:
  - id: split
    command: [)" + std::string(SPARSE_CPP_SPLIT) +
                            R"(]
    parallelism: 2
    outputs: [word]
    inputs: [{from: sentences}]
  - id: count
    command: )" + Py("CountBolt") +
                            R"(
    parallelism: 2
    outputs: [word, count]
    inputs: [{from: split, grouping: fields, fields: [word]}]
)");
  auto r = sb.Run(RunArgs(sb));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, int> final_counts;
  for (const auto& l : sb.Lines("count-")) {
    final_counts[l[0]] = std::max(final_counts[l[0]], l[1].get<int>());
  }
  EXPECT_EQ(final_counts, (std::map<std::string, int>{{"the", 75},
                                                      {"cow", 25},
                                                      {"jumped", 25},
                                                      {"over", 25},
                                                      {"moon", 50},
                                                      {"is", 25},
                                                      {"bright", 25}}));
  ExpectNoLeftovers(sb);
}

TEST(Cpp, QuickstartProjectBuildsAndRuns) {
  Sandbox sb;
  auto q = sb.Run({"quickstart", "cproj", "--lang", "cpp"});
  ASSERT_EQ(q.exit_code, 0) << q.err;
  // Run from inside the project, as a user would.
  Sandbox inner;
  auto r = inner.Run({"run", (sb.dir() / "cproj" / "topologies" / "wordcount.yaml").string(), "-t",
                      "3", "--stats-json", (sb.dir() / "stats.json").string()},
                     std::chrono::seconds(300));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("building C++ components"), std::string::npos);
  // The build shows its steps and how long it took (not a silent wait).
  EXPECT_NE(r.err.find("Built target word_count ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("built C++ components in "), std::string::npos) << r.err;
  EXPECT_TRUE(std::filesystem::exists(sb.dir() / "cproj" / "src" / "bin" / "word_count"));
  std::ifstream in(sb.dir() / "stats.json");
  json stats = json::parse(in);
  for (const auto& c : stats["components"]) {
    EXPECT_GT(c["acked"].get<int>(), 0) << c["id"];
    EXPECT_EQ(c["errors"], 0);
  }
  EXPECT_NE(r.err.find("words counted; top:"), std::string::npos) << "ticks logged the counts";

  // The project copied elsewhere with its _build/: CMake refuses a cache made for another folder,
  // so sparse configures it afresh rather than failing.
  std::filesystem::copy(sb.dir() / "cproj", sb.dir() / "copied",
                        std::filesystem::copy_options::recursive);
  auto copied = inner.Run(
      {"run", (sb.dir() / "copied" / "topologies" / "wordcount.yaml").string(), "-t", "2"},
      std::chrono::seconds(300));
  ASSERT_EQ(copied.exit_code, 0) << copied.err;
  EXPECT_NE(copied.err.find("_build/ is from elsewhere (it was configured for "), std::string::npos)
      << copied.err;

  // A compile error stops the run before anything starts, with the compiler's message.
  {
    std::ofstream(sb.dir() / "cproj" / "cpp" / "word_count.cpp", std::ios::app)
        << "\nthis is not C++;\n";
  }
  auto bad =
      inner.Run({"run", (sb.dir() / "cproj" / "topologies" / "wordcount.yaml").string(), "-t", "3"},
                std::chrono::seconds(300));
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_NE(bad.err.find("word_count.cpp"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("build of the C++ components failed"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace sparse::testing
