#include "cli/project.hpp"

#include <algorithm>
#include <stdexcept>

#include "cli/streamparse_project.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

// The nearest folder at or above `start` with sparse.yaml or streamparse's config.json.
std::optional<fs::path> FindRoot(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (!fs::is_directory(dir, ec)) dir = dir.parent_path();
  for (; !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / "sparse.yaml", ec) || IsStreamparseConfig(dir / "config.json")) {
      return dir;
    }
    if (dir == dir.root_path()) break;
  }
  return std::nullopt;
}

bool IsTopologyFile(const fs::path& path) {
  const auto ext = path.extension();
  return ext == ".yaml" || ext == ".yml" || ext == ".py" || ext == ".clj";
}

}  // namespace

std::string Project::DefaultEnvironment() const {
  const YAML::Node envs = config["environments"];
  if (envs && envs.IsMap() && envs.size() == 1) return envs.begin()->first.as<std::string>();
  return {};
}

std::string Project::Serializer(const std::string& env) const {
  if (auto it = serializers.find(env); !env.empty() && it != serializers.end()) return it->second;
  auto top = serializers.find("");
  return top != serializers.end() ? top->second : std::string();
}

std::optional<Project> FindProject(const fs::path& start) {
  auto root = FindRoot(start);
  if (!root) return std::nullopt;
  Project p;
  p.root = *root;
  const fs::path file = p.root / "sparse.yaml";
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    LoadStreamparseProject(p);
    return p;
  }
  p.config_file = file;
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
  if (const auto d = p.config["default_topology"]) {
    if (!d.IsScalar()) {
      throw std::runtime_error(file.string() + ":" + std::to_string(d.Mark().line + 1) +
                               ": default_topology: expected the name of one topology");
    }
    p.default_topology = d.as<std::string>();
  }
  return p;
}

std::vector<fs::path> ListTopologies(const Project& project) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(project.topologies_dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(project.topologies_dir, ec)) {
    // streamparse projects keep helpers (__init__.py) beside their topologies.
    if (IsTopologyFile(e.path()) && e.path().filename() != "__init__.py") {
      out.push_back(e.path());
    }
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
      for (const char* ext : {"", ".yaml", ".yml", ".py", ".clj"}) {
        fs::path p = project->topologies_dir / (*arg + ext);
        if (fs::is_regular_file(p, ec)) return p;
      }
    }
    throw std::runtime_error("no topology file or project topology named `" + *arg + "`");
  }
  if (!project) {
    throw std::runtime_error(
        "not inside a sparse project (no sparse.yaml or streamparse config.json here or above): "
        "give a topology file, "
        "e.g. `sparse run topology.yaml`, or create a project with `sparse quickstart NAME`");
  }
  auto all = ListTopologies(*project);
  if (all.empty()) {
    throw std::runtime_error("the project has no topologies in " +
                             project->topologies_dir.string());
  }
  if (all.size() > 1 && !project->default_topology.empty()) {
    for (const auto& p : all) {
      if (p.stem() == project->default_topology || p.filename() == project->default_topology) {
        return p;
      }
    }
    throw std::runtime_error(project->config_file.string() + ": default_topology `" +
                             project->default_topology + "` is not a topology in " +
                             project->topologies_dir.string());
  }
  if (all.size() > 1) {
    std::string names;
    for (const auto& p : all) names += "\n  " + p.stem().string();
    throw std::runtime_error("the project has several topologies; name one:" + names);
  }
  return all.front();
}

std::string YamlWhere(const fs::path& file, const YAML::Node& node) {
  const int line = node.Mark().line >= 0 ? node.Mark().line + 1 : 0;
  return file.string() + (line > 0 ? ":" + std::to_string(line) : "");
}

}  // namespace sparse::cli
