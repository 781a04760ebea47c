// A sparse project on disk: a folder with `sparse.yaml` (project config with environments),
// `topologies/*.yaml`, and `src/` (the components; what becomes `resources/` in a jar).
//
// A streamparse project is one too: a folder whose `config.json` is streamparse's (a JSON object
// with `envs` or `topology_specs`; streamparse_project.hpp reads it into the same `config`),
// with `topologies/*.py` in streamparse's DSL or streamparse 2's `*.clj` (python_topology.hpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sparse::cli {

struct Project {
  std::filesystem::path root;
  std::string name;
  std::filesystem::path topologies_dir;
  std::filesystem::path resources_dir;
  // sparse.yaml's `default_topology`: the one commands use when the project has several and
  // none is named (empty: none).
  std::string default_topology;
  YAML::Node config;  // the whole sparse.yaml, or what config.json means in its terms
  std::filesystem::path config_file;  // sparse.yaml or config.json
  bool streamparse = false;           // found by streamparse's config.json
  // config.json's `serializer` per environment name ("" key: the top-level one).
  std::map<std::string, std::string> serializers;

  // The environment a command uses when none is named: the only one the project defines (as
  // streamparse chooses), else none.
  std::string DefaultEnvironment() const;
  // The serializer config.json sets for `env` (the environment's, else the top-level one).
  std::string Serializer(const std::string& env) const;
};

// The project containing `start` (searching upwards for sparse.yaml or streamparse's
// config.json; the nearest wins), if any. Throws on a
// sparse.yaml that cannot be parsed, naming the file and line.
std::optional<Project> FindProject(const std::filesystem::path& start);

// Resolves the topology a command should use: an explicit path, a name in the project's
// topologies folder (with or without .yaml/.yml/.py/.clj), or the project's only topology (or its
// default_topology when it has several). Throws
// std::runtime_error with a helpful message otherwise.
std::filesystem::path ResolveTopology(const std::optional<std::string>& arg,
                                      const std::optional<Project>& project);

std::vector<std::filesystem::path> ListTopologies(const Project& project);

// "file:line" of a YAML node for messages (just "file" when the node has no position).
std::string YamlWhere(const std::filesystem::path& file, const YAML::Node& node);

}  // namespace sparse::cli
