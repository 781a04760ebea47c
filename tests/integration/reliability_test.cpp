// Guaranteed processing, backpressure and supervision, with real processes (issue 3).
#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "harness.hpp"

namespace sparse::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

std::string Cmdline(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto& c : s) {
    if (c == '\0') c = ' ';
  }
  return s;
}

std::vector<pid_t> PidsRunning(const Sandbox& sb, const std::string& needle) {
  std::vector<pid_t> out;
  for (pid_t p : sb.ProcessesInside()) {
    if (Cmdline(p).find(needle) != std::string::npos) out.push_back(p);
  }
  return out;
}

constexpr const char* kPipeline = R"(name: numbers
spouts:
  - {id: numbers, command: [python3, -m, sparse_multilang.run, "components:NumberSpout"], outputs: [n]}
bolts:
  - id: first
    command: [python3, -m, sparse_multilang.run, "components:PassBolt"]
    parallelism: 2
    outputs: [n]
    inputs: [{from: numbers}]
  - id: second
    command: [python3, -m, sparse_multilang.run, "components:PassBolt"]
    parallelism: 2
    outputs: [n]
    inputs: [{from: first, grouping: fields, fields: [n]}]
  - id: sink
    command: [python3, -m, sparse_multilang.run, "components:RecordSink"]
    inputs: [{from: second}]
)";

TEST(Reliability, EveryNumberArrivesDespiteKilledBoltTasks) {
  Sandbox sb;
  sb.Write("topo.yaml", kPipeline);
  pid_t runtime = sb.Start(StatsRunArgs(
      sb, {"--stop-when-idle", "2", "-t", "150", "-o", "test.count=10000", "-o",
           "topology.max.spout.pending=500", "-o", "topology.message.timeout.secs=5"}));
  ASSERT_GT(runtime, 0);
  std::mt19937 rng(7);
  int kills = 0;
  const auto deadline = std::chrono::steady_clock::now() + 120s;
  while (kills < 4 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(100ms);
    const auto received = sb.Lines("sink-").size();
    if (received < 1500u * (kills + 1)) continue;  // spread the kills over the run
    auto pids = PidsRunning(sb, "components:PassBolt");
    if (pids.empty()) continue;
    ::kill(pids[rng() % pids.size()], SIGKILL);
    ++kills;
  }
  EXPECT_EQ(kills, 4) << "the run ended before all kills happened";
  const int code = sb.Wait(runtime, 150s);
  ASSERT_EQ(code, 0) << std::ifstream(sb.dir() / "bg.err").rdbuf();
  std::map<int, int> seen;
  for (const auto& l : sb.Lines("sink-")) seen[l["values"][0].get<int>()]++;
  EXPECT_EQ(seen.size(), 10000u) << "every number reaches the sink at least once";
  int duplicates = 0;
  for (const auto& [n, c] : seen) duplicates += c - 1;
  // A killed task loses at most what was in flight for it; replays are bounded by
  // max.spout.pending per kill.
  EXPECT_LE(duplicates, 4 * 500);
  json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "first")["restarts"].get<int>() +
                StatsOf(stats, "second")["restarts"].get<int>(),
            4);
  EXPECT_GE(StatsOf(stats, "numbers")["acked"].get<int>(), 10000);
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

