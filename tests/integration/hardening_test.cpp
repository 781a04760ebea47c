// Issue 18: what a careless user, a hostile child or a stuck terminal must not be able to do to
// the runtime: block its loop, leak descriptors into children, leave processes or files behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <thread>

#include "harness.hpp"

namespace sparse::testing {
namespace {

std::vector<std::string> RunArgs(const Sandbox& sb, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {
      "run", "topo.yaml",    "--stop-when-idle", "1",  "-t",
      "120", "--stats-json", "stats.json",       "-o", "test.out=" + sb.out_dir().string()};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

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
  const pid_t pid = sb.Start(RunArgs(sb), fds[1]);
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
  auto r = sb.Run(RunArgs(sb));  // with the web view on (its socket is a descriptor to leak)
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
  - {id: sentences, command: )" + Py("SentenceSpout") +
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

// Item 10: a run killed with -9 left its scratch folder behind; the next run removes it (and
// keeps the folders of runs that are alive).
TEST(Hardening, TheNextRunRemovesTheScratchFolderOfAKilledRun) {
  Sandbox sb;
  const auto tmp = sb.dir() / "tmp";
  std::filesystem::create_directories(tmp);
  ::setenv("TMPDIR", tmp.c_str(), 1);
  sb.Write("topo.yaml", R"(name: killed
spouts:
  - {id: sentences, command: )" + Py("SentenceSpout") +
                            R"(, outputs: [sentence]}
)");
  const pid_t first = sb.Start({"run", "topo.yaml", "--no-ui"});
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

  auto r = sb.Run({"run", "topo.yaml", "--no-ui", "-t", "1"});
  ::unsetenv("TMPDIR");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(left)) << "the next run removed the dead run's folder";
  EXPECT_TRUE(scratch().empty()) << "and its own";
}

}  // namespace
}  // namespace sparse::testing
