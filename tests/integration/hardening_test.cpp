// Issue 18: what a careless user, a hostile child or a stuck terminal must not be able to do to
// the runtime: block its loop, leak descriptors into children, leave processes or files behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

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

}  // namespace
}  // namespace sparse::testing
