// The message ids the Kafka spout gives its tuples: "[slot,offset]", the partition's slot in the
// spout's table (a number that is never reused within a task, so an ack for a partition the spout
// no longer owns cannot be taken for one it owns now) and the record's offset. JSON text, as the
// runtime carries message ids.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sparse::kafka {

std::string MessageId(std::int64_t slot, std::int64_t offset);

// False for anything MessageId did not write (the whole text must be "[N,N]").
bool ParseMessageId(std::string_view id, std::int64_t& slot, std::int64_t& offset);

}  // namespace sparse::kafka
