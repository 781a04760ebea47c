// One step of a keyed aggregation: the new total of a key from its current total and one input
// value. Pure (JSON text in, JSON text out), so the rules are tested as a table.
//
//   count  the number of inputs (the value is not looked at)
//   sum    the sum of numeric values: integers stay exact integers while they fit in 64 bits,
//          and become doubles once any input is not an integer or the sum overflows
//   min    the smallest numeric value; max the largest
//   last   the last value, whatever JSON it is
//
// A value that sum, min or max cannot use (not a number, or null) is an error naming what it
// was; the total stays as it was.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "kafka/options.hpp"

namespace sparse::kafka {

// `current`: the key's total so far (JSON text), or nullptr for a key not seen yet. On success
// sets `next` and returns nullopt; else returns why.
std::optional<std::string> ApplyAggregate(AggregateOp op, const std::string* current,
                                          std::string_view value_json, std::string& next);

const char* AggregateOpName(AggregateOp op);

}  // namespace sparse::kafka
