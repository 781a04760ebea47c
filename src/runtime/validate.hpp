// Checks a loaded topology before anything starts, the way Storm's Nimbus does and a little
// more: every problem found is returned with the file and line it comes from.
#pragma once

#include <vector>

#include "runtime/topology.hpp"
#include "runtime/topology_loader.hpp"

namespace sparse::runtime {

class BuiltinRegistry;

// Configuration from outside the topology's file that applies over it (later wins): the command
// line's `-o key=value`, an environment's options. Checked with the topology's own.
struct ConfigSource {
  SourceLocation where;  // e.g. {"command line (-o)"}
  nlohmann::json config = nlohmann::json::object();
};

// `builtins` is the registry the topology was loaded with (builtin_registry.hpp): the rules
// across components of the built-ins it uses (BuiltinInfo::check_topology) come from it. It is
// only used during the call.

// Every problem, including every config key of the file, its components and `extra` with a
// wrong type or range or an unknown `sparse.*` name (config.hpp: CheckConfig), all at once.
std::vector<Diagnostic> ValidateTopology(const Topology& topology, const BuiltinRegistry& builtins,
                                         const std::vector<ConfigSource>& extra = {});

// Throws TopologyError if ValidateTopology finds anything.
void ValidateOrThrow(const Topology& topology, const BuiltinRegistry& builtins,
                     const std::vector<ConfigSource>& extra = {});

// What deserves a warning but does not stop a run: misspelt-looking keys, `topology.*` keys a
// local run does not use, and the built-ins' own warnings.
std::vector<Diagnostic> ConfigWarnings(const Topology& topology, const BuiltinRegistry& builtins,
                                       const std::vector<ConfigSource>& extra = {});

}  // namespace sparse::runtime
