// Checks a loaded topology before anything starts, the way Storm's Nimbus does and a little
// more: every problem found is returned with the file and line it comes from.
#pragma once

#include <vector>

#include "runtime/topology.hpp"
#include "runtime/topology_loader.hpp"

namespace sparse::runtime {

std::vector<Diagnostic> ValidateTopology(const Topology& topology);

// Throws TopologyError if ValidateTopology finds anything.
void ValidateOrThrow(const Topology& topology);

}  // namespace sparse::runtime