TEST(Reliability, FailedAndTimedOutTuplesAreReplayed) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: replay
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: flaky
    command: )" + Py("FailOnceBolt") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
  - id: sink
    command: )" + Py("RecordSink") +
                            R"(
    inputs: [{from: flaky}]
)");
  // max.spout.pending bounds the queue ahead of every tuple, so on a loaded machine only the
  // dropped ones time out (all 1000 at once could wait longer than the timeout in the bolts).
  auto r = sb.Run(StatsRunArgs(
      sb, {"--stop-when-idle", "2", "-t", "100", "-o", "test.count=1000", "-o", "test.drop_mod=100",
           "-o", "topology.message.timeout.secs=3", "-o", "topology.max.spout.pending=100"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<int> seen;
  for (const auto& l : sb.Lines("sink-")) seen.insert(l["values"][0].get<int>());
  EXPECT_EQ(seen.size(), 1000u);
  json spout = StatsOf(ReadStats(sb), "numbers");
  EXPECT_EQ(spout["timed_out"], 10) << "n % 100 == 1 were never acked the first time";
  EXPECT_EQ(spout["failed"], 100 + 10) << "explicit fails plus timeouts";
  EXPECT_EQ(spout["acked"], 1000);
}

TEST(Reliability, AckingOffAcksOnEmit) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: noack
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: flaky
    command: )" + Py("FailOnceBolt") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
)");
  auto r = sb.Run(StatsRunArgs(sb, {"--stop-when-idle", "1", "-t", "60", "-o", "test.count=200",
                                    "-o", "topology.acker.executors=0"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json spout = StatsOf(ReadStats(sb), "numbers");
  EXPECT_EQ(spout["acked"], 200);
  EXPECT_EQ(spout["failed"], 0) << "untracked: the bolt's fails do not reach the spout";
}

TEST(Supervision, HungBoltIsDetectedAndRestarted) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: hung
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: hung
    command: [python3, raw_components.py, hang]
    inputs: [{from: numbers}]
)");
  auto r = sb.Run(StatsRunArgs(sb, {"-t", "6", "-o", "topology.subprocess.timeout.secs=2", "-o",
                                    "sparse.restart.max=100", "--wait", "0"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto pos = r.err.find("no heartbeat reply or other message for ");
  ASSERT_NE(pos, std::string::npos) << r.err;
  // The runtime's own measurement of the silence when it gave up: the timeout, plus the
  // housekeeping period and whatever a loaded machine adds.
  const double silent = std::stod(r.err.substr(pos + 40, 5));
  EXPECT_GE(silent, 2.0);
  EXPECT_LE(silent, 5.0);
  EXPECT_GE(StatsOf(ReadStats(sb), "hung")["restarts"].get<int>(), 1);
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

TEST(Supervision, BusyBoltIsNotKilled) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: busy
config: {test.count: 1}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: busy
    command: )" + Py("BusyBolt") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
)");
  // One process call lasts 5 heartbeat periods and more than twice the subprocess timeout.
  auto r = sb.Run(StatsRunArgs(sb, {"--stop-when-idle", "1", "-t", "60", "-o", "test.busy_s=5",
                                    "-o", "topology.subprocess.timeout.secs=2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json busy = StatsOf(ReadStats(sb), "busy");
  EXPECT_EQ(busy["restarts"], 0) << r.err;
  EXPECT_EQ(busy["acked"], 1);
  EXPECT_EQ(sb.Lines("busy-").size(), 1u);
}

class Violations : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(Violations, RestartedWithTheErrorReported) {
  const auto& [mode, message] = GetParam();
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: violation
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: bad
    command: [python3, raw_components.py, )" +
                            mode + R"(]
    outputs: [x]
    inputs: [{from: numbers}]
)");
  auto r = sb.Run(StatsRunArgs(sb, {"-t", "3", "--wait", "0", "-o", "sparse.restart.max=100", "-o",
                                    "sparse.restart.backoff.ms=50"}));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("restarting it in"), std::string::npos);
  EXPECT_GE(StatsOf(ReadStats(sb), "bad")["restarts"].get<int>(), 1);
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

INSTANTIATE_TEST_SUITE_P(
    Modes, Violations,
    ::testing::Values(std::make_pair("garbage", "protocol violation: not a JSON object"),
                      std::make_pair("ack_unknown", "ack of unknown tuple id \"424242\""),
                      std::make_pair("anchor_acked", "emit anchored to unknown tuple id")));

TEST(Supervision, CrashOnEveryTupleEndsInCrashLoop) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: crashy
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: crashy
    command: )" + Py("CrashOnEveryTuple") +
                            R"(
    inputs: [{from: numbers}]
)");
  auto r = sb.Run(StatsRunArgs(
      sb, {"-t", "60", "-o", "sparse.restart.max=3", "-o", "sparse.restart.backoff.ms=20"}));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("crash loop: component `crashy` (task 1) failed 4 times"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("process exited with code 3"), std::string::npos);
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

long RssKb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

TEST(Backpressure, SlowBoltKeepsRuntimeMemoryBounded) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: slow
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: slow
    command: )" + Py("PassBolt") +
                            R"(
    outputs: [n]
    inputs: [{from: numbers}]
)");
  // No max.spout.pending: only backpressure stands between a fast spout and a 2 ms bolt.
  pid_t runtime = sb.Start(StatsRunArgs(
      sb, {"-t", "8", "--wait", "20", "-o", "test.count=100000000", "-o", "test.slow_ms=2", "-o",
           "sparse.queue.high.watermark=200", "-o", "sparse.queue.low.watermark=100"}));
  long max_rss = 0;
  for (int i = 0; i < 70; ++i) {
    std::this_thread::sleep_for(100ms);
    max_rss = std::max(max_rss, RssKb(runtime));
  }
  ASSERT_EQ(sb.Wait(runtime, 60s), 0);
  EXPECT_GT(max_rss, 0);
  EXPECT_LT(max_rss, 40 * 1024) << "runtime RSS in KiB";
  json stats = ReadStats(sb);
  EXPECT_GT(StatsOf(stats, "numbers")["backpressure_ms"].get<int>(), 1000);
  EXPECT_EQ(StatsOf(stats, "slow")["failed"], 0) << "nothing dropped or failed";
}

TEST(Supervision, KillingTheRuntimeLeavesNoChild) {
  Sandbox sb;
  sb.Write("topo.yaml", kPipeline);
  pid_t runtime = sb.Start(StatsRunArgs(sb, {"-t", "60", "-o", "test.count=100000000"}));
  for (int i = 0; i < 100 && sb.Lines("sink-").size() < 100; ++i)
    std::this_thread::sleep_for(100ms);
  ASSERT_GE(sb.ProcessesInside().size(), 6u) << "all components running";
  ::kill(runtime, SIGKILL);
  sb.Wait(runtime, 10s);
  for (int i = 0; i < 50 && !sb.ProcessesInside().empty(); ++i) std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(sb.ProcessesInside().empty()) << "children outlived a SIGKILLed runtime";
}

