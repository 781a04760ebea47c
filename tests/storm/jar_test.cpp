// The jar: contents, determinism, what is left out, extraction like a supervisor, and the
// launchers actually run by sh.
#include "storm/jar.hpp"

#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/stat.h>

#include <algorithm>

#include "process.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"
#include "storm/launcher.hpp"
#include "storm/zip.hpp"

namespace sparse::storm {
namespace {

namespace fs = std::filesystem;
using testing::ReadFile;
using testing::TempDir;
using testing::WriteFile;

class JarTest : public ::testing::Test {
 protected:
  void SetUp() override {
    project_ = dir_.path() / "full";
    testing::CopyFixture("full", project_);
    // Things that must never be shipped.
    WriteFile(project_ / "src/__pycache__/events.cpython-311.pyc", "bytecode");
    WriteFile(project_ / "src/bolts/stale.pyc", "bytecode");
    WriteFile(project_ / "src/logs/by_user.log", "log");
    WriteFile(project_ / "src/.git/HEAD", "ref");
    WriteFile(project_ / "src/_build/old.jar", "jar");
  }

  runtime::Topology Load() const {
    auto t = runtime::LoadTopology(project_ / "topologies/full.yaml", no_builtins_);
    t.resources_dir = project_ / "src";  // as the CLI sets it for a project
    runtime::ValidateOrThrow(t, no_builtins_);
    return t;
  }
  JarInputs Inputs() const { return {testing::PythonAdapterDir(), {}, {}}; }

