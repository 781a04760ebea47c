// Idx(i): an int id or index as a vector subscript.
//
// sparse's ids and indices are ints, as Storm's are (task ids are i32 on the wire; component,
// stream and field indices follow), while std::vector takes size_t. Idx is for an index the code
// itself made from the plan, never negative; input from a child or a record is range-checked
// where it arrives, before it becomes one.
#pragma once

#include <cstddef>

namespace sparse::base {

constexpr std::size_t Idx(int i) noexcept {
  return static_cast<std::size_t>(i);
}

}  // namespace sparse::base
