// Topologies mixing C++ components (the header-only adapter, fixtures/cpp/mixed_components.cpp)
// with Python ones (fixtures/components.py), run by the real `sparse` binary: streams, direct
// grouping both ways, tick tuples, explicit fails, exceptions, crashes, and a C++ spout's tuple
// trees acked through Python bolts.
#include <signal.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "cpp_mixed.hpp"
#include "harness.hpp"

namespace sparse::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Runs until every spout tuple tree is settled and nothing happened for a second.
RunResult RunUntilIdle(const Sandbox& sb, std::vector<std::string> extra = {}) {
  extra.insert(extra.end(), {"--stop-when-idle", "1", "-t", "60"});
  return sb.Run(StatsRunArgs(sb, extra), 90s);
}

// Runs in the background until `done()` holds (checked every 50 ms, at most `limit`), then stops
// the runtime with SIGTERM (it drains in-flight trees and exits 0). For checks of what a spout
// records after its trees complete, which an idle stop could race with.
struct UntilResult {
  int exit_code = -1;
  bool condition_met = false;
  std::string err;
};
UntilResult RunUntil(const Sandbox& sb, std::vector<std::string> extra,
                     const std::function<bool()>& done, std::chrono::seconds limit = 30s) {
  UntilResult r;
  extra.insert(extra.end(), {"-t", "120"});
  const pid_t pid = sb.Start(StatsRunArgs(sb, extra));
  if (pid <= 0) return r;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    siginfo_t info{};
    // Peek (WNOWAIT) whether the runtime ended on its own; sb.Wait reaps it below.
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid) {
      break;
    }
    bool met = false;
    try {
      met = done();
    } catch (const json::parse_error&) {
      // A line being written as we read it: look again next round.
    }
    if (met) {
      r.condition_met = true;
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  ::kill(pid, SIGTERM);
  r.exit_code = sb.Wait(pid, 60s);
  r.err = ReadFile(sb.dir() / "bg.err");
  return r;
}

// How often each number occurs at `pointer` (a JSON pointer) in the lines.
std::map<int, int> Count(const std::vector<json>& lines, const std::string& pointer) {
  std::map<int, int> out;
  for (const auto& l : lines) out[l.at(json::json_pointer(pointer)).get<int>()]++;
  return out;
}

// {from: 1, ..., to - 1: 1}: each number once.
std::map<int, int> Each(int from, int to) {
  std::map<int, int> out;
  for (int n = from; n < to; ++n) out[n] = 1;
  return out;
}

int TaskOf(const std::string& file, const std::string& prefix) {
  return std::stoi(file.substr(prefix.size()));
}

