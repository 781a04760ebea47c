// ComponentLogs (issue 18, item 9): a child flooding stderr wrote 840 MB in 10 s to one file.
// Files are rotated at a size cap, keeping a bounded number of older ones.
#include "runtime/component_logs.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <vector>

namespace sparse::runtime {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path dir;
  TempDir() {
    char tmpl[] = "/tmp/sparse-logs-test-XXXXXX";
    dir = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string LastLine(const fs::path& p) {
  std::ifstream in(p);
  std::string line, last;
  while (std::getline(in, line)) last = line;
  return last;
}

TEST(ComponentLogs, RotatesAtTheCapAndKeepsABoundedNumberOfFiles) {
  TempDir tmp;
  const std::uint64_t cap = 4096;
  {
    ComponentLogs logs(tmp.dir, cap, 2);
    const std::string msg(100, 'x');
    for (int i = 0; i < 1000; ++i) logs.Write("flood", 1, "STDERR", msg + std::to_string(i));
    logs.Flush();
  }
  const fs::path base = tmp.dir / "flood.log";
  ASSERT_TRUE(fs::exists(base));
  EXPECT_TRUE(fs::exists(tmp.dir / "flood.log.1"));
  EXPECT_TRUE(fs::exists(tmp.dir / "flood.log.2"));
  EXPECT_FALSE(fs::exists(tmp.dir / "flood.log.3")) << "only 2 backups are kept";
  for (const auto* name : {"flood.log", "flood.log.1", "flood.log.2"}) {
    EXPECT_LE(fs::file_size(tmp.dir / name), cap) << name;
  }
  EXPECT_NE(LastLine(base).find("x999"), std::string::npos) << "the newest line is in NAME.log";
}

// The cap counts what the file held before this run (logs/ persists across runs).
TEST(ComponentLogs, CountsWhatTheFileAlreadyHeld) {
  TempDir tmp;
  std::ofstream(tmp.dir / "old.log") << std::string(4000, 'o') << "\n";
  {
    ComponentLogs logs(tmp.dir, 4096, 1);
    logs.Write("old", 1, "INFO", std::string(200, 'n'));
    logs.Flush();
  }
  EXPECT_TRUE(fs::exists(tmp.dir / "old.log.1"));
  EXPECT_LE(fs::file_size(tmp.dir / "old.log"), 4096u);
}

// Issue 15: one run's lines could not be told from the previous run's in a log; each run now
// starts with a separator in every component's log, also one that logs nothing in that run.
TEST(ComponentLogs, EachRunStartsWithASeparatorInEveryLog) {
  TempDir tmp;
  for (int run = 0; run < 2; ++run) {
    ComponentLogs logs(tmp.dir);
    logs.BeginRun({"chatty", "quiet"}, "topo");
    logs.Write("chatty", 1, "INFO", "run " + std::to_string(run));
    logs.Flush();
  }
  auto lines = [&](const std::string& component) {
    std::ifstream in(tmp.dir / (component + ".log"));
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  };
  const auto quiet = lines("quiet");
  ASSERT_EQ(quiet.size(), 2u);
  const auto chatty = lines("chatty");
  ASSERT_EQ(chatty.size(), 4u);
  for (const auto& l : {quiet[0], quiet[1], chatty[0], chatty[2]}) {
    EXPECT_TRUE(l.starts_with("===== ")) << l;
    EXPECT_NE(l.find(" run of `topo` started (sparse pid " + std::to_string(::getpid()) + ")"),
              std::string::npos)
        << l;
  }
  EXPECT_TRUE(chatty[1].ends_with("task=1 INFO run 0")) << chatty[1];
  EXPECT_TRUE(chatty[3].ends_with("task=1 INFO run 1")) << chatty[3];
}

}  // namespace
}  // namespace sparse::runtime
