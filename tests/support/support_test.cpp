// The tests' own helpers: a helper that lies would make every test that uses it lie.
#include <gtest/gtest.h>
#include <signal.h>

#include "support/files.hpp"
#include "support/process.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"
#include "support/wait_for.hpp"

namespace sparse::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(Run, GivesTheExitCodeAndBothOutputs) {
  const RunResult r = test::Run({{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
}

TEST(Run, InTheFolderWithTheEnvironmentAddedTo) {
  const TempDir dir;
  Command c;
  c.argv = {"/bin/sh", "-c", "pwd; echo \"$SPARSE_SUPPORT_TEST\"; test -n \"$PATH\""};
  c.cwd = dir.path();
  c.env = {{"SPARSE_SUPPORT_TEST", "here"}};
  const RunResult r = test::Run(c);
  EXPECT_EQ(r.exit_code, 0) << Show(r);
  EXPECT_EQ(r.out, fs::canonical(dir.path()).string() + "\nhere\n");
}

TEST(Run, AProgramKilledBySignalIs128PlusIt) {
  const RunResult r = test::Run({{"/bin/sh", "-c", "kill -TERM $$"}});
  EXPECT_EQ(r.exit_code, 128 + SIGTERM);
}

TEST(Run, AHungProgramIsKilledAtTheTimeout) {
  const RunResult r = test::Run({{"/bin/sleep", "60"}}, 200ms);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_NE(r.err.find("killed by the test after its timeout"), std::string::npos) << r.err;
}

TEST(Run, AMissingProgramIsAClearFailure) {
  const RunResult r = test::Run({{"/nonexistent/program"}});
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_NE(r.err.find("/nonexistent/program"), std::string::npos) << r.err;
}

TEST(Child, WaitsSignalsAndKeepsItsOutputInItsFiles) {
  const TempDir dir;
  Child c({{"/bin/sh", "-c", "echo started; exec sleep 60"}}, dir.path() / "c.out",
          dir.path() / "c.err");
  ASSERT_TRUE(c.started());
  EXPECT_TRUE(WaitFor([&] { return c.Stdout() == "started\n"; }, 10s));
  EXPECT_FALSE(c.Wait(0ms)) << "still running";
  c.Signal(SIGTERM);
  EXPECT_EQ(c.Wait(10s), 128 + SIGTERM);
  EXPECT_EQ(c.WaitOrKill(0ms), 128 + SIGTERM) << "the status is kept";
}

TEST(Child, IsKilledWhenItGoesAway) {
  pid_t pid = -1;
  {
    const TempDir dir;
    Child c({{"/bin/sleep", "60"}}, dir.path() / "out", dir.path() / "err");
    pid = c.pid();
    ASSERT_GT(pid, 0);
  }
  EXPECT_NE(::kill(pid, 0), 0) << "reaped, so no such process";
}

TEST(Spawn, WaitExitKillsAtTheTimeout) {
  const pid_t pid = Spawn({{"/bin/sleep", "60"}}, {});
  ASSERT_GT(pid, 0);
  EXPECT_EQ(WaitExit(pid, 100ms), -1);
  EXPECT_NE(::kill(pid, 0), 0);
}

TEST(TempDir, IsFreshAndRemovedWithEverythingInIt) {
  fs::path path;
  {
    const TempDir a("sparse-support-test");
    const TempDir b("sparse-support-test");
    EXPECT_NE(a.path(), b.path());
    EXPECT_TRUE(fs::is_empty(a.path()));
    EXPECT_EQ(a.path().filename().string().rfind("sparse-support-test-", 0), 0u);
    a.Write("deep/er/file", "text");
    EXPECT_EQ(ReadFile(a.path() / "deep/er/file"), "text");
    path = a.path();
  }
  EXPECT_FALSE(fs::exists(path));
}

TEST(Files, ReadIsByteForByteAndAMissingFileIsEmpty) {
  const TempDir dir;
  const std::string bytes("a\0b\r\n", 5);
  WriteFile(dir.path() / "x", bytes);
  EXPECT_EQ(ReadFile(dir.path() / "x"), bytes);
  EXPECT_EQ(ReadFile(dir.path() / "missing"), "");
}

TEST(WaitFor, TrueOnceTheConditionHolds) {
  int looks = 0;
  EXPECT_TRUE(WaitFor([&] { return ++looks == 3; }, 10s, {1ms, {}}));
  EXPECT_EQ(looks, 3);
}

TEST(WaitFor, FalseWhenItNeverHolds) {
  EXPECT_FALSE(WaitFor([] { return false; }, 50ms, {1ms, {}}));
}

TEST(WaitFor, GivingUpEarlyTakesOneLastLook) {
  int looks = 0;
  EXPECT_FALSE(WaitFor([&] { return ++looks > 100; }, 10s, {1ms, [] { return true; }}));
  EXPECT_EQ(looks, 2);
  EXPECT_TRUE(WaitFor([&] { return ++looks > 3; }, 10s, {1ms, [] { return true; }}));
}

TEST(ScopedEnv, RestoresTheValueOrTheAbsence) {
  ::unsetenv("SPARSE_SUPPORT_TEST_VAR");
  {
    const ScopedEnv outer("SPARSE_SUPPORT_TEST_VAR", "outer");
    {
      const ScopedEnv inner("SPARSE_SUPPORT_TEST_VAR", "inner");
      EXPECT_STREQ(::getenv("SPARSE_SUPPORT_TEST_VAR"), "inner");
    }
    EXPECT_STREQ(::getenv("SPARSE_SUPPORT_TEST_VAR"), "outer");
  }
  EXPECT_EQ(::getenv("SPARSE_SUPPORT_TEST_VAR"), nullptr);
}

}  // namespace
}  // namespace sparse::test