// (1) A C++ bolt emits on three declared streams; a Python bolt per stream records what arrives.
TEST(CppMixed, CppBoltEmitsOnSeveralStreamsToPythonBolts) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-streams
config: {test.count: 60}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: fanout
    command: )" + CppMixed("streams") +
                            R"(
    parallelism: 2
    streams: {evens: [n], odds: [n], squares: [n, square]}
    inputs: [{from: numbers, grouping: shuffle}]
  - id: evens
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 2
    inputs: [{from: fanout, stream: evens, grouping: shuffle}]
  - id: odds
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 2
    inputs: [{from: fanout, stream: odds, grouping: fields, fields: [n]}]
  - id: squares
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 2
    inputs: [{from: fanout, stream: squares, grouping: all}]
)");
  auto r = RunUntilIdle(sb);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const auto evens = sb.Lines("evens-");
  const auto odds = sb.Lines("odds-");
  for (const auto& l : evens) {
    EXPECT_EQ(l["stream"], "evens") << l;
    EXPECT_EQ(l["source"], "fanout") << l;
  }
  for (const auto& l : odds) {
    EXPECT_EQ(l["stream"], "odds") << l;
    EXPECT_EQ(l["source"], "fanout") << l;
  }
  std::map<int, int> expect_evens, expect_odds;
  for (int n = 0; n < 60; ++n) (n % 2 == 0 ? expect_evens : expect_odds)[n] = 1;
  EXPECT_EQ(Count(evens, "/values/0"), expect_evens);
  EXPECT_EQ(Count(odds, "/values/0"), expect_odds);

  // `all` grouping: every square reaches both tasks of `squares`, once each.
  std::map<int, std::set<int>> squares_at;  // n -> tasks that got it
  int square_tasks = 0;
  for (const auto& [file, lines] : sb.LinesByFile("squares-")) {
    if (file.rfind("squares-ids-", 0) == 0) continue;
    ++square_tasks;
    EXPECT_EQ(Count(lines, "/values/0"), Each(0, 60)) << file;
    for (const auto& l : lines) {
      EXPECT_EQ(l["stream"], "squares") << l;
      EXPECT_EQ(l["source"], "fanout") << l;
      const int n = l["values"][0];
      EXPECT_EQ(l["values"][1].get<int>(), n * n) << l;
      squares_at[n].insert(TaskOf(file, "squares-"));
    }
  }
  EXPECT_EQ(square_tasks, 2);
  ASSERT_EQ(squares_at.size(), 60u);
  // The task ids the C++ bolt got back from its `squares` emits are where the tuples went.
  const auto replies = sb.Lines("squares-ids-");
  EXPECT_EQ(Count(replies, "/n"), Each(0, 60));
  for (const auto& rep : replies) {
    const auto ids = rep["ids"].get<std::set<int>>();
    EXPECT_EQ(ids.size(), 2u) << rep;
    EXPECT_EQ(ids, squares_at[rep["n"].get<int>()]) << rep;
  }

  const json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "numbers")["acked"], 60);
  EXPECT_EQ(StatsOf(stats, "numbers")["failed"], 0);
  EXPECT_EQ(StatsOf(stats, "fanout")["executed"], 60);
  EXPECT_EQ(StatsOf(stats, "fanout")["emitted"], 120);
  EXPECT_EQ(StatsOf(stats, "fanout")["transferred"], 60 + 120) << "evens/odds once, squares x2";
  EXPECT_EQ(StatsOf(stats, "squares")["executed"], 120);
  ExpectNoLeftovers(sb);
}

// (2a) A C++ bolt picks the receiving task itself, from the context's task list of the component
// that subscribes with a direct grouping.
// Issue 18: fields grouping hashed the JSON text, and the adapters spell strings differently:
// the C++ adapter writes "café" as UTF-8, Python's json writes "caf\u00e9". The same word from a
// C++ bolt and from a Python bolt reached two different tasks of the counting bolt.
TEST(CppMixed, FieldsGroupingSendsAWordToOneTaskWhicheverAdapterSpelledIt) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: spellings
config: {test.sentences: ["café", "naïve", "日本語", "a/b", "plain"], test.repeat: 10}
spouts:
  - {id: words, command: )" +
                            Py("SentenceSpout") + R"(, outputs: [word]}
bolts:
  - {id: py, command: )" + Py("PassBolt") +
                            R"(, outputs: [word], inputs: [{from: words}]}
  - {id: cpp, command: )" + CppMixed("echo") +
                            R"(, outputs: [word], inputs: [{from: words}]}
  - id: count
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 8
    inputs:
      - {from: py, grouping: fields, fields: [word]}
      - {from: cpp, grouping: fields, fields: [word]}
)");
  auto r = RunUntilIdle(sb);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, std::set<std::string>> files;
  std::map<std::string, std::set<std::string>> sources;
  std::map<std::string, int> seen;
  for (const auto& [file, lines] : sb.LinesByFile("count-")) {
    for (const auto& l : lines) {
      const std::string word = l["values"][0];
      files[word].insert(file);
      sources[word].insert(l["source"].get<std::string>());
      ++seen[word];
    }
  }
  for (const std::string word : {"café", "naïve", "日本語", "a/b", "plain"}) {
    EXPECT_EQ(seen[word], 20) << word;
    EXPECT_EQ(sources[word], (std::set<std::string>{"cpp", "py"})) << word;
    EXPECT_EQ(files[word].size(), 1u) << word << " reached several tasks";
  }
  ExpectNoLeftovers(sb);
}

