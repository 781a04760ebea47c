#include "cli/component_build.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace sparse::cli {
namespace {

namespace fs = std::filesystem;

TEST(ComponentBuild, BuildStepsAreCMakesProgressLines) {
  EXPECT_EQ(BuildStep("[ 45%] Building CXX object CMakeFiles/wc.dir/cpp/wc.cpp.o"),
            "[ 45%] Building CXX object CMakeFiles/wc.dir/cpp/wc.cpp.o");
  EXPECT_EQ(BuildStep("[100%] Linking CXX executable ../src/bin/wc"),
            "[100%] Linking CXX executable ../src/bin/wc");
  EXPECT_EQ(BuildStep("Built target wc"), "Built target wc");
  EXPECT_FALSE(BuildStep("wc.cpp:3:1: error: 'this' does not name a type"));
  EXPECT_FALSE(BuildStep("[ 4"));
  EXPECT_FALSE(BuildStep(""));
}

class StaleCache : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root_ / "proj" / "_build");
    fs::create_directories(root_ / "pkg");
  }
  void Cache(const fs::path& home, const fs::path& dir, const fs::path& pkg) {
    std::ofstream(root_ / "proj" / "_build" / "CMakeCache.txt")
        << "# comment\nCMAKE_HOME_DIRECTORY:INTERNAL=" << home.string()
        << "\nCMAKE_CACHEFILE_DIR:INTERNAL=" << dir.string() << "\nsparse_DIR:PATH=" << pkg.string()
        << "\n";
  }
  const test::TempDir tmp_{"sparse-stale"};
  const fs::path root_ = tmp_.path();
};

TEST_F(StaleCache, NoCacheOrTheSameFoldersIsReusable) {
  EXPECT_FALSE(StaleBuildCache(root_ / "proj" / "_build", root_ / "proj", root_ / "pkg"));
  Cache(root_ / "proj", root_ / "proj" / "_build", root_ / "pkg");
  EXPECT_FALSE(StaleBuildCache(root_ / "proj" / "_build", root_ / "proj", root_ / "pkg"));
  // The same folder spelled differently is the same folder.
  EXPECT_FALSE(
      StaleBuildCache(root_ / "proj" / "_build", root_ / "proj" / "." / "x" / "..", root_ / "pkg"));
}

TEST_F(StaleCache, AnotherSourceFolderOrPackageIsNot) {
  Cache(root_ / "elsewhere", root_ / "proj" / "_build", root_ / "pkg");
  auto why = StaleBuildCache(root_ / "proj" / "_build", root_ / "proj", root_ / "pkg");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("configured for " + (root_ / "elsewhere").string()), std::string::npos);
  Cache(root_ / "proj", root_ / "other" / "_build", root_ / "pkg");
  EXPECT_TRUE(StaleBuildCache(root_ / "proj" / "_build", root_ / "proj", root_ / "pkg"));
  Cache(root_ / "proj", root_ / "proj" / "_build", root_ / "old-sparse");
  why = StaleBuildCache(root_ / "proj" / "_build", root_ / "proj", root_ / "pkg");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("sparse's package"), std::string::npos);
}

}  // namespace
}  // namespace sparse::cli
