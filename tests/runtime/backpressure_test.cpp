#include "runtime/backpressure.hpp"

#include <gtest/gtest.h>

#include <map>

namespace sparse::runtime {
namespace {

// Components: 0 spout A, 1 spout B, 2 bolt fed by A, 3 bolt fed by A and B.
// Tasks: 1 -> A, 2 -> B, 3 -> comp 2, 4 and 5 -> comp 3.
Backpressure Make() {
  Backpressure::Watermarks m;
  m.high = 10;
  m.low = 5;
  m.high_bytes = 1000;
  m.low_bytes = 500;
  return Backpressure({{}, {}, {0}, {0, 1}}, {-1, 0, 1, 2, 3, 3}, m);
}

TEST(Backpressure, AHotTaskThrottlesTheSpoutsThatFeedItUntilItCoolsBelowTheLowMark) {
  auto bp = Make();
  EXPECT_FALSE(bp.Queued(3, {9, 0}));
  EXPECT_FALSE(bp.Throttled(0));
  EXPECT_TRUE(bp.Queued(3, {10, 0}));
  EXPECT_FALSE(bp.Queued(3, {11, 0})) << "already hot";
  EXPECT_TRUE(bp.Throttled(0));
  EXPECT_FALSE(bp.Throttled(1)) << "B does not feed component 2";
  std::map<int, Backpressure::Load> load{{3, {6, 0}}};
  auto of = [&](int t) { return load[t]; };
  EXPECT_TRUE(bp.Cool(of).empty()) << "between the marks: still hot";
  load[3] = {5, 0};
  EXPECT_EQ(bp.Cool(of), std::vector<int>{0});
  EXPECT_FALSE(bp.Throttled(0));
  EXPECT_FALSE(bp.AnyHot());
}

TEST(Backpressure, BytesHeldCountLikeTuples) {
  auto bp = Make();
  EXPECT_TRUE(bp.Queued(3, {1, 1000}));
  std::map<int, Backpressure::Load> load{{3, {0, 501}}};
  auto of = [&](int t) { return load[t]; };
  EXPECT_TRUE(bp.Cool(of).empty());
  load[3] = {0, 500};
  EXPECT_EQ(bp.Cool(of).size(), 1u);
}

TEST(Backpressure, ASpoutIsReleasedOnlyWhenEveryHotTaskItFeedsCooled) {
  auto bp = Make();
  bp.Queued(3, {10, 0});  // comp 2: A
  bp.Queued(4, {10, 0});  // comp 3: A and B
  bp.Queued(5, {10, 0});  // comp 3: A and B
  EXPECT_TRUE(bp.Throttled(0));
  EXPECT_TRUE(bp.Throttled(1));
  std::map<int, Backpressure::Load> load{{3, {0, 0}}, {4, {0, 0}}, {5, {50, 0}}};
  auto of = [&](int t) { return load[t]; };
  EXPECT_TRUE(bp.Cool(of).empty()) << "task 5 still feeds on both";
  load[5] = {0, 0};
  auto released = bp.Cool(of);
  std::sort(released.begin(), released.end());
  EXPECT_EQ(released, (std::vector<int>{0, 1}));
}

TEST(Backpressure, ALowMarkAtOrAboveTheHighOneIsHalved) {
  Backpressure::Watermarks m;
  m.high = 10;
  m.low = 10;
  m.high_bytes = 100;
  m.low_bytes = 200;
  Backpressure bp({{}, {0}}, {-1, 0, 1}, m);
  EXPECT_TRUE(bp.Queued(2, {10, 0}));
  std::map<int, Backpressure::Load> load{{2, {6, 0}}};
  auto of = [&](int t) { return load[t]; };
  EXPECT_TRUE(bp.Cool(of).empty()) << "low is 5, not 10";
  load[2] = {5, 50};
  EXPECT_EQ(bp.Cool(of).size(), 1u);
}

}  // namespace
}  // namespace sparse::runtime
