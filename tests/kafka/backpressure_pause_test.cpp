// When backpressure pauses the spout's partitions (kafka/backpressure_pause.hpp).
#include "kafka/backpressure_pause.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

using std::chrono::milliseconds;

const BackpressurePause::Clock::time_point kPressureStart{};

TEST(BackpressurePause, ShortEpisodesPauseNothing) {
  BackpressurePause b(milliseconds(1000));
  EXPECT_FALSE(b.Set(true, kPressureStart));
  EXPECT_FALSE(b.Due(kPressureStart + milliseconds(999)));
  EXPECT_FALSE(b.Set(false, kPressureStart + milliseconds(999))) << "nothing was paused";
  EXPECT_FALSE(b.Due(kPressureStart + milliseconds(5000))) << "backpressure is off";
  EXPECT_FALSE(b.paused());
}

TEST(BackpressurePause, PausesOnceItLastedThenResumesWhenItEnds) {
  BackpressurePause b(milliseconds(1000));
  b.Set(true, kPressureStart);
  EXPECT_TRUE(b.Due(kPressureStart + milliseconds(1000)));
  EXPECT_TRUE(b.paused());
  EXPECT_FALSE(b.Due(kPressureStart + milliseconds(2000))) << "once per episode";
  EXPECT_TRUE(b.Set(false, kPressureStart + milliseconds(2500))) << "resume now";
  EXPECT_FALSE(b.paused());
}

TEST(BackpressurePause, BackpressureOnAgainRestartsTheWait) {
  BackpressurePause b(milliseconds(1000));
  b.Set(true, kPressureStart);
  b.Set(true, kPressureStart + milliseconds(800));
  EXPECT_FALSE(b.Due(kPressureStart + milliseconds(1000)));
  EXPECT_TRUE(b.Due(kPressureStart + milliseconds(1800)));
}

}  // namespace
}  // namespace sparse::kafka
