// Issue 18: what a careless user, a hostile child or a stuck terminal must not be able to do to
// the runtime: block its loop, leak descriptors into children, leave processes or files behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "harness.hpp"

namespace sparse::testing {
namespace {

// Item 4: a console that does not read (a paused terminal, an unread pipe) froze the loop at
// the first full pipe: every task stopped, and healthy bolts were then killed as stuck. The
// console now has its own writer thread and drops what it cannot show.
TEST(Hardening, AConsoleThatDoesNotReadNeverStopsTheTopology) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: chatty
config: {test.count: 20000}
spouts:
  - {id: numbers, command: )" +
                            Py("NumberSpout") +
                            R"(, outputs: [n]}
bolts:
  - {id: chatty, command: )" +
                            Py("LogEveryTupleBolt") +
                            R"(, outputs: [n], inputs: [{from: numbers}]}
  - {id: sink, command: )" + Py("RecordSink") +
                            R"(, inputs: [{from: chatty}]}
)");
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_CLOEXEC), 0);
  // ~100 bytes of console per tuple: 2 MB, thirty times what the pipe holds. Nobody reads it.
  const pid_t pid = sb.Start(IdleRunArgs(sb), fds[1]);
  ::close(fds[1]);
  ASSERT_GT(pid, 0);
  const int code = sb.Wait(pid, std::chrono::seconds(150));
  ::close(fds[0]);
  ASSERT_EQ(code, 0) << "the run never ended: its loop waited for the console";
  EXPECT_EQ(sb.Lines("sink-").size(), 20000u);
  const auto stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "numbers")["acked"], 20000);
  EXPECT_EQ(StatsOf(stats, "chatty")["restarts"], 0);
  EXPECT_NE(ReadFile(sb.dir() / "bg.out").find("chatty"), std::string::npos) << "summary printed";
  ExpectNoLeftovers(sb);
}

// Item 6: children inherited the web view's listening socket, log files and their siblings'
// pipe ends, so one child could read or write another's protocol. Each component records the
// descriptors it starts with (before any interpreter opens its own) and must have only 0, 1, 2.
TEST(Hardening, ChildrenInheritOnlyTheirStdio) {
  Sandbox sb;
  const std::string probe =
      "[python3, fdprobe.py, python3, -m, sparse_multilang.run, components:PassBolt]";
  sb.Write("topo.yaml", R"(name: fds
config: {test.sentences: ["a b"], test.repeat: 3}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
bolts:
  - {id: first, parallelism: 3, command: )" +
                            probe + R"(, outputs: [sentence], inputs: [{from: sentences}]}
  - {id: second, parallelism: 2, command: )" +
                            probe + R"(, outputs: [sentence], inputs: [{from: first}]}
)");
  auto r = sb.Run(IdleRunArgs(sb));  // with the web view on (its socket is a descriptor to leak)
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE(r.err.find("web view: http"), std::string::npos) << r.err;
  int reports = 0;
  for (const auto& e : std::filesystem::directory_iterator(sb.dir())) {
    const std::string name = e.path().filename().string();
    if (name.rfind("fds-", 0) != 0) continue;
    ++reports;
    EXPECT_EQ(ReadFile(e.path()), "0 1 2 ") << name << ": descriptors beyond stdio were inherited";
  }
  EXPECT_EQ(reports, 5);
  ExpectNoLeftovers(sb);
}

