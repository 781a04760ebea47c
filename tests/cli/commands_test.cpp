// The `sparse` command line itself, end to end: help, misspelt commands and options, argument
// combinations refused before anything runs, and `quickstart`'s scaffolding. The real binary
// runs in a scratch folder; what a command does once its arguments are accepted is tested with
// its subject (tests/integration, tests/storm, tests/web, tests/kafka).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

namespace sparse::cli {
namespace {

// `sparse ARGS...` in `cwd`, with `env` added to the test's environment.
test::RunResult Sparse(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                       const std::map<std::string, std::string>& env = {}) {
  test::Command command{{SPARSE_BINARY}, cwd, env};
  command.argv.insert(command.argv.end(), args.begin(), args.end());
  return test::Run(command);
}

// Issue 15: bare `sparse` said "A subcommand is required"; a misspelt command or flag said only
// that it was not expected.
TEST(Cli, BareSparsePrintsTheHelp) {
  const test::TempDir dir;
  auto r = Sparse({}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Usage: sparse [OPTIONS] SUBCOMMAND"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("quickstart"), std::string::npos) << r.out;
}

TEST(Cli, MisspeltCommandsAndFlagsGetTheNearestName) {
  const test::TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"rn", "x.yaml"}, "unknown command `rn` (did you mean `run`?)"},
      {{"run", "--stop-whn-idle", "1", "x.yaml"},
       "unknown option `--stop-whn-idle` for `sparse run` (did you mean `--stop-when-idle`?)"},
      {{"kill", "x", "--nimbs", "h:1"},
       "unknown option `--nimbs` for `sparse kill` (did you mean `--nimbus`?)"},
      {{"--verison"}, "unknown option `--verison` for `sparse` (did you mean `--version`?)"},
  };
  for (const auto& [args, want] : cases) {
    auto r = Sparse(args, dir.path());
    EXPECT_EQ(r.exit_code, 1) << want;
    EXPECT_NE(r.err.find("sparse: error: " + want), std::string::npos) << r.err;
  }
}

// Issue 15: `quickstart --help` named python and cpp only; the kafka template was not findable.
TEST(Quickstart, HelpListsEveryTemplate) {
  const test::TempDir dir;
  auto r = Sparse({"quickstart", "--help"}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* want :
       {"Templates (--lang):", "  cpp       A sparse project whose components are C++ programs",
        "  kafka     A sparse project that reads click events from Kafka",
        "  python    A sparse project: a Storm-style topology"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
}

TEST(Quickstart, RefusesOverwriteAndUnsafeNames) {
  const test::TempDir dir;
  EXPECT_EQ(Sparse({"quickstart", "../evil"}, dir.path()).exit_code, 1);
  EXPECT_EQ(Sparse({"quickstart", "a b"}, dir.path()).exit_code, 1);
  auto ok = Sparse({"quickstart", "proj"}, dir.path());
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  for (const char* f : {"README.md", "sparse.yaml", "topologies/wordcount.yaml",
                        "src/spouts/words.py", "src/bolts/wordcount.py", ".gitignore"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "proj" / f)) << f;
  }
  auto again = Sparse({"quickstart", "proj"}, dir.path());
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_NE(again.err.find("already exists"), std::string::npos);
}

TEST(JarRun, RefusesATopologyAndAJarTogether) {
  const test::TempDir dir;
  const auto r = Sparse({"run", "x.yaml", "--jar", "y.jar"}, dir.path(), {{"NO_COLOR", "1"}});
  EXPECT_EQ(r.exit_code, 1) << test::Show(r);
  EXPECT_TRUE(r.err.find("either a topology or --jar") != std::string::npos) << r.err;
}

}  // namespace
}  // namespace sparse::cli
