// Thrift declares operator< for every generated struct but leaves its definition to the user;
// std::map needs it for ComponentCommon.inputs. It is part of the generated library, so every
// program that links the generated types (not only those that use convert.cpp) has it.
#include <tuple>

#include "sparse/storm/gen/storm_types.h"

namespace sparse::storm::gen {

bool GlobalStreamId::operator<(const GlobalStreamId& other) const {
  return std::tie(componentId, streamId) < std::tie(other.componentId, other.streamId);
}

}  // namespace sparse::storm::gen