// Item 9: `-t inf` ran forever, `-t 1e300` overflowed the deadline, `-t -5` and `-t nan` were
// taken. Every seconds option is a finite number in range, or a usage error (exit 1) naming it.
TEST(Hardening, BadDurationsAreUsageErrors) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: t
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
)");
  for (const std::string bad : {"inf", "1e300", "-5", "nan", "0", "ten"}) {
    auto r = sb.Run({"run", "topo.yaml", "-t", bad});
    EXPECT_EQ(r.exit_code, 1) << bad << ": " << r.err;  // a usage error
    EXPECT_NE(r.err.find("--time"), std::string::npos) << bad << ": " << r.err;
    EXPECT_NE(r.err.find(bad), std::string::npos) << bad << ": " << r.err;
  }
  auto r = sb.Run({"run", "topo.yaml", "-t", "1", "--wait", "-1"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--wait"), std::string::npos) << r.err;
  ExpectNoLeftovers(sb);
}

// Item 8: `parallelism: 100000` was accepted and spawning took 85 s and 1.3 GB. The task count
// is capped (sparse.max.tasks), with an error naming the component, its file and line.
TEST(Hardening, TooManyTasksIsAnErrorNamingTheComponent) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: many
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
bolts:
  - id: typo
    parallelism: 100000
    command: )" + Py("PassBolt") +
                            R"(
    inputs: [{from: sentences}]
)");
  auto r = sb.Run({"run", "topo.yaml", "-t", "5"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("topo.yaml:5"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("100001 tasks (`typo` alone has 100000)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("at most 1024"), std::string::npos) << r.err;
  EXPECT_TRUE(sb.ProcessesInside().empty()) << "nothing was started";
}

// Item 8: spawning blocked the loop, so Ctrl-C / SIGTERM waited for every process to start. Each
// task here records that it started, then never answers the handshake; SIGTERM arrives once the
// first has started, and the run stops starting more.
TEST(Hardening, SigtermWhileStartingStopsTheSpawning) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: slowstart
config: {sparse.max.tasks: 1000, sparse.shutdown.grace.secs: 1}
spouts:
  - id: mute
    parallelism: 1000
    command: [sh, -c, 'echo started >> started.txt; exec sleep 60']
    outputs: [x]
)");
  const pid_t pid = sb.Start({"run", "topo.yaml", "--no-ui"});
  ASSERT_GT(pid, 0);
  auto started = [&] {
    std::string text = ReadFile(sb.dir() / "started.txt");
    return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  };
  for (int i = 0; i < 1500 && started() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_GT(started(), 0);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(sb.Wait(pid, std::chrono::seconds(60)), 0);
  EXPECT_LT(started(), 500) << "the runtime kept spawning after SIGTERM";
  ExpectNoLeftovers(sb);
}

// Item 7: a component's `setsid` daemon outlived the run, after a clean stop and after kill -9
// of the runtime alike (it is in no process group of the run and gets no parent-death signal).
class Descendants : public ::testing::TestWithParam<bool> {};

TEST_P(Descendants, NoDaemonOutlivesTheRun) {
  const bool kill9 = GetParam();
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: daemons
config: {test.sentences: ["a b"], test.repeat: 3}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
bolts:
  - id: forks
    parallelism: 2
    command: [python3, daemonize.py, python3, -m, sparse_multilang.run, components:PassBolt]
    outputs: [sentence]
    inputs: [{from: sentences}]
)");
  const pid_t runtime = sb.Start({"run", "topo.yaml", "--no-ui", "-t", kill9 ? "60" : "3"});
  ASSERT_GT(runtime, 0);
  auto daemons = [&] {
    std::vector<pid_t> pids;
    for (const auto& e : std::filesystem::directory_iterator(sb.dir())) {
      const std::string name = e.path().filename().string();
      if (name.rfind("daemon-", 0) != 0) continue;
      const std::string text = ReadFile(e.path());
      if (!text.empty()) pids.push_back(static_cast<pid_t>(std::stol(text)));
    }
    return pids;
  };
  for (int i = 0; i < 1500 && daemons().size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(daemons().size(), 2u);
  // Running, not a zombie waiting for whoever adopted it to reap it.
  auto running = [](pid_t pid) {
    const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
  };
  for (pid_t d : daemons()) ASSERT_TRUE(running(d)) << "the daemon runs while the run does";
  if (kill9) ::kill(runtime, SIGKILL);
  const int code = sb.Wait(runtime, std::chrono::seconds(60));
  if (!kill9) {
    EXPECT_EQ(code, 0);
  }
  auto alive = [&] {
    int n = 0;
    for (pid_t d : daemons()) n += running(d) ? 1 : 0;
    return n;
  };
  // After kill -9 the guard process does it, a moment after the runtime died.
  for (int i = 0; i < 500 && alive() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(alive(), 0) << "a daemon outlived the run";
  ExpectNoLeftovers(sb);
}

INSTANTIATE_TEST_SUITE_P(CleanStopAndKill9, Descendants, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Kill9" : "CleanStop"; });

// Item 5: a bolt that stops reading its stdin but keeps it open, and keeps writing syncs (each a
// sign of life), was never restarted: the runtime's writes waited in a full pipe forever. A write
// that makes no progress for topology.subprocess.timeout.secs fails the task.
TEST(Hardening, ABoltThatStopsReadingButKeepsWritingFails) {
  Sandbox sb;
  const std::string sentence(2000, 'w');
  sb.Write("topo.yaml", R"(name: deaf
config: {test.sentences: [")" +
                            sentence +
                            R"("], test.repeat: 300}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
bolts:
  - id: deaf
    command: [python3, raw_components.py, stop_reading]
    outputs: [sentence]
    inputs: [{from: sentences}]
)");
  auto r = sb.Run(IdleRunArgs(
      sb, {"-o", "topology.subprocess.timeout.secs=2", "-o", "sparse.restart.max=0", "--no-ui"}));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("has not read its stdin for"), std::string::npos) << r.err;
  ExpectNoLeftovers(sb);
}

// Item 9: backpressure counted tuples only: 1,000 queued tuples of 512 KB held 530 MB. A byte
// budget per task (sparse.queue.high.watermark.bytes) stops the spouts as well. Here 300 KB
// tuples meet a slow bolt; the runtime's peak memory stays near the budget, far below what the
// tuple watermark alone lets it hold (600 tuples, 180 MB).
TEST(Hardening, BackpressureCountsBytesNotOnlyTuples) {
  Sandbox sb;
  const std::string sentence(300 * 1000, 'b');
  sb.Write("topo.yaml", R"(name: heavy
config: {test.sentences: [")" +
                            sentence +
                            R"("], test.repeat: 600, test.slow_ms: 5}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
bolts:
  - {id: slow, command: )" + Py("PassBolt") +
                            R"(, outputs: [sentence], inputs: [{from: sentences}]}
)");
  const pid_t pid =
      sb.Start(IdleRunArgs(sb, {"--no-ui", "-o", "sparse.queue.high.watermark.bytes=8000000", "-o",
                                "sparse.queue.low.watermark.bytes=4000000"}));
  ASSERT_GT(pid, 0);
  ASSERT_EQ(sb.Wait(pid, std::chrono::seconds(150)), 0) << ReadFile(sb.dir() / "bg.err");
  EXPECT_EQ(StatsOf(ReadStats(sb), "slow")["executed"], 600);
  const long max_rss_kb = RuntimePeakKb(sb);
  EXPECT_LT(max_rss_kb, 100 * 1024) << "the runtime held " << max_rss_kb / 1024 << " MB";
  ExpectNoLeftovers(sb);
}

// Item 9: one 100 MB message peaked at 3.4x the 64 MiB limit before it was refused: the read
// buffer doubled past the limit, and the lines of a message spread over many lines were held
// twice (in the read buffer and in the message being joined). The runtime now holds about one
// limit's worth, however the message is split into lines, and in MessagePack too.
class HugeMessage : public ::testing::TestWithParam<const char*> {};

TEST_P(HugeMessage, IsRefusedHoldingAboutTheLimit) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: huge
config: {test.sentences: ["a"], test.repeat: 1}
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
bolts:
  - id: huge
    command: [python3, raw_components.py, )" +
                            GetParam() + R"(]
    serializer: )" + (std::string(GetParam()).ends_with("msgpack") ? "msgpack" : "json") +
                            R"(
    outputs: [sentence]
    inputs: [{from: sentences}]
)");
  const pid_t pid = sb.Start(IdleRunArgs(sb, {"--no-ui", "-o", "sparse.restart.max=0"}));
  ASSERT_GT(pid, 0);
  EXPECT_EQ(sb.Wait(pid, std::chrono::seconds(120)), 4);
  const std::string err = ReadFile(sb.dir() / "bg.err");
  EXPECT_NE(err.find("message larger than 67108864 bytes"), std::string::npos)
      << err.substr(0, 2000);
  // The limit (64 MiB) plus the runtime itself (~10 MB): JSON peaks at ~75 MB, MessagePack (whose
  // unpacker keeps parsed strings in the buffers they arrived in) at 90-110 MB, depending on how
  // the child's writes and the runtime's reads interleave (measured 2026-12-04: 103-105 MB on an
  // idle machine, 90-109 MB beside two busy loops). Before the fix it was 134-204 MB.
  const bool msgpack = std::string(GetParam()).ends_with("msgpack");
  const long max_rss_kb = RuntimePeakKb(sb);
  EXPECT_LT(max_rss_kb, (msgpack ? 120 : 100) * 1024)
      << "the runtime held " << max_rss_kb / 1024 << " MB";
  ExpectNoLeftovers(sb);
}