TEST(CppMixed, CppBoltEmitsDirectToChosenPythonTasks) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-direct
config: {test.count: 60}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: director
    command: )" + CppMixed("direct") +
                            R"(
    parallelism: 2
    streams: {direct: {fields: [n, target], direct: true}}
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    parallelism: 3
    inputs: [{from: director, stream: direct, grouping: direct}]
)");
  auto r = RunUntilIdle(sb);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto by_file = sb.LinesByFile("sink-");
  ASSERT_EQ(by_file.size(), 3u) << "every sink task opened its file";
  std::vector<int> tasks;
  for (const auto& [file, _] : by_file) tasks.push_back(TaskOf(file, "sink-"));
  std::sort(tasks.begin(), tasks.end());
  std::map<int, int> all;
  for (const auto& [file, lines] : by_file) {
    const int task = TaskOf(file, "sink-");
    EXPECT_EQ(lines.size(), 20u) << file << ": n % 3 spreads 0..59 evenly";
    for (const auto& l : lines) {
      const int n = l["values"][0];
      EXPECT_EQ(l["stream"], "direct") << l;
      EXPECT_EQ(l["source"], "director") << l;
      EXPECT_EQ(l["values"][1].get<int>(), task) << "arrived where the bolt sent it: " << l;
      EXPECT_EQ(task, tasks[static_cast<std::size_t>(n) % tasks.size()]) << l;
      all[n]++;
    }
  }
  EXPECT_EQ(all, Each(0, 60));
  const json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "numbers")["acked"], 60);
  EXPECT_EQ(StatsOf(stats, "director")["transferred"], 60);
  ExpectNoLeftovers(sb);
}

// (2b) A Python bolt emits directly to one task of a C++ bolt (the highest task of `sink`).
TEST(CppMixed, PythonBoltEmitsDirectToCppTask) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: py-direct
config: {test.count: 40}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: director
    command: )" + Py("DirectBolt") +
                            R"(
    streams: {direct: {fields: [n], direct: true}}
    inputs: [{from: numbers}]
  - id: sink
    command: )" + CppMixed("record") +
                            R"(
    parallelism: 3
    inputs: [{from: director, stream: direct, grouping: direct}]
)");
  auto r = RunUntilIdle(sb);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto by_file = sb.LinesByFile("sink-");
  ASSERT_EQ(by_file.size(), 3u) << "every C++ sink task opened its file";
  int highest = 0;
  for (const auto& [file, _] : by_file) highest = std::max(highest, TaskOf(file, "sink-"));
  for (const auto& [file, lines] : by_file) {
    if (TaskOf(file, "sink-") != highest) {
      EXPECT_TRUE(lines.empty()) << file;
      continue;
    }
    EXPECT_EQ(Count(lines, "/values/0"), Each(0, 40));
    for (const auto& l : lines) {
      EXPECT_EQ(l["stream"], "direct") << l;
      EXPECT_EQ(l["source"], "director") << l;
    }
  }
  const json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "numbers")["acked"], 40);
  EXPECT_EQ(StatsOf(stats, "sink")["executed"], 40);
  ExpectNoLeftovers(sb);
}