  TempDir dir_;
  fs::path project_;
  const runtime::BuiltinRegistry no_builtins_;
};

std::vector<std::string> Names(const std::vector<ZipEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.name);
  return out;
}

// The topology's Python requirements (installed by pip at `sparse jar` time) travel as
// resources/_sparse/site, and every launcher puts that folder on PYTHONPATH after the adapter.
TEST_F(JarTest, CarriesSitePackagesOnEveryLaunchersPath) {
  const fs::path site = dir_.path() / "site";
  WriteFile(site / "tinydep/__init__.py", "X = 1\n");
  WriteFile(site / "tinydep/__pycache__/x.pyc", "bytecode");
  JarInputs inputs = Inputs();
  inputs.site_packages_dir = site;
  const JarContents c = MakeJarContents(Load(), inputs);
  const auto names = Names(c.entries);
  EXPECT_NE(std::find(names.begin(), names.end(), "resources/_sparse/site/tinydep/__init__.py"),
            names.end());
  int launchers = 0;
  for (const auto& e : c.entries) {
    if (e.name.rfind("resources/_sparse/site/", 0) == 0) {
      EXPECT_EQ(e.name.find("__pycache__"), std::string::npos) << e.name;
    }
    if (e.name.rfind("resources/_sparse/launch/", 0) == 0) {
      ++launchers;
      EXPECT_NE(e.data.find("PYTHONPATH=\"$PWD/_sparse/python:$PWD/_sparse/site${PYTHONPATH:+"),
                std::string::npos)
          << e.data;
    }
  }
  EXPECT_EQ(launchers, 7);
  // Without requirements, the launchers do not mention the folder.
  for (const auto& e : MakeJarContents(Load(), Inputs()).entries) {
    EXPECT_EQ(e.data.find("_sparse/site"), std::string::npos) << e.name;
  }
  inputs.site_packages_dir = dir_.path() / "missing";
  EXPECT_THROW(MakeJarContents(Load(), inputs), JarError);
}

TEST_F(JarTest, HoldsResourcesAdapterLaunchersAndTopology) {
  const JarContents c = MakeJarContents(Load(), Inputs());
  std::vector<std::string> expected = {"META-INF/MANIFEST.MF"};
  for (const char* l :
       {"anywhere", "by_5fuser", "events", "every", "partial", "shuffled", "total"}) {
    expected.push_back(std::string("resources/_sparse/launch/") + l + ".sh");
  }
  std::vector<std::string> adapter;
  for (const char* package : {"sparse_multilang", "streamparse", "pystorm"}) {
    for (const auto& e : fs::directory_iterator(fs::path(testing::PythonAdapterDir()) / package)) {
      if (e.path().extension() == ".py") {
        adapter.push_back(std::string("resources/_sparse/python/") + package + "/" +
                          e.path().filename().string());
      }
    }
  }
  ASSERT_FALSE(adapter.empty());
  std::sort(adapter.begin(), adapter.end());
  expected.insert(expected.end(), adapter.begin(), adapter.end());
  for (const char* f :
       {"resources/_sparse/topology.yaml", "resources/bin/tool", "resources/bolts/by_user.py",
        "resources/bolts/sink.py", "resources/spouts/events.py"}) {
    expected.push_back(f);
  }
  EXPECT_EQ(Names(c.entries), expected);

  auto find = [&](const std::string& name) -> const ZipEntry& {
    return *std::find_if(c.entries.begin(), c.entries.end(),
                         [&](const ZipEntry& e) { return e.name == name; });
  };
  EXPECT_EQ(find("META-INF/MANIFEST.MF").data.rfind("Manifest-Version: 1.0\r\n", 0), 0u);
  EXPECT_EQ(find("resources/spouts/events.py").data, "print(\"events\")\n");
  EXPECT_TRUE(find("resources/bin/tool").executable);
  EXPECT_FALSE(find("resources/bolts/sink.py").executable);
  const std::string prefix = "resources/_sparse/python/";
  EXPECT_EQ(find(adapter.front()).data, ReadFile(fs::path(testing::PythonAdapterDir()) /
                                                 adapter.front().substr(prefix.size())));

  const std::string events = find("resources/_sparse/launch/events.sh").data;
  EXPECT_NE(events.find("\nexec 'python3' 'spouts/events.py' '--label' 'two words' 'it'\\''s'\n"),
            std::string::npos)
      << events;
  // Every launcher restores the execute bit of the project's executables.
  EXPECT_NE(events.find("chmod u+x -- 'bin/tool'"), std::string::npos) << events;

  // The topology file loads, with the launchers as commands.
  TempDir t;
  WriteFile(t.path() / "topology.yaml", find("resources/_sparse/topology.yaml").data);
  const runtime::BuiltinRegistry no_builtins;
  const auto packaged = runtime::LoadTopology(t.path() / "topology.yaml", no_builtins);
  runtime::ValidateOrThrow(packaged, no_builtins);
  ASSERT_NE(packaged.Find("by_user"), nullptr);
  EXPECT_EQ(packaged.Find("by_user")->command,
            (std::vector<std::string>{"sh", "_sparse/launch/by_5fuser.sh"}));
}

TEST_F(JarTest, SameProjectGivesTheSameBytes) {
  const fs::path a = dir_.path() / "a.jar";
  const fs::path b = dir_.path() / "b.jar";
  WriteJar(Load(), Inputs(), a);
  // Different modification times and a different walk must not change a byte.
  for (const auto& e : fs::recursive_directory_iterator(project_ / "src")) {
    if (e.is_regular_file()) {
      fs::last_write_time(e.path(), fs::last_write_time(e.path()) - std::chrono::hours(100));
    }
  }
  WriteJar(Load(), Inputs(), b);
  const std::string bytes_a = ReadFile(a);
  ASSERT_FALSE(bytes_a.empty());
  EXPECT_EQ(bytes_a, ReadFile(b));
  // A changed file does change the jar.
  WriteFile(project_ / "src/bolts/sink.py", "print('changed')\n");
  WriteJar(Load(), Inputs(), b);
  EXPECT_NE(bytes_a, ReadFile(b));
}

TEST_F(JarTest, ReadsBackWithModes) {
  const fs::path jar = dir_.path() / "x.jar";
  const JarContents written = WriteJar(Load(), Inputs(), jar);
  const auto read = ReadZip(jar);
  ASSERT_EQ(read.size(), written.entries.size());
  for (std::size_t i = 0; i < read.size(); ++i) {
    EXPECT_EQ(read[i].name, written.entries[i].name);
    EXPECT_EQ(read[i].data, written.entries[i].data);
    EXPECT_EQ(read[i].executable, written.entries[i].executable) << read[i].name;
  }
}

TEST_F(JarTest, ReservedSparseFolderIsRefused) {
  WriteFile(project_ / "src/_sparse/mine.py", "x");
  try {
    MakeJarContents(Load(), Inputs());
    FAIL() << "expected a JarError";
  } catch (const JarError& e) {
    EXPECT_NE(std::string(e.what()).find("_sparse/"), std::string::npos) << e.what();
  }
}

TEST_F(JarTest, MissingAdapterIsAClearError) {
  try {
    MakeJarContents(Load(), {dir_.path() / "nowhere", {}, {}});
    FAIL() << "expected a JarError";
  } catch (const JarError& e) {
    EXPECT_NE(std::string(e.what()).find("Python adapter"), std::string::npos) << e.what();
  }
}

TEST_F(JarTest, ExtractsLikeASupervisor) {
  const fs::path jar = dir_.path() / "x.jar";
  WriteJar(Load(), Inputs(), jar);
  fs::path root;
  {
    ExtractedJar extracted(jar);
    root = extracted.root();
    EXPECT_TRUE(fs::is_regular_file(extracted.topology_file()));
    EXPECT_EQ(ReadFile(extracted.resources_dir() / "spouts/events.py"), "print(\"events\")\n");
    // No execute bits, whatever the jar says.
    const auto perms = fs::status(extracted.resources_dir() / "bin/tool").permissions();
    EXPECT_EQ(perms & fs::perms::owner_exec, fs::perms::none);
    EXPECT_FALSE(fs::exists(extracted.root() / "META-INF"));
  }
  EXPECT_FALSE(fs::exists(root));
}

TEST(ExtractedJar, RefusesEntriesOutsideResources) {
  TempDir dir;
  const fs::path jar = dir.path() / "evil.jar";
  WriteZip(jar, {{"resources/_sparse/topology.yaml", "name: x", false},
                 {"resources/../../escaped", "x", false}});
  try {
    ExtractedJar extracted(jar);
    FAIL() << "expected a JarError";
  } catch (const JarError& e) {
    EXPECT_NE(std::string(e.what()).find("outside resources/"), std::string::npos) << e.what();
  }
}

TEST(ExtractedJar, RefusesJarsNotBuiltBySparse) {
  TempDir dir;
  const fs::path jar = dir.path() / "other.jar";
  WriteZip(jar, {{"META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n", false},
                 {"resources/x.py", "x", false}});
  try {
    ExtractedJar extracted(jar);
    FAIL() << "expected a JarError";
  } catch (const JarError& e) {
    EXPECT_NE(std::string(e.what()).find("not a jar built by `sparse jar`"), std::string::npos)
        << e.what();
  }
  WriteFile(dir.path() / "garbage.jar", "not a zip");
  EXPECT_THROW(ExtractedJar bad(dir.path() / "garbage.jar"), JarError);
}

// Runs `sh <launcher>` in `resources` without the test's PYTHONPATH; its stdout and stderr.
std::string RunLauncher(const fs::path& resources, const std::string& launcher) {
  return test::Run(
             {{"/bin/sh", "-c", "exec env -u PYTHONPATH sh \"$0\" 2>&1", launcher}, resources})
      .out;
}

TEST(Launcher, RestoresExecuteBitsSetsPythonPathAndExecsTheArgv) {
  TempDir dir;
  const fs::path resources = dir.path() / "resources";
  // A tool without its execute bit, as a supervisor leaves it.
  WriteFile(resources / "bin/tool",
            "#!/bin/sh\nfor a in \"$@\"; do echo \"arg:$a\"; done\n"
            "echo \"pythonpath:$PYTHONPATH\"\necho \"cwd:$PWD\"\n");
  fs::permissions(resources / "bin/tool", fs::perms::owner_read | fs::perms::owner_write);
  WriteFile(resources / LauncherPath("t"),
            LauncherScript("t", {"bin/tool", "two words", "it's", "$HOME", "*"}, {"bin/tool"}));
  const std::string out = RunLauncher(resources, LauncherPath("t"));
  const std::string real = fs::canonical(resources).string();
  EXPECT_EQ(out, "arg:two words\narg:it's\narg:$HOME\narg:*\npythonpath:" + real +
                     "/_sparse/python\ncwd:" + real + "\n");
  EXPECT_NE(fs::status(resources / "bin/tool").permissions() & fs::perms::owner_exec,
            fs::perms::none);
}

}  // namespace
}  // namespace sparse::storm