INSTANTIATE_TEST_SUITE_P(JsonAndMsgpack, HugeMessage,
                         ::testing::Values("hundred_mb_line", "hundred_mb_lines",
                                           "hundred_mb_msgpack"));

// Item 10: a run killed with -9 left its scratch folder behind; the next run removes it (and
// keeps the folders of runs that are alive).
TEST(Hardening, TheNextRunRemovesTheScratchFolderOfAKilledRun) {
  Sandbox sb;
  const auto tmp = sb.dir() / "tmp";
  std::filesystem::create_directories(tmp);
  const std::map<std::string, std::string> env = {{"TMPDIR", tmp.string()}};
  sb.Write("topo.yaml", R"(name: killed
spouts:
  - {id: sentences, command: )" +
                            Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
)");
  const pid_t first = sb.Start({"run", "topo.yaml", "--no-ui"}, -1, env);
  ASSERT_GT(first, 0);
  auto scratch = [&] {
    std::vector<std::filesystem::path> found;
    for (const auto& e : std::filesystem::directory_iterator(tmp)) found.push_back(e.path());
    return found;
  };
  for (int i = 0; i < 500 && scratch().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(scratch().size(), 1u);
  const auto left = scratch()[0];
  ::kill(first, SIGKILL);
  sb.Wait(first, std::chrono::seconds(10));
  ASSERT_TRUE(std::filesystem::exists(left)) << "kill -9 leaves it";

  auto r = sb.Run({"run", "topo.yaml", "--no-ui", "-t", "1"}, std::chrono::seconds(60), env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(left)) << "the next run removed the dead run's folder";
  EXPECT_TRUE(scratch().empty()) << "and its own";
}

}  // namespace
}  // namespace sparse::testing
