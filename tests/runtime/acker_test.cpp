#include "runtime/acker.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace sparse::runtime {
namespace {

struct Done {
  int task;
  std::string id;
  TreeOutcome outcome;
};

class AckerTest : public ::testing::Test {
 protected:
  std::vector<Done> done;
  Acker acker{std::chrono::milliseconds(1000),
              [this](int t, std::string id, TreeOutcome o, std::chrono::nanoseconds) {
                done.push_back({t, std::move(id), o});
              }};
  Acker::Clock::time_point t0 = Acker::Clock::now();
};

TEST_F(AckerTest, TreeCompletesWhenEveryEdgeIsAcked) {
  // Spout emits to two tasks (edges 1, 2); the first bolt emits one child (edge 4) anchored to
  // its input, then acks its input; the child and the second input are acked.
  acker.Init(100, 1 ^ 2, 5, "\"m\"", t0);
  acker.Update(100, 1 ^ 4);  // input 1 acked, having created edge 4
  EXPECT_TRUE(done.empty());
  acker.Update(100, 2);  // input 2 acked
  EXPECT_TRUE(done.empty());
  acker.Update(100, 4);  // child acked
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].task, 5);
  EXPECT_EQ(done[0].id, "\"m\"");
  EXPECT_EQ(done[0].outcome, TreeOutcome::kAcked);
  EXPECT_EQ(acker.pending(), 0u);
}

TEST_F(AckerTest, NoReceiversCompletesAtOnce) {
  acker.Init(1, 0, 2, "7", t0);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].outcome, TreeOutcome::kAcked);
}

TEST_F(AckerTest, FailIsReportedOnceAndLateAcksAreIgnored) {
  acker.Init(1, 8, 2, "7", t0);
  acker.Fail(1);
  acker.Update(1, 8);
  acker.Fail(1);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].outcome, TreeOutcome::kFailed);
}

TEST_F(AckerTest, TimeoutExpiresOnlyOldTrees) {
  acker.Init(1, 8, 2, "a", t0);
  acker.Init(2, 8, 2, "b", t0 + std::chrono::milliseconds(600));
  acker.Expire(t0 + std::chrono::milliseconds(999));
  EXPECT_TRUE(done.empty());
  acker.Expire(t0 + std::chrono::milliseconds(1000));
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].id, "a");
  EXPECT_EQ(done[0].outcome, TreeOutcome::kTimedOut);
  acker.Expire(t0 + std::chrono::milliseconds(1700));
  ASSERT_EQ(done.size(), 2u);
  EXPECT_EQ(done[1].id, "b");
}

TEST_F(AckerTest, AbandonSpoutTask) {
  acker.Init(1, 8, 2, "a", t0);
  acker.Init(2, 8, 3, "b", t0);
  acker.AbandonSpoutTask(2);
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].outcome, TreeOutcome::kAbandoned);
  EXPECT_EQ(acker.pending(), 1u);
}

TEST_F(AckerTest, MemoryIsBoundedByPendingTrees) {
  for (std::uint64_t i = 1; i <= 100000; ++i) {
    acker.Init(i, i, 1, "x", t0);
    acker.Update(i, i);
  }
  acker.Expire(t0);
  EXPECT_EQ(acker.pending(), 0u);
  EXPECT_EQ(done.size(), 100000u);
}

}  // namespace
}  // namespace sparse::runtime
