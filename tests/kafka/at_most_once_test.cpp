// At-most-once batches (kafka/at_most_once.hpp): nothing is emitted before its offsets are
// committed; a failed commit keeps the batch and waits.
#include "kafka/at_most_once.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using std::chrono::milliseconds;
using Step = AtMostOnceBatch::Step;

const AtMostOnceBatch::Clock::time_point kAmoStart{};

TEST(AtMostOnceBatch, FillCommitThenEmit) {
  AtMostOnceBatch b(milliseconds(100));
  EXPECT_EQ(b.Next(kAmoStart), Step::kFill);
  b.Add({"t", 0}, 5, "[5]");
  b.Add({"t", 1}, 9, "[9]");
  b.Add({"t", 0}, 6, "[6]");
  EXPECT_EQ(b.size(), 3u);
  EXPECT_EQ(b.Next(kAmoStart), Step::kCommit);
  const std::map<TopicPartition, std::int64_t> want = {{{"t", 0}, 7}, {{"t", 1}, 10}};
  EXPECT_EQ(b.offsets(), want) << "per partition, the offset after its last record";
  b.CommitStarted();
  EXPECT_TRUE(b.committing());
  EXPECT_EQ(b.Next(kAmoStart), Step::kWait) << "nothing is emitted before the commit is confirmed";
  b.Committed(true, kAmoStart);
  EXPECT_FALSE(b.committing());
  ASSERT_EQ(b.Next(kAmoStart), Step::kEmit);
  EXPECT_EQ(b.TakeCommitted(), (std::vector<std::string>{"[5]", "[9]", "[6]"}));
  EXPECT_EQ(b.Next(kAmoStart), Step::kFill);
  EXPECT_TRUE(b.offsets().empty());
  EXPECT_EQ(b.size(), 0u);
}

TEST(AtMostOnceBatch, AFailedCommitKeepsTheBatchAndWaits) {
  AtMostOnceBatch b(milliseconds(100));
  b.Add({"t", 0}, 0, "[0]");
  b.CommitStarted();
  b.Committed(false, kAmoStart);
  EXPECT_EQ(b.Next(kAmoStart + milliseconds(99)), Step::kWait);
  EXPECT_EQ(b.Next(kAmoStart + milliseconds(100)), Step::kCommit) << "the same batch, again";
  EXPECT_EQ(b.size(), 1u);
  b.CommitStarted();
  b.Committed(true, kAmoStart + milliseconds(100));
  EXPECT_EQ(b.TakeCommitted(), (std::vector<std::string>{"[0]"}));
}

TEST(AtMostOnceBatch, SkippedRecordsAreCommittedButNotEmitted) {
  AtMostOnceBatch b(milliseconds(100));
  b.Add({"t", 0}, 3, std::nullopt);
  EXPECT_EQ(b.size(), 0u);
  EXPECT_EQ(b.Next(kAmoStart), Step::kCommit) << "its offset still moves on";
  EXPECT_EQ(b.offsets().at({"t", 0}), 4);
  b.CommitStarted();
  b.Committed(true, kAmoStart);
  EXPECT_TRUE(b.TakeCommitted().empty());
}

}  // namespace
}  // namespace sparse::kafka
