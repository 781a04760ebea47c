// What each delivery guarantee asks of the spout (kafka/delivery_rules.hpp).
#include "kafka/delivery_rules.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using Emit = DeliveryRules::Emit;

TEST(DeliveryRules, AtLeastOnceTracksAndCommitsItsOffsets) {
  const DeliveryRules r = RulesFor(Guarantee::kAtLeastOnce);
  EXPECT_EQ(r.emit, Emit::kTracked);
  EXPECT_TRUE(r.commits_tracked_offsets);
}

TEST(DeliveryRules, AtMostOnceCommitsBeforeItEmits) {
  const DeliveryRules r = RulesFor(Guarantee::kAtMostOnce);
  EXPECT_EQ(r.emit, Emit::kCommitFirst);
  EXPECT_FALSE(r.commits_tracked_offsets) << "its batches are committed before they are emitted";
}

TEST(DeliveryRules, ExactlyOnceLeavesItsCommitsToTheEpoch) {
  const DeliveryRules r = RulesFor(Guarantee::kExactlyOnce);
  EXPECT_EQ(r.emit, Emit::kInEpochs);
  EXPECT_FALSE(r.commits_tracked_offsets) << "offsets commit in the epoch's transaction";
}

}  // namespace
}  // namespace sparse::kafka
