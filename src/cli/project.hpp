// A sparse project on disk: a folder with `sparse.yaml` (project config with environments),
// `topologies/*.yaml`, and `src/` (the components; what becomes `resources/` in a jar).
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sparse::cli {

struct Project {
  std::filesystem::path root;
  std::string name;
  std::filesystem::path topologies_dir;
  std::filesystem::path resources_dir;
  YAML::Node config;  // the whole sparse.yaml
};

// The project containing `start` (searching upwards for sparse.yaml), if any. Throws on a
// sparse.yaml that cannot be parsed, naming the file and line.
std::optional<Project> FindProject(const std::filesystem::path& start);

// Resolves the topology a command should use: an explicit path, a name in the project's
// topologies folder (with or without .yaml), or the project's only topology. Throws
// std::runtime_error with a helpful message otherwise.
std::filesystem::path ResolveTopology(const std::optional<std::string>& arg,
                                      const std::optional<Project>& project);

std::vector<std::filesystem::path> ListTopologies(const Project& project);

}  // namespace sparse::cli
