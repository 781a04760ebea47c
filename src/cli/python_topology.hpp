// Loading any topology a command is given: YAML (runtime/topology_loader.hpp) or a streamparse
// topology written in Python (`topologies/NAME.py` with streamparse's DSL), or in the Clojure of
// streamparse 2 and earlier (`topologies/NAME.clj`, read by the same helper's streamparse_clj.py:
// shell-/python-spout-spec and -bolt-spec in a (def ...) or (defn NAME [options] ...)).
//
// A .py file is evaluated by sparse's Python helper (share/sparse/python/sparse_multilang/
// streamparse_topology.py, standard library only) with stand-ins for streamparse's DSL; it
// prints the topology as JSON, which becomes the same model a YAML file gives, every element
// placed at its file and line. The topology is named after the file, as streamparse names it.
// `par` given per environment is resolved for `env` (default: the project's only environment),
// and config.json's serializer becomes `-s NAME` on each `streamparse_run` command. JavaSpout/
// JavaBolt specs are refused (no JVM runs locally). Errors are TopologyErrors with file:line.
#pragma once

#include <filesystem>
#include <string>

#include "runtime/topology.hpp"

namespace sparse::runtime {
class BuiltinRegistry;
}

namespace sparse::cli {

// The Python interpreter sparse uses for its helpers: $SPARSE_PYTHON, else python3.
std::string HelperPython();

// Loads `file` (not validated): .py and .clj through the helper, anything else as YAML with the
// built-in components of `builtins`. A topology of a streamparse project runs in the project's
// src/.
runtime::Topology LoadAnyTopology(const std::filesystem::path& file,
                                  const runtime::BuiltinRegistry& builtins,
                                  const std::string& env = "");

}  // namespace sparse::cli
