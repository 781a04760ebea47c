// The spout's retries (kafka/retry_queue.hpp): backoff, giving up, dead-letter rewrites.
#include "kafka/retry_queue.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using std::chrono::milliseconds;
using Kind = RetryQueue::Kind;

const RetryQueue::Clock::time_point kRetryStart{};

RetryOptions RetryWith(int max_retries) {
  RetryOptions o;
  o.max_retries = max_retries;
  o.initial_delay_ms = 100;
  o.max_delay_ms = 1000;
  return o;
}

TEST(RetryQueue, AFailedTupleComesBackAfterItsBackoff) {
  RetryQueue q(RetryWith(-1));
  EXPECT_TRUE(q.TupleFailed(kRetryStart, 7, 42, 1));
  EXPECT_FALSE(q.PopDue(kRetryStart + milliseconds(99)));
  auto e = q.PopDue(kRetryStart + milliseconds(100));
  ASSERT_TRUE(e);
  EXPECT_EQ(e->slot, 7);
  EXPECT_EQ(e->offset, 42);
  EXPECT_EQ(e->kind, Kind::kTuple);
  EXPECT_TRUE(q.empty());
}

TEST(RetryQueue, TheBackoffDoublesUpToItsMaximum) {
  RetryQueue q(RetryWith(-1));
  q.TupleFailed(kRetryStart, 1, 0, 3);  // 100, 200, 400
  EXPECT_FALSE(q.PopDue(kRetryStart + milliseconds(399)));
  EXPECT_TRUE(q.PopDue(kRetryStart + milliseconds(400)));
  q.TupleFailed(kRetryStart, 1, 0, 30);
  EXPECT_FALSE(q.PopDue(kRetryStart + milliseconds(999)));
  EXPECT_TRUE(q.PopDue(kRetryStart + milliseconds(1000)));
}

TEST(RetryQueue, GivesUpAfterMaxRetries) {
  RetryQueue q(RetryWith(2));
  EXPECT_TRUE(q.TupleFailed(kRetryStart, 1, 0, 1));
  EXPECT_TRUE(q.TupleFailed(kRetryStart, 1, 0, 2));
  EXPECT_FALSE(q.TupleFailed(kRetryStart, 1, 0, 3)) << "the third failure after two retries";
  EXPECT_EQ(q.size(), 2u) << "a record given up is not queued";
}

TEST(RetryQueue, NoRetriesGivesUpAtTheFirstFailure) {
  RetryQueue q(RetryWith(0));
  EXPECT_FALSE(q.TupleFailed(kRetryStart, 1, 0, 1));
  EXPECT_TRUE(q.empty());
}

TEST(RetryQueue, EarliestDueFirst) {
  RetryQueue q(RetryWith(-1));
  q.TupleFailed(kRetryStart, 1, 10, 3);                     // due at 400
  q.TupleFailed(kRetryStart + milliseconds(50), 1, 11, 1);  // due at 150
  q.DeadLetterFailed(kRetryStart, 2, 5, 2);                 // due at 200
  const auto now = kRetryStart + milliseconds(1000);
  EXPECT_EQ(q.PopDue(now)->offset, 11);
  auto dl = q.PopDue(now);
  ASSERT_TRUE(dl);
  EXPECT_EQ(dl->kind, Kind::kDeadLetter);
  EXPECT_EQ(dl->slot, 2);
  EXPECT_EQ(q.PopDue(now)->offset, 10);
  EXPECT_FALSE(q.PopDue(now));
}

TEST(RetryQueue, ADeadLetterOfARecordThatNeverFailedWaitsTheFirstBackoff) {
  // A record given up without failing (it could not be decoded) has no failures yet.
  RetryQueue q(RetryWith(0));
  q.DeadLetterFailed(kRetryStart, 1, 0, 0);
  EXPECT_FALSE(q.PopDue(kRetryStart + milliseconds(99)));
  EXPECT_TRUE(q.PopDue(kRetryStart + milliseconds(100)));
}

}  // namespace
}  // namespace sparse::kafka
