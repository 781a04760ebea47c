// The topology model: what a YAML file describes, independent of how it runs.
//
// Both sparse's concise YAML form and the shell subset of Storm Flux load into this model
// (topology_loader.hpp); validation (validate.hpp) checks it before anything starts. Every
// element remembers where in which file it was declared, so errors can name file and line.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace sparse::runtime {

struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0 when unknown
  std::string ToString() const { return line > 0 ? file + ":" + std::to_string(line) : file; }
};

enum class GroupingType {
  kShuffle,
  kFields,
  kAll,
  kGlobal,
  kNone,
  kDirect,
  kLocalOrShuffle,
  kPartialKey,
};

std::string_view GroupingName(GroupingType t);
// Parses Storm/Flux names (SHUFFLE, FIELDS, ...) and sparse's lower-case ones (shuffle,
// local_or_shuffle, partial_key ...). Case-insensitive; '-' and '_' are interchangeable.
std::optional<GroupingType> ParseGroupingName(std::string_view name);

struct Grouping {
  GroupingType type = GroupingType::kShuffle;
  std::vector<std::string> fields;  // kFields and kPartialKey
};

struct StreamDef {
  std::string id;
  std::vector<std::string> fields;
  bool direct = false;
  SourceLocation where;
};

struct InputDef {
  std::string component;
  std::string stream = "default";
  Grouping grouping;
  SourceLocation where;
};

enum class ComponentKind { kSpout, kBolt };

struct ComponentDef {
  std::string id;
  ComponentKind kind = ComponentKind::kBolt;
  // A shell component's argv, run without a shell in the topology's resources directory.
  std::vector<std::string> command;
  // The serializer the component speaks when its YAML says (`serializer: msgpack`); empty: from
  // its command or config (serializer_choice.hpp).
  std::string serializer;
  // A component built into the runtime (e.g. Storm's LogInfoBolt, TestWordCounter); empty for
  // shell components. `builtin_options` carries its settings from the YAML.
  std::string builtin;
  nlohmann::json builtin_options = nlohmann::json::object();
  std::vector<StreamDef> streams;
  int parallelism = 1;
  std::vector<InputDef> inputs;
  nlohmann::json config = nlohmann::json::object();    // per-component overrides
  std::map<std::string, SourceLocation> config_where;  // where each key of `config` is set
  SourceLocation where;

  bool is_spout() const { return kind == ComponentKind::kSpout; }
  const StreamDef* FindStream(std::string_view stream) const;
};

struct Topology {
  std::string name;
  nlohmann::json config = nlohmann::json::object();
  std::map<std::string, SourceLocation> config_where;  // where each key of `config` is set
  std::vector<ComponentDef> components;                // in file order
  std::filesystem::path file;                          // the YAML file it came from
  // Working directory of every component (Storm's resources/ folder). The loader sets the folder
  // holding the file; the CLI, which knows the project layout, sets a project's resources folder
  // (src/ by default; cli::LoadAnyTopology).
  std::filesystem::path resources_dir;
  bool flux = false;  // loaded from Storm Flux syntax

  const ComponentDef* Find(std::string_view id) const;
};

}  // namespace sparse::runtime
