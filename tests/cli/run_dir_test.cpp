// Leftovers of killed runs (issue 18, item 10): the run's scratch folder names its owner by pid
// and start time; the next run removes those whose owner is gone, and nothing else.
#include "cli/run_dir.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "cli/process_identity.hpp"
#include "support/scoped_env.hpp"
#include "support/temp_dir.hpp"

namespace sparse::cli {
namespace {

namespace fs = std::filesystem;

// The identity of a process that has exited and been reaped.
ProcessIdentity DeadProcess() {
  const pid_t child = ::fork();
  if (child == 0) {
    ::pause();  // killed below
    ::_exit(0);
  }
  ProcessIdentity id{static_cast<int>(child), ProcessIdentity::StartTicksOf(child).value_or(0)};
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  return id;
}

struct TempRoot {
  const test::TempDir tmp{"sparse-rundir-test"};
  const fs::path& dir = tmp.path();
  fs::path Folder(const std::string& name, const std::optional<ProcessIdentity>& owner) const {
    fs::create_directories(dir / name / "pids");
    if (owner) std::ofstream(dir / name / "owner") << owner->Encode() << "\n";
    return dir / name;
  }
};

TEST(ProcessIdentity, SelfIsAliveAndADeadProcessIsNot) {
  const auto me = ProcessIdentity::Self();
  EXPECT_GT(me.start_ticks, 0u);
  EXPECT_TRUE(me.Alive());
  EXPECT_FALSE(DeadProcess().Alive());
}

// The pid is alive but belongs to a later process: the owner is gone all the same.
TEST(ProcessIdentity, AReusedPidIsNotTheOwner) {
  auto other = ProcessIdentity::Self();
  other.start_ticks += 1;
  EXPECT_FALSE(other.Alive());
}

TEST(ProcessIdentity, EncodesAndRejectsGarbage) {
  const ProcessIdentity id{1234, 987654321};
  const auto back = ProcessIdentity::Decode(id.Encode());
  ASSERT_TRUE(back);
  EXPECT_EQ(back->pid, 1234);
  EXPECT_EQ(back->start_ticks, 987654321u);
  EXPECT_FALSE(ProcessIdentity::Decode("not a pid"));
  EXPECT_FALSE(ProcessIdentity::Decode("-5 1"));
  EXPECT_TRUE(ProcessIdentity::Decode("42"));  // older files: pid only
}

TEST(RunDir, RemovesOnlyFoldersOfDeadRuns) {
  TempRoot root;
  const auto dead = root.Folder("sparse-run-dead01", DeadProcess());
  const auto live = root.Folder("sparse-run-live01", ProcessIdentity::Self());
  const auto fresh_ownerless = root.Folder("sparse-run-new001", std::nullopt);
  const auto garbage_owner = root.Folder("sparse-run-junk01", std::nullopt);
  std::ofstream(garbage_owner / "owner") << "garbage\n";
  const auto unrelated = root.Folder("someone-else", DeadProcess());
  // A link planted in the temporary folder is never followed.
  const auto target = root.Folder("target", DeadProcess());
  fs::create_directory_symlink(target, root.dir / "sparse-run-link01");

  const auto removed = RemoveStaleRunDirs(root.dir);
  EXPECT_EQ(removed.size(), 2u);
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_FALSE(fs::exists(garbage_owner));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(fresh_ownerless)) << "may be a run being created this instant";
  EXPECT_TRUE(fs::exists(unrelated));
  EXPECT_TRUE(fs::exists(target / "owner"));
}

TEST(RunDir, CreatesItsFolderWithOwnerAndRemovesIt) {
  TempRoot root;
  const test::ScopedEnv tmpdir("TMPDIR", root.dir.string());  // RunDir's parent
  fs::path made;
  {
    RunDir run;
    made = run.path();
    EXPECT_EQ(made.parent_path(), root.dir);
    std::ifstream in(made / "owner");
    std::string text;
    std::getline(in, text);
    const auto owner = ProcessIdentity::Decode(text);
    ASSERT_TRUE(owner);
    EXPECT_EQ(owner->pid, ::getpid());
    EXPECT_TRUE(RemoveStaleRunDirs(root.dir).empty()) << "a live run's folder stays";
  }
  EXPECT_FALSE(fs::exists(made));
}

}  // namespace
}  // namespace sparse::cli
