// The jar runs under `sparse run --jar` exactly as under `sparse run`: a finite, deterministic
// topology (fixtures/counts) gives the same counts both ways; the quickstart's jar starts.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "counts_fixture.hpp"
#include "process.hpp"
#include "storm/zip.hpp"

namespace sparse::storm {
namespace {

namespace fs = std::filesystem;
using testing::RunResult;
using testing::RunSparse;
using testing::Show;

// Sums the count-<task>.json files the count bolt tasks wrote into `dir`.
std::map<std::string, int> ReadCounts(const fs::path& dir) {
  int files = 0;
  auto out = testing::SumCounts(dir, files);
  EXPECT_EQ(files, 2) << "one file per count task in " << dir;
  return out;
}

nlohmann::json Component(const fs::path& stats, const std::string& id) {
  const nlohmann::json all = nlohmann::json::parse(testing::ReadFile(stats));
  for (const auto& c : all["components"]) {
    if (c["id"] == id) return c;
  }
  ADD_FAILURE() << id << " not in " << stats;
  return {};
}

TEST(JarRun, GivesTheSameCountsAsSparseRun) {
  testing::TempDir dir;
  const fs::path project = dir.path() / "counts";
  testing::CopyFixture("counts", project);
  fs::create_directories(dir.path() / "direct");
  fs::create_directories(dir.path() / "jar");

  const RunResult direct = RunSparse(
      {"run", "--stop-when-idle", "2", "-o", "counts.dir=" + (dir.path() / "direct").string(),
       "--stats-json", (dir.path() / "direct.json").string()},
      project, std::chrono::seconds(180));
  ASSERT_EQ(direct.exit_code, 0) << Show(direct);

  const RunResult jar = RunSparse({"jar"}, project);
  ASSERT_EQ(jar.exit_code, 0) << Show(jar);
  const RunResult via_jar = RunSparse({"run", "--jar", "_build/counts.jar", "--stop-when-idle", "2",
                                       "-o", "counts.dir=" + (dir.path() / "jar").string(),
                                       "--stats-json", (dir.path() / "jar.json").string()},
                                      project, std::chrono::seconds(180));
  // The spout is started through its execute bit, which the extraction drops and the launcher
  // restores: a start failure would be exit code 3.
  ASSERT_EQ(via_jar.exit_code, 0) << Show(via_jar);
  EXPECT_TRUE(via_jar.err.find("_sparse/topology.yaml") != std::string::npos) << via_jar.err;

  const auto expected = testing::ExpectedCounts();
  EXPECT_EQ(ReadCounts(dir.path() / "direct"), expected);
  EXPECT_EQ(ReadCounts(dir.path() / "jar"), expected);
  for (const char* id : {"numbers", "count"}) {
    const auto a = Component(dir.path() / "direct.json", id);
    const auto b = Component(dir.path() / "jar.json", id);
    EXPECT_EQ(a["emitted"], b["emitted"]) << id;
    EXPECT_EQ(a["acked"], b["acked"]) << id;
    EXPECT_EQ(a["failed"], 0) << id;
    EXPECT_EQ(b["failed"], 0) << id;
  }
  EXPECT_EQ(Component(dir.path() / "jar.json", "count")["executed"], 500);
}

TEST(JarRun, TheQuickstartJarRunsItsComponents) {
  testing::TempDir dir;
  ASSERT_EQ(RunSparse({"quickstart", "qs"}, dir.path()).exit_code, 0);
  const fs::path project = dir.path() / "qs";
  const RunResult jar = RunSparse({"jar"}, project);
  ASSERT_EQ(jar.exit_code, 0) << Show(jar);
  ASSERT_TRUE(fs::exists(project / "_build/wordcount.jar"));
  // The word spout never ends, so this run is stopped by time; it passes when every component
  // started from the jar and the run drained cleanly (exit 0), whatever the counts.
  const RunResult run = RunSparse({"run", "--jar", "_build/wordcount.jar", "-t", "3",
                                   "--stats-json", (dir.path() / "stats.json").string()},
                                  project, std::chrono::seconds(120));
  ASSERT_EQ(run.exit_code, 0) << Show(run);
  EXPECT_EQ(Component(dir.path() / "stats.json", "words")["tasks"], 1);
  EXPECT_EQ(Component(dir.path() / "stats.json", "count")["tasks"], 2);
}

TEST(JarRun, TheCppQuickstartJarCarriesItsBuiltBinaries) {
  testing::TempDir dir;
  ASSERT_EQ(RunSparse({"quickstart", "cq", "--lang", "cpp"}, dir.path()).exit_code, 0);
  const fs::path project = dir.path() / "cq";
  // `sparse jar` builds the components into src/bin/ first (CMakeLists.txt), like `sparse run`.
  const RunResult jar = RunSparse({"jar"}, project, std::chrono::seconds(600));
  ASSERT_EQ(jar.exit_code, 0) << Show(jar);
  ASSERT_EQ(
      RunSparse({"run", "--jar", "_build/wordcount.jar", "-t", "3", "--stats-json",
                 (dir.path() / "stats.json").string(), "--log-dir", (dir.path() / "logs").string()},
                project, std::chrono::seconds(120))
          .exit_code,
      0);
  // Both binaries were started from the jar, through launchers that restored their execute bit.
  EXPECT_EQ(Component(dir.path() / "stats.json", "words")["tasks"], 1);
  EXPECT_EQ(Component(dir.path() / "stats.json", "count")["tasks"], 2);
  int binaries = 0;
  for (const auto& e : ReadZip(project / "_build/wordcount.jar")) {
    if (e.name == "resources/bin/word_spout" || e.name == "resources/bin/word_count") {
      EXPECT_TRUE(e.executable) << e.name;
      ++binaries;
    }
  }
  EXPECT_EQ(binaries, 2);
}

}  // namespace
}  // namespace sparse::storm
