#include "cli/console_budget.hpp"

#include <gtest/gtest.h>

namespace sparse::cli {
namespace {

using Clock = ConsoleBudget::Clock;
using std::chrono::milliseconds;

ConsoleBudget::Limits Small() {
  ConsoleBudget::Limits l;
  l.burst = 5;
  l.lines_per_sec = 2;
  l.repeat_window = milliseconds(10000);
  l.notice_every = milliseconds(5000);
  return l;
}

TEST(ConsoleBudget, AQuietTaskShowsItsBurstThenEarnsLinesBack) {
  ConsoleBudget b(Small());
  const auto t0 = Clock::time_point{} + std::chrono::hours(1);
  int shown = 0;
  for (int i = 0; i < 100; ++i) shown += b.Admit(1, "line " + std::string(1, 'a' + i % 26), t0);
  EXPECT_EQ(shown, 5);
  // Two lines a second come back.
  EXPECT_TRUE(b.Admit(1, "zz", t0 + milliseconds(600)));
  EXPECT_FALSE(b.Admit(1, "yy", t0 + milliseconds(700)));
  EXPECT_TRUE(b.Admit(1, "xx", t0 + milliseconds(1300)));
}

TEST(ConsoleBudget, EachTaskHasItsOwnBudget) {
  ConsoleBudget b(Small());
  const auto t0 = Clock::time_point{};
  for (int i = 0; i < 20; ++i) b.Admit(1, "a" + std::string(i, 'x'), t0);
  EXPECT_TRUE(b.Admit(2, "hello", t0));
}

TEST(ConsoleBudget, AMessageLikeTheLastShownIsHeldThenShownAgainAfterTheWindow) {
  ConsoleBudget b(Small());
  const auto t0 = Clock::time_point{};
  const std::string tb1 =
      "Traceback (most recent call last):\n  File \"x.py\", line 12, in process\n"
      "ValueError: cannot handle 'apple'\n";
  const std::string tb2 =
      "Traceback (most recent call last):\n  File \"x.py\", line 13, in process\n"
      "ValueError: cannot handle 'banana pie'\n";
  EXPECT_TRUE(b.Admit(1, tb1, t0));
  EXPECT_FALSE(b.Admit(1, tb2, t0 + milliseconds(10))) << "same shape: held";
  EXPECT_FALSE(b.Admit(1, tb1, t0 + milliseconds(9000)));
  EXPECT_TRUE(b.Admit(1, tb2, t0 + milliseconds(10001))) << "shown again after the window";
  auto due = b.TakeDue(t0 + milliseconds(20000), false);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].task, 1);
  EXPECT_EQ(due[0].messages, 2u);
  EXPECT_EQ(due[0].alike, 2u);
  EXPECT_EQ(due[0].lines, 6u);
  // A different message is not held for being alike.
  EXPECT_TRUE(b.Admit(1, "KeyError: 'x'", t0 + milliseconds(20001)));
}

TEST(ConsoleBudget, LogLinesAlikeAreShownWithinTheBudgetAndCountedAsAlikeOverIt) {
  ConsoleBudget b(Small());
  const auto t0 = Clock::time_point{};
  int shown = 0;
  for (int i = 0; i < 8; ++i) shown += b.Admit(1, "count: " + std::to_string(i), t0, false);
  EXPECT_EQ(shown, 5) << "the burst, although every line has the same shape";
  auto due = b.TakeDue(t0, true);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].messages, 3u);
  EXPECT_EQ(due[0].alike, 3u);
}

TEST(ConsoleBudget, ALongMessageCostsItsLines) {
  ConsoleBudget b(Small());
  const auto t0 = Clock::time_point{};
  std::string ten;
  for (int i = 0; i < 10; ++i) ten += "line\n";
  EXPECT_TRUE(b.Admit(1, ten, t0)) << "shown while any budget is left";
  EXPECT_FALSE(b.Admit(1, "next", t0 + milliseconds(1000))) << "the task owes 5 lines";
  EXPECT_TRUE(b.Admit(1, "later", t0 + milliseconds(3100)));
}

TEST(ConsoleBudget, NoticesComeOncePerPeriodOrAllAtTheEnd) {
  ConsoleBudget b(Small());
  const auto t0 = Clock::time_point{};
  for (int i = 0; i < 10; ++i) b.Admit(3, "a" + std::string(i, 'x'), t0);
  for (int i = 0; i < 10; ++i) b.Admit(1, "b" + std::string(i, 'x'), t0 + milliseconds(1000));
  EXPECT_TRUE(b.TakeDue(t0 + milliseconds(4999), false).empty());
  auto due = b.TakeDue(t0 + milliseconds(5000), false);
  ASSERT_EQ(due.size(), 1u);
  EXPECT_EQ(due[0].task, 3);
  EXPECT_EQ(due[0].messages, 5u);
  EXPECT_EQ(due[0].alike, 0u);
  auto rest = b.TakeDue(t0 + milliseconds(5001), true);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].task, 1);
  EXPECT_TRUE(b.TakeDue(t0 + milliseconds(99999), true).empty()) << "counts restart";
}

TEST(ConsoleBudget, ShapeMasksNumbersAndQuotedValuesAndKeepsFirstAndLastLine) {
  EXPECT_EQ(ConsoleBudget::Shape("got 12 and 345"), "got # and #");
  EXPECT_EQ(ConsoleBudget::Shape("bad 'x y' and \"z\""), "bad '_' and \"_\"");
  EXPECT_EQ(ConsoleBudget::Shape("first\nmiddle 1\nmiddle 2\nlast 7\n\n"), "first\nlast #");
  EXPECT_EQ(ConsoleBudget::Shape("unterminated 'quote"), "unterminated '_");
  EXPECT_EQ(ConsoleBudget::Shape(""), "");
}

}  // namespace
}  // namespace sparse::cli
