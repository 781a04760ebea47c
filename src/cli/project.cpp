#include "cli/project.hpp"

#include <algorithm>
#include <stdexcept>

#include "runtime/topology_loader.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

std::optional<Project> FindProject(const fs::path& start) {
  auto root = runtime::FindProjectRoot(start);
  if (!root) return std::nullopt;
  Project p;
  p.root = *root;
  const fs::path file = p.root / "sparse.yaml";
  try {
    p.config = YAML::LoadFile(file.string());
  } catch (const YAML::ParserException& e) {
    throw std::runtime_error(file.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  p.name = p.config["project"] ? p.config["project"].as<std::string>() : p.root.filename().string();
  p.topologies_dir =
      p.root / (p.config["topologies"] ? p.config["topologies"].as<std::string>() : "topologies");
  p.resources_dir =
      p.root / (p.config["resources"] ? p.config["resources"].as<std::string>() : "src");
  return p;
}

std::vector<fs::path> ListTopologies(const Project& project) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(project.topologies_dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(project.topologies_dir, ec)) {
    auto ext = e.path().extension();
    if (ext == ".yaml" || ext == ".yml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

fs::path ResolveTopology(const std::optional<std::string>& arg,
                         const std::optional<Project>& project) {
  std::error_code ec;
  if (arg) {
    if (fs::is_regular_file(*arg, ec)) return fs::absolute(*arg);
    if (project) {
      for (const char* ext : {"", ".yaml", ".yml"}) {
        fs::path p = project->topologies_dir / (*arg + ext);
        if (fs::is_regular_file(p, ec)) return p;
      }
    }
    throw std::runtime_error("no topology file or project topology named `" + *arg + "`");
  }
  if (!project) {
    throw std::runtime_error(
        "not inside a sparse project (no sparse.yaml here or above): give a topology file, "
        "e.g. `sparse run topology.yaml`, or create a project with `sparse quickstart NAME`");
  }
  auto all = ListTopologies(*project);
  if (all.empty()) {
    throw std::runtime_error("the project has no topologies in " +
                             project->topologies_dir.string());
  }
  if (all.size() > 1) {
    std::string names;
    for (const auto& p : all) names += "\n  " + p.stem().string();
    throw std::runtime_error("the project has several topologies; name one:" + names);
  }
  return all.front();
}

}  // namespace sparse::cli
