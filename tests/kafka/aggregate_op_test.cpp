// keyed_aggregate's arithmetic (kafka/aggregate_op.hpp), as a table: op, the current total (or
// none), the input value, and the new total or the start of the error.
#include "kafka/aggregate_op.hpp"

#include <gtest/gtest.h>

namespace sparse::kafka {
namespace {

struct Case {
  AggregateOp op;
  const char* current;  // nullptr: the key is new
  const char* value;
  const char* next;   // nullptr: an error is expected
  const char* error;  // its beginning
};

const Case kCases[] = {
    {AggregateOp::kCount, nullptr, "\"anything\"", "1", nullptr},
    {AggregateOp::kCount, "41", "null", "42", nullptr},
    {AggregateOp::kSum, nullptr, "5", "5", nullptr},
    {AggregateOp::kSum, "5", "-7", "-2", nullptr},
    {AggregateOp::kSum, "9223372036854775807", "1", "9.223372036854776e+18", nullptr},
    {AggregateOp::kSum, "1", "0.5", "1.5", nullptr},
    {AggregateOp::kSum, "1.5", "1.5", "3.0", nullptr},
    {AggregateOp::kSum, "1", "\"2\"", nullptr, "sum needs a number, got \"2\""},
    {AggregateOp::kSum, "1", "null", nullptr, "sum needs a number"},
    {AggregateOp::kSum, "1.7e308", "1.7e308", nullptr, "the sum overflows"},
    {AggregateOp::kMin, nullptr, "3", "3", nullptr},
    {AggregateOp::kMin, "3", "2.5", "2.5", nullptr},
    {AggregateOp::kMin, "3", "4", "3", nullptr},
    {AggregateOp::kMin, "-9223372036854775808", "-9223372036854775807", "-9223372036854775808",
     nullptr},
    {AggregateOp::kMax, "3", "4", "4", nullptr},
    {AggregateOp::kMax, "3", "[1]", nullptr, "max needs a number"},
    {AggregateOp::kLast, "1", "{\"a\": [1, 2]}", "{\"a\": [1, 2]}", nullptr},
    {AggregateOp::kLast, nullptr, "null", "null", nullptr},
};

TEST(AggregateOp, Table) {
  for (const Case& c : kCases) {
    const std::string current = c.current ? c.current : "";
    std::string next = "untouched";
    auto err = ApplyAggregate(c.op, c.current ? &current : nullptr, c.value, next);
    SCOPED_TRACE(std::string(AggregateOpName(c.op)) + "(" + (c.current ? c.current : "none") +
                 ", " + c.value + ")");
    if (c.next) {
      EXPECT_FALSE(err) << *err;
      EXPECT_EQ(next, c.next);
    } else {
      ASSERT_TRUE(err);
      EXPECT_EQ(err->rfind(c.error, 0), 0u) << *err;
      EXPECT_EQ(next, "untouched") << "the total stays as it was";
    }
  }
}

}  // namespace
}  // namespace sparse::kafka
