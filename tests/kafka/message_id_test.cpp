#include "kafka/message_id.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace sparse::kafka {
namespace {

TEST(MessageId, RoundTripsEveryValueIncludingTheExtremes) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  for (auto [slot, offset] :
       {std::pair<std::int64_t, std::int64_t>{0, 0}, {3, 123456789}, {max, max}, {min, min}}) {
    const std::string id = MessageId(slot, offset);
    std::int64_t s = -7, o = -7;
    ASSERT_TRUE(ParseMessageId(id, s, o)) << id;
    EXPECT_EQ(s, slot);
    EXPECT_EQ(o, offset);
  }
  EXPECT_EQ(MessageId(3, 42), "[3,42]");
}

TEST(MessageId, RefusesAnythingItDidNotWrite) {
  std::int64_t s = 0, o = 0;
  for (const char* bad :
       {"", "[", "[]", "[1]", "[1,", "[1,2", "1,2]", "[a,2]", "[1,b]", "[1,2]x", "[1,2]]", "[ 1,2]",
        "[1, 2]", "[1;2]", "[99999999999999999999,1]", "\"[1,2]\""}) {
    EXPECT_FALSE(ParseMessageId(bad, s, o)) << bad;
  }
}

}  // namespace
}  // namespace sparse::kafka
