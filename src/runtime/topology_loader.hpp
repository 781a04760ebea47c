// Loads a topology YAML file into the model: sparse's concise form or Storm Flux's shell subset.
//
// Concise form:
//   name: wordcount
//   config: {topology.max.spout.pending: 1000}
//   spouts:
//     - id: words
//       command: [python3, spouts/words.py]
//       outputs: [word]                 # shorthand for streams: {default: [word]}
//   bolts:
//     - id: count
//       command: [python3, bolts/wordcount.py]
//       parallelism: 2
//       streams: {default: [word, count], alerts: {fields: [msg], direct: true}}
//       inputs:
//         - {from: words, grouping: fields, fields: [word]}
//       config: {topology.tick.tuple.freq.secs: 5}
//
// Flux form: spouts/bolts with className FluxShellSpout/FluxShellBolt and
// constructorArgs [[cmd, script...], [fields...]], plus top-level `streams` with from/to/grouping.
// Built-in components (`builtin: NAME`, or a Flux className such as Storm's TestWordSpout) are
// looked up in the registry the caller passes (builtin_registry.hpp), which declares their streams.
//
// Errors are collected with file:line and thrown together as TopologyError.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runtime/topology.hpp"

namespace sparse::runtime {

class BuiltinRegistry;

struct Diagnostic {
  SourceLocation where;
  std::string message;
  std::string ToString() const { return where.ToString() + ": " + message; }
};

// An invalid topology (kInvalidTopology; base/error.hpp): every problem found, each with its
// file and line.
class TopologyError : public base::Error {
 public:
  explicit TopologyError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Reads and parses `file`; throws TopologyError on syntax or shape errors, and on a built-in
// that `builtins` does not know. Does not validate cross-references (see ValidateTopology).
// resources_dir is set as described in topology.hpp. `builtins` is only used during the call.
Topology LoadTopology(const std::filesystem::path& file, const BuiltinRegistry& builtins);
// Same, from text (tests); `file` is used for messages and to place resources_dir.
Topology LoadTopologyFromString(const std::string& yaml, const std::filesystem::path& file,
                                const BuiltinRegistry& builtins);

}  // namespace sparse::runtime