TEST(Shutdown, SigtermDrainsInFlightTuples) {
  Sandbox sb;
  sb.Write("topo.yaml", kPipeline);
  pid_t runtime = sb.Start(StatsRunArgs(
      sb, {"-t", "60", "-o", "test.count=100000000", "-o", "topology.max.spout.pending=200"}));
  for (int i = 0; i < 100 && sb.Lines("sink-").size() < 200; ++i)
    std::this_thread::sleep_for(100ms);
  ::kill(runtime, SIGTERM);
  EXPECT_EQ(sb.Wait(runtime, 40s), 0);
  json spout = StatsOf(ReadStats(sb), "numbers");
  EXPECT_EQ(spout["emitted"], spout["acked"]) << "every emitted tree completed before stopping";
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

TEST(Shutdown, DrainWaitsForTheSpoutsUnansweredNext) {
  // Each next_tuple sleeps 0.5 s before it emits: the stop comes while a `next` is unanswered.
  // Its emit still starts a tree, so the drain waits for the spout's `sync` and completes that
  // tree too, instead of stopping with it half done.
  Sandbox sb;
  std::string topo = kPipeline;
  topo.replace(topo.find("components:NumberSpout"), 22, "components:SlowNextSpout");
  sb.Write("topo.yaml", topo);
  pid_t runtime = sb.Start(StatsRunArgs(sb, {"-t", "60", "-o", "test.count=1000"}));
  for (int i = 0; i < 100 && sb.Lines("sink-").empty(); ++i) std::this_thread::sleep_for(100ms);
  ASSERT_FALSE(sb.Lines("sink-").empty());
  ::kill(runtime, SIGTERM);
  EXPECT_EQ(sb.Wait(runtime, 40s), 0);
  json spout = StatsOf(ReadStats(sb), "numbers");
  EXPECT_GE(spout["emitted"].get<int>(), 2) << "the answer to the last `next` was taken";
  EXPECT_EQ(spout["emitted"], spout["acked"]) << "every emitted tree completed before stopping";
  EXPECT_EQ(sb.Lines("sink-").size(), spout["emitted"].get<std::size_t>());
}

TEST(Supervision, KilledSpoutIsRestartedAndTheRestGoesOn) {
  Sandbox sb;
  sb.Write("topo.yaml", kPipeline);
  pid_t runtime = sb.Start(StatsRunArgs(
      sb, {"-t", "60", "-o", "test.count=100000000", "-o", "topology.max.spout.pending=100"}));
  for (int i = 0; i < 600 && sb.Lines("sink-").size() < 100; ++i)
    std::this_thread::sleep_for(100ms);
  auto spouts = PidsRunning(sb, "components:NumberSpout");
  ASSERT_EQ(spouts.size(), 1u);
  ::kill(spouts[0], SIGKILL);
  // The restarted spout starts again from 0: wait until it has emitted well past where it was.
  const auto before = sb.Lines("sink-").size();
  for (int i = 0; i < 600 && sb.Lines("sink-").size() < before + 300; ++i) {
    std::this_thread::sleep_for(100ms);
  }
  ::kill(runtime, SIGTERM);
  ASSERT_EQ(sb.Wait(runtime, 40s), 0);
  json stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "numbers")["restarts"], 1);
  EXPECT_GE(sb.Lines("sink-").size(), before + 300) << "the topology kept running";
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

TEST(Shutdown, SecondSignalForces) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: stubborn
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") + R"(, outputs: [n]}
bolts:
  - id: stubborn
    command: [python3, raw_components.py, ignore_sigterm]
    inputs: [{from: numbers}]
)");
  pid_t runtime = sb.Start(StatsRunArgs(sb, {"-t", "60", "-o", "test.count=100000000", "-o",
                                             "sparse.shutdown.grace.secs=60", "--wait", "0"}));
  // Wait until every task is ready (the bolt ignores SIGTERM from then on).
  auto running = [&] {
    std::ifstream in(sb.dir() / "bg.err");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text.find("running stubborn") != std::string::npos;
  };
  for (int i = 0; i < 200 && !running(); ++i) std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(running());
  ::kill(runtime, SIGINT);
  std::this_thread::sleep_for(500ms);
  ::kill(runtime, SIGINT);
  EXPECT_EQ(sb.Wait(runtime, 20s), 130) << "a second Ctrl-C does not wait for the grace period";
  for (int i = 0; i < 30 && !sb.ProcessesInside().empty(); ++i) std::this_thread::sleep_for(100ms);
  EXPECT_TRUE(sb.ProcessesInside().empty());
}

}  // namespace
}  // namespace sparse::testing
