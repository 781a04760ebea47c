// Issue 15: a calm console. Everything a task causes to be printed (logs, errors, stderr) draws on
// one budget per task, repeats collapse into a count, the log files keep every line, and the
// summary shows the whole last error. A spout that fails on every `next` is a crash loop.
#include <gtest/gtest.h>

#include "harness.hpp"

namespace sparse::testing {
namespace {

std::vector<std::string> NoUiRunArgs(const Sandbox& sb, std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "--no-ui");
  return IdleRunArgs(sb, std::move(extra));
}

std::string Topology(const std::string& bolt_class) {
  return "name: noisy\nspouts:\n  - {id: numbers, command: " + Py("SentenceSpout") +
         ", outputs: [sentence]}\nbolts:\n  - {id: noisy, command: " + Py(bolt_class) +
         ", outputs: [n], inputs: [{from: numbers}]}\n";
}

TEST(Console, ABoltRaisingOnEveryTupleShowsATracebackOnceAndCountsTheRest) {
  Sandbox sb;
  sb.Write("topo.yaml", Topology("RaiseOnEveryTuple"));
  // 3,000 tuples, each a traceback of ~5 lines: 15,000 console lines without a budget.
  auto r = sb.Run(NoUiRunArgs(sb, {"-o", "test.repeat=3000"}), std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 3000);
  const auto stats = ReadStats(sb);
  EXPECT_EQ(StatsOf(stats, "noisy")["errors"], 3000) << "every error counted";
  const std::size_t shown = CountOf(r.err, "error in noisy:1");
  EXPECT_GE(shown, 1u);
  EXPECT_LE(shown, 20u) << "one traceback, then counts (and again every 30 s)";
  EXPECT_NE(r.err.find("more like this (every line is in"), std::string::npos) << r.err;
  // The log file has all of them.
  const std::string log = ReadFile(sb.dir() / "logs" / "noisy.log");
  EXPECT_EQ(CountOf(log, "ValueError: cannot handle"), 3000u);
  // The summary shows the whole last error, down to the exception line.
  const auto at = r.out.find("noisy: last error:");
  ASSERT_NE(at, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ValueError: cannot handle 'the cow jumped over the moon'", at),
            std::string::npos)
      << r.out;
  ExpectNoLeftovers(sb);
}

TEST(Console, AChattyBoltIsCappedWhileItsLogKeepsEveryLine) {
  Sandbox sb;
  sb.Write("topo.yaml", Topology("LogEveryTupleBolt"));
  auto r = sb.Run(NoUiRunArgs(sb, {"-o", "test.repeat=5000"}), std::chrono::seconds(120));
  ASSERT_EQ(r.exit_code, 0) << r.err.substr(0, 3000);
  const std::size_t shown = CountOf(r.err, "[noisy:1] got");
  EXPECT_GE(shown, 1u);
  // A burst of 100 lines and 20 a second: far below the 5,000 lines logged, however slow the run.
  EXPECT_LT(shown, 2000u) << r.err.substr(0, 2000);
  // Its lines differ only in numbers: they collapse into one count.
  EXPECT_NE(r.err.find("more like this (every line is in"), std::string::npos)
      << r.err.substr(0, 3000);
  const std::string log = ReadFile(sb.dir() / "logs" / "noisy.log");
  EXPECT_EQ(CountOf(log, "got ["), 5000u);
  ExpectNoLeftovers(sb);
}

TEST(Console, ASpoutRaisingOnEveryNextIsACrashLoop) {
  Sandbox sb;
  sb.Write("topo.yaml", R"(name: dead
spouts:
  - {id: dead, command: )" + Py("RaiseOnEveryNext") +
                            R"(, outputs: [n]}
bolts:
  - {id: sink, command: )" + Py("RecordSink") +
                            R"(, inputs: [{from: dead}]}
)");
  // No idle stop: this spout never emits, so a loaded machine would reach "idle for 1 s" before
  // the crash loop (three starts of 20 failing `next`s) has run its course.
  auto r = sb.Run(StatsRunArgs(
      sb, {"--no-ui", "-t", "60", "-o", "sparse.restart.max=2", "-o",
           "sparse.restart.backoff.ms=10", "-o", "sparse.spout.max.failing.nexts=20"}));
  EXPECT_EQ(r.exit_code, 4) << r.err.substr(0, 3000);
  EXPECT_NE(r.err.find("reported an error instead of emitting on 20 `next`s in a row"),
            std::string::npos)
      << r.err.substr(0, 3000);
  EXPECT_NE(r.err.find("RuntimeError: the source is gone"), std::string::npos);
  EXPECT_NE(r.err.find("crash loop: component `dead` (task 1) failed 3 times"), std::string::npos)
      << r.err.substr(0, 3000);
  ExpectNoLeftovers(sb);
}

}  // namespace
}  // namespace sparse::testing