// (3) Tick tuples reach a C++ bolt's process_tick, never its process(), and are not counted as
// tuples executed.
TEST(CppMixed, TickTuplesReachCppBolt) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-ticks
config: {test.count: 20}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: ticker
    command: )" + CppMixed("ticks") +
                            R"(
    inputs: [{from: numbers}]
    config: {topology.tick.tuple.freq.secs: 1}
  - id: quiet
    command: )" + CppMixed("ticks") +
                            R"(
    inputs: [{from: numbers, grouping: all}]
)");
  // Until the ticker has ticked at least twice and once after all 20 tuples.
  auto r = RunUntil(sb, {}, [&] {
    const auto ticks = sb.Lines("ticks-");
    const bool after_all =
        std::any_of(ticks.begin(), ticks.end(), [](const json& t) { return t["seen"] == 20; });
    return ticks.size() >= 2 && after_all;
  });
  ASSERT_TRUE(r.condition_met) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;

  const auto ticker_files = sb.LinesByFile("ticker-");
  ASSERT_EQ(ticker_files.size(), 1u);
  const int ticker_task = TaskOf(ticker_files.begin()->first, "ticker-");
  const auto ticks_by_file = sb.LinesByFile("ticks-");
  ASSERT_EQ(ticks_by_file.size(), 2u) << "both bolts opened their tick files";
  std::size_t ticks = 0;
  for (const auto& [file, lines] : ticks_by_file) {
    if (TaskOf(file, "ticks-") != ticker_task) {
      EXPECT_TRUE(lines.empty()) << "no tick config, no ticks: " << file;
      continue;
    }
    long long last_seen = 0;
    for (const auto& t : lines) {
      EXPECT_EQ(t["tick"], 1) << t;
      EXPECT_GE(t["seen"].get<long long>(), last_seen) << t;
      EXPECT_LE(t["seen"].get<long long>(), 20) << "ticks are not counted as tuples: " << t;
      last_seen = t["seen"];
    }
    ticks = lines.size();
  }
  EXPECT_GE(ticks, 2u);
  for (const char* bolt : {"ticker-", "quiet-"}) {
    const auto lines = sb.Lines(bolt);
    EXPECT_EQ(Count(lines, "/values/0"), Each(0, 20)) << bolt;
    for (const auto& l : lines) {
      EXPECT_EQ(l["stream"], "default") << l;
      EXPECT_EQ(l["source"], "numbers") << l;
    }
  }
  const json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "ticker")["executed"], 20) << "ticks are not executed tuples";
  EXPECT_EQ(StatsOf(stats, "ticker")["acked"], 20);
  EXPECT_EQ(StatsOf(stats, "ticker")["failed"], 0);
  EXPECT_EQ(StatsOf(stats, "numbers")["acked"], 20);
  ExpectNoLeftovers(sb);
}

// Ticks are the runtime's own clock, not activity: a topology whose bolt gets ticks still stops
// once its tuples are done (--stop-when-idle longer than the tick period).
TEST(CppMixed, TicksDoNotHoldOffTheIdleStop) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-ticks-idle
config: {test.count: 10}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: ticker
    command: )" + CppMixed("ticks") +
                            R"(
    inputs: [{from: numbers}]
    config: {topology.tick.tuple.freq.secs: 1}
)");
  auto r = sb.Run(StatsRunArgs(sb, {"--stop-when-idle", "3", "-t", "20"}), 60s);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE((r.out + r.err).find("idle for 3"), std::string::npos) << r.out << r.err;
  EXPECT_EQ((r.out + r.err).find("time limit"), std::string::npos) << r.out << r.err;
  EXPECT_EQ(Count(sb.Lines("ticker-"), "/values/0"), Each(0, 10));
  EXPECT_GE(sb.Lines("ticks-").size(), 1u) << "ticks came while the topology was idle";
  EXPECT_EQ(StatsOf(ReadStats(sb), "ticker")["executed"], 10);
  ExpectNoLeftovers(sb);
}

// (4a) A C++ bolt fails every multiple of 3, every time; the Python spout replays a failed tuple
// test.max_retries (2) times, then gives up on it. Everything else is acked once.
TEST(CppMixed, CppBoltFailsAlwaysAndPythonSpoutGivesUpAfterRetries) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-fail-always
config: {test.count: 30, test.max_retries: 2}
spouts:
  - {id: numbers, command: )" +
                            Py("LimitedRetrySpout") + R"(, outputs: [n]}
bolts:
  - id: picky
    command: )" + CppMixed("fail") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: picky}]
)");
  // The spout records a give-up after its last fail command, so wait for those, not for idleness.
  auto r = RunUntil(
      sb, {}, [&] { return sb.Lines("giveup-").size() >= 10 && sb.Lines("sink-").size() >= 20; });
  ASSERT_TRUE(r.condition_met) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, int> multiples, others, sightings;
  for (int n = 0; n < 30; ++n) {
    (n % 3 == 0 ? multiples : others)[n] = 1;
    sightings[n] = n % 3 == 0 ? 3 : 1;  // first emit plus two replays
  }
  EXPECT_EQ(Count(sb.Lines("sink-"), "/values/0"), others);
  EXPECT_EQ(Count(sb.Lines("seen-"), "/n"), sightings);
  EXPECT_EQ(Count(sb.Lines("giveup-"), ""), multiples);
  const json stats = ReadStats(sb);
  const json spout = StatsOf(stats, "numbers");
  EXPECT_EQ(spout["acked"], 20);
  EXPECT_EQ(spout["failed"], 30) << "10 numbers failed 3 times each";
  EXPECT_EQ(spout["timed_out"], 0);
  EXPECT_EQ(spout["emitted"], 50);
  const json picky = StatsOf(stats, "picky");
  EXPECT_EQ(picky["executed"], 50);
  EXPECT_EQ(picky["acked"], 20);
  EXPECT_EQ(picky["failed"], 30);
  EXPECT_EQ(picky["restarts"], 0);
  ExpectNoLeftovers(sb);
}

