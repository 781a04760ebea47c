// Grouping repeated errors (web/error_groups.hpp): what counts as the same error, counts, times,
// the newest text, and the bound on the number of groups.
#include "web/error_groups.hpp"

#include <gtest/gtest.h>

namespace sparse::web {
namespace {

const char* kTraceback =
    "Traceback (most recent call last):\n"
    "  File \"bolt.py\", line 12, in process\n"
    "ValueError: tuple 17 is bad\n";

TEST(ErrorGroups, SameFirstLineUpToNumbersIsOneGroup) {
  ErrorGroups g;
  g.Add("count", 3, "tuple 17 failed\n  at line 4", 1000);
  g.Add("count", 4, "tuple 18 failed\n  at line 5", 2000);
  g.Add("count", 3, "tuple 1900 failed", 3000);
  ASSERT_EQ(g.groups().size(), 1u);
  const ErrorGroup& e = g.groups().front();
  EXPECT_EQ(e.component, "count");
  EXPECT_EQ(e.count, 3u);
  EXPECT_EQ(e.first_ms, 1000);
  EXPECT_EQ(e.last_ms, 3000);
  EXPECT_EQ(e.first_line, "tuple 1900 failed");  // the newest occurrence's
  EXPECT_EQ(e.last_text, "tuple 1900 failed");
  EXPECT_EQ(e.tasks, (std::set<int>{3, 4}));
  EXPECT_EQ(e.key, "tuple # failed");
}

TEST(ErrorGroups, OtherTextOrComponentIsAnotherGroupAndNewestComesFirst) {
  ErrorGroups g;
  g.Add("count", 1, "disk full", 1);
  g.Add("split", 2, "disk full", 2);
  g.Add("count", 1, "out of memory", 3);
  g.Add("count", 1, "disk full", 4);  // seen again: first once more
  ASSERT_EQ(g.groups().size(), 3u);
  auto it = g.groups().begin();
  EXPECT_EQ(it->component, "count");
  EXPECT_EQ(it->first_line, "disk full");
  EXPECT_EQ(it->count, 2u);
  EXPECT_EQ((++it)->first_line, "out of memory");
  EXPECT_EQ((++it)->component, "split");
}

TEST(ErrorGroups, KeepsTheWholeTracebackAndShowsItsFirstLine) {
  ErrorGroups g;
  g.Add("count", 1, std::string("\n\n") + kTraceback, 5);
  const ErrorGroup& e = g.groups().front();
  EXPECT_EQ(e.first_line, "Traceback (most recent call last):");
  EXPECT_NE(e.last_text.find("ValueError: tuple 17 is bad"), std::string::npos);
  EXPECT_EQ(FirstLine("a\r\nb"), "a");
  EXPECT_EQ(FirstLine(" \n\t\n"), "");
  EXPECT_EQ(FirstLine(""), "");
}

TEST(ErrorGroups, ForgetsTheGroupSeenLeastRecentlyBeyondTheBound) {
  ErrorGroups g(2);
  g.Add("a", 1, "one", 1);
  g.Add("a", 1, "two", 2);
  g.Add("a", 1, "one", 3);    // `two` is now the least recent
  g.Add("a", 1, "three", 4);  // ... and goes
  ASSERT_EQ(g.groups().size(), 2u);
  EXPECT_EQ(g.groups().front().first_line, "three");
  EXPECT_EQ(g.groups().back().first_line, "one");
  EXPECT_EQ(g.forgotten(), 1u);
  g.Add("a", 1, "two", 5);  // starts over
  EXPECT_EQ(g.groups().front().count, 1u);
}

}  // namespace
}  // namespace sparse::web
