// exactly_once's count of the epochs each record aborted (kafka/record_aborts.hpp).
#include "kafka/record_aborts.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

TEST(RecordAborts, CountsEachRecordsAborts) {
  RecordAborts a(5);
  EXPECT_EQ(a.Failed("t", 0, 10), 1);
  EXPECT_EQ(a.Failed("t", 0, 10), 2);
  EXPECT_EQ(a.Failed("t", 1, 10), 1) << "another partition";
  EXPECT_EQ(a.Failed("u", 0, 10), 1) << "another topic";
}

TEST(RecordAborts, GivenUpInTheReplayAfterMaxRetries) {
  RecordAborts a(2);
  a.Failed("t", 0, 7);
  a.Failed("t", 0, 7);
  EXPECT_FALSE(a.GiveUpOnReplay("t", 0, 7)) << "two aborts: two replays allowed";
  a.Failed("t", 0, 7);
  EXPECT_EQ(a.GiveUpOnReplay("t", 0, 7), 3);
  EXPECT_FALSE(a.GiveUpOnReplay("t", 0, 7)) << "forgotten once given up";
  EXPECT_FALSE(a.GiveUpOnReplay("t", 0, 8)) << "a record that never failed";
}

TEST(RecordAborts, NeverGivesUpWithUnlimitedRetries) {
  RecordAborts a(-1);
  for (int i = 0; i < 100; ++i) a.Failed("t", 0, 7);
  EXPECT_FALSE(a.GiveUpOnReplay("t", 0, 7));
}

TEST(RecordAborts, ACommitForgetsThePartitionsRecordsBeforeIt) {
  RecordAborts a(0);
  a.Failed("t", 0, 3);
  a.Failed("t", 0, 5);
  a.Failed("t", 1, 3);
  a.Failed("s", 0, 3);
  a.Committed("t", 0, 5);
  EXPECT_EQ(a.size(), 3u);
  EXPECT_FALSE(a.GiveUpOnReplay("t", 0, 3)) << "committed past";
  EXPECT_EQ(a.GiveUpOnReplay("t", 0, 5), 1) << "the committed offset itself is not done";
  EXPECT_EQ(a.GiveUpOnReplay("t", 1, 3), 1) << "another partition";
  EXPECT_EQ(a.GiveUpOnReplay("s", 0, 3), 1) << "another topic";
}

}  // namespace
}  // namespace sparse::kafka