// (4b) The C++ bolt fails each multiple of 3 the first two times only: the replays succeed and
// every number ends up acked and at the sink exactly once.
TEST(CppMixed, CppBoltFailsTwiceAndReplaysSucceed) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-fail-twice
config: {test.count: 30, test.fail_times: 2}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: picky
    command: )" + CppMixed("fail") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: picky}]
)");
  auto r = RunUntilIdle(sb);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, int> sightings;
  for (int n = 0; n < 30; ++n) sightings[n] = n % 3 == 0 ? 3 : 1;
  EXPECT_EQ(Count(sb.Lines("sink-"), "/values/0"), Each(0, 30));
  EXPECT_EQ(Count(sb.Lines("seen-"), "/n"), sightings);
  const json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "numbers")["acked"], 30);
  EXPECT_EQ(StatsOf(stats, "numbers")["failed"], 20);
  EXPECT_EQ(StatsOf(stats, "picky")["failed"], 20);
  EXPECT_EQ(StatsOf(stats, "picky")["acked"], 30);
  ExpectNoLeftovers(sb);
}

// (4c) process() throws on 7 (the first time). The adapter's auto_fail (README: "report the error
// and fail the tuple; the bolt goes on with the next tuple") fails it at once: the same process
// keeps running, the error is reported, and the spout's replay of 7 goes through.
TEST(CppMixed, CppBoltExceptionFailsTheTupleAndTheBoltGoesOn) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-throw
config: {test.count: 30, test.throw_on: 7}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: thrower
    command: )" + CppMixed("throw") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: thrower}]
)");
  // A long message timeout: a replay of 7 can only come from the explicit fail.
  auto r = RunUntilIdle(sb, {"-o", "topology.message.timeout.secs=60", "--wait", "60"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(sb.Lines("sink-"), "/values/0"), Each(0, 30));
  auto sightings = Each(0, 30);
  sightings[7] = 2;
  const auto seen = sb.Lines("seen-");
  EXPECT_EQ(Count(seen, "/n"), sightings);
  std::set<int> pids;
  for (const auto& l : seen) pids.insert(l["pid"].get<int>());
  EXPECT_EQ(pids.size(), 1u) << "one process throughout: an exception does not end the bolt";
  const json stats = ReadStats(sb);
  const json thrower = StatsOf(stats, "thrower");
  EXPECT_EQ(thrower["restarts"], 0);
  EXPECT_EQ(thrower["errors"], 1);
  EXPECT_EQ(thrower["failed"], 1);
  EXPECT_EQ(thrower["acked"], 30);
  const json spout = StatsOf(stats, "numbers");
  EXPECT_EQ(spout["acked"], 30);
  EXPECT_EQ(spout["failed"], 1);
  EXPECT_EQ(spout["timed_out"], 0);
  EXPECT_NE(ReadFile(sb.dir() / "logs" / "thrower.log").find("process() threw: boom on 7"),
            std::string::npos)
      << "the adapter reports the exception";
  ExpectNoLeftovers(sb);
}

// (4d) The same with auto_fail off: the error is still reported, but the tuple is neither acked
// nor failed, so its tree times out (topology.message.timeout.secs) and is replayed.
TEST(CppMixed, CppBoltExceptionWithoutAutoFailTimesOut) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-throw-no-autofail
config: {test.count: 30, test.throw_on: 7, test.auto_fail: false}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: thrower
    command: )" + CppMixed("throw") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: thrower}]
)");
  auto r = RunUntilIdle(sb, {"-o", "topology.message.timeout.secs=2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Count(sb.Lines("sink-"), "/values/0"), Each(0, 30));
  const json stats = ReadStats(sb);
  const json thrower = StatsOf(stats, "thrower");
  EXPECT_EQ(thrower["restarts"], 0);
  EXPECT_EQ(thrower["errors"], 1);
  EXPECT_EQ(thrower["failed"], 0) << "auto_fail is off";
  EXPECT_EQ(thrower["acked"], 30);
  const json spout = StatsOf(stats, "numbers");
  EXPECT_EQ(spout["acked"], 30);
  EXPECT_EQ(spout["timed_out"], 1);
  EXPECT_EQ(spout["failed"], 1);
  ExpectNoLeftovers(sb);
}

// (4e) The C++ bolt process dies on 7: the runtime reports it, fails what the bolt had in flight,
// restarts it, and the reliable spout's replays bring every number to the sink.
TEST(CppMixed, CrashedCppBoltIsRestartedAndNothingIsLost) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-crash
config: {test.count: 30, test.crash_on: 7}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: crashy
    command: )" + CppMixed("crash") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: crashy}]
)");
  auto r = RunUntilIdle(sb, {"-o", "topology.message.timeout.secs=60", "--wait", "60", "-o",
                             "sparse.restart.backoff.ms=50"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("process exited with code 9"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("restarting it in"), std::string::npos) << r.err;
  // Exactly once: the adapter writes a tuple's emit and ack together, so what the dead process
  // had not sent is failed and replayed, and what it had sent is complete.
  EXPECT_EQ(Count(sb.Lines("sink-"), "/values/0"), Each(0, 30));
  std::set<int> pids;
  for (const auto& l : sb.Lines("seen-")) pids.insert(l["pid"].get<int>());
  EXPECT_EQ(pids.size(), 2u) << "the bolt ran in two processes";
  const json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "crashy")["restarts"], 1);
  const json spout = StatsOf(stats, "numbers");
  EXPECT_EQ(spout["acked"], 30);
  EXPECT_GE(spout["failed"].get<int>(), 1) << "7 at least was in flight when the bolt died";
  EXPECT_EQ(spout["timed_out"], 0) << "failed at once when the process died, not timed out";
  ExpectNoLeftovers(sb);
}

// (5) A reliable C++ spout feeding Python bolts: every tree is acked back to the C++ spout; the
// trees a Python bolt fails (multiples of 10, first time) reach its fail() and are replayed.
TEST(CppMixed, CppSpoutTreesAckedThroughPythonBolts) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: cpp-spout
config: {test.count: 50}
spouts:
  - {id: numbers, command: )" +
                            CppMixed("spout") + R"(, outputs: [n]}
bolts:
  - id: flaky
    command: )" + Py("FailOnceBolt") +
                            R"(
    parallelism: 2
    outputs: [n]
    inputs: [{from: numbers, grouping: fields, fields: [n]}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: flaky}]
)");
  // The spout records acks as it gets them; wait until it has all 50.
  auto r = RunUntil(sb, {}, [&] {
    int acks = 0;
    for (const auto& l : sb.Lines("spout-")) acks += l.contains("ack") ? 1 : 0;
    return acks >= 50;
  });
  ASSERT_TRUE(r.condition_met) << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> acks, fails;
  for (const auto& l : sb.Lines("spout-")) (l.contains("ack") ? acks : fails).push_back(l);
  EXPECT_EQ(Count(acks, "/ack"), Each(0, 50));
  EXPECT_EQ(Count(fails, "/fail"),
            (std::map<int, int>{{0, 1}, {10, 1}, {20, 1}, {30, 1}, {40, 1}}));
  EXPECT_EQ(Count(sb.Lines("sink-"), "/values/0"), Each(0, 50));
  const json stats = ReadStats(sb);
  const json spout = StatsOf(stats, "numbers");
  EXPECT_EQ(spout["emitted"], 55) << "50 numbers and 5 replays";
  EXPECT_EQ(spout["acked"], 50);
  EXPECT_EQ(spout["failed"], 5);
  EXPECT_EQ(spout["timed_out"], 0);
  EXPECT_EQ(StatsOf(stats, "flaky")["failed"], 5);
  EXPECT_EQ(StatsOf(stats, "sink")["acked"], 50);
  ExpectNoLeftovers(sb);
}

}  // namespace
}  // namespace sparse::testing
