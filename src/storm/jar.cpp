#include "storm/jar.hpp"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "storm/convert.hpp"
#include "storm/launcher.hpp"

namespace sparse::storm {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kManifest = "META-INF/MANIFEST.MF";
constexpr std::string_view kManifestText = "Manifest-Version: 1.0\r\nCreated-By: sparse\r\n\r\n";

bool SkippedFolder(const std::string& name) {
  return name == "__pycache__" || name == ".git" || name == "logs" || name == "_build";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw JarError("cannot read " + path.string());
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) throw JarError("cannot read " + path.string());
  return buf.str();
}

bool SameFile(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  return !b.empty() && fs::exists(b, ec) && fs::equivalent(a, b, ec);
}

// Regular files under `dir`, as (path relative to dir with '/', absolute path), sorted.
std::vector<std::pair<std::string, fs::path>> CollectFiles(const fs::path& dir,
                                                           const fs::path& exclude,
                                                           std::vector<std::string>& warnings) {
  std::vector<std::pair<std::string, fs::path>> out;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec), end;
  if (ec) throw JarError("cannot read folder " + dir.string() + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) throw JarError("cannot read folder " + dir.string() + ": " + ec.message());
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    if (it->is_directory(ec) && !it->is_symlink(ec)) {
      if (SkippedFolder(name)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) && fs::is_directory(p, ec)) {
      warnings.push_back("symlinked folder " + p.string() + " is not followed; not in the jar");
      continue;
    }
    if (!fs::is_regular_file(p, ec)) continue;
    if (p.extension() == ".pyc" || SameFile(p, exclude)) continue;
    out.emplace_back(fs::relative(p, dir).generic_string(), p);
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsExecutable(const fs::path& p) {
  std::error_code ec;
  const auto perms = fs::status(p, ec).permissions();
  return !ec && (perms & fs::perms::owner_exec) != fs::perms::none;
}

}  // namespace

JarContents MakeJarContents(const runtime::Topology& topology, const JarInputs& inputs) {
  if (auto problems = CheckSubmittable(topology); !problems.empty()) {
    throw runtime::TopologyError(std::move(problems));
  }
  JarContents out;
  std::vector<ZipEntry> entries;
  const std::string prefix(kResourcesPrefix);
  std::error_code ec;
  if (!fs::is_directory(topology.resources_dir, ec)) {
    throw JarError("the resources folder " + topology.resources_dir.string() +
                   " of the topology does not exist");
  }
  if (fs::exists(topology.resources_dir / kSparseDir, ec)) {
    throw JarError("the resources folder " + topology.resources_dir.string() + " contains `" +
                   std::string(kSparseDir) +
                   "/`, which sparse reserves in jars for its launchers; rename it");
  }

  std::vector<std::string> executables;
  for (const auto& [rel, path] :
       CollectFiles(topology.resources_dir, inputs.exclude, out.warnings)) {
    const bool exec = IsExecutable(path);
    if (exec) executables.push_back(rel);
    entries.push_back({prefix + rel, ReadFile(path), exec});
  }

  const fs::path adapter = inputs.python_adapter_dir / "sparse_multilang";
  if (!fs::is_directory(adapter, ec)) {
    throw JarError("cannot find the Python adapter to put in the jar: " + adapter.string() +
                   " does not exist (is sparse installed? set SPARSE_HOME)");
  }
  // The adapter, and its stand-ins for streamparse and pystorm (which step aside where the
  // worker's Python has the real packages), so workers need only a Python interpreter.
  for (const char* package : {"sparse_multilang", "streamparse", "pystorm"}) {
    const fs::path dir = inputs.python_adapter_dir / package;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& [rel, path] : CollectFiles(dir, {}, out.warnings)) {
      entries.push_back(
          {prefix + std::string(kPythonDir) + "/" + package + "/" + rel, ReadFile(path), false});
    }
  }

  const bool with_site = !inputs.site_packages_dir.empty();
  if (with_site) {
    if (!fs::is_directory(inputs.site_packages_dir, ec)) {
      throw JarError("the Python packages to put in the jar are missing: " +
                     inputs.site_packages_dir.string());
    }
    for (const auto& [rel, path] : CollectFiles(inputs.site_packages_dir, {}, out.warnings)) {
      entries.push_back({prefix + std::string(kSiteDir) + "/" + rel, ReadFile(path), false});
    }
  }

  for (const auto& c : topology.components) {
    entries.push_back({prefix + LauncherPath(c.id),
                       LauncherScript(c.id, c.command, executables, with_site),
                       /*executable=*/true});
  }
  entries.push_back(
      {prefix + std::string(kTopologyFile),
       TopologyYaml(LauncherForm(topology),
                    "Topology `" + topology.name + "` as packaged by `sparse jar`: every\n" +
                        "component runs its launcher, as a Storm worker does.\n" +
                        "Run it with `sparse run --jar JAR`."),
       false});

  std::sort(entries.begin(), entries.end(),
            [](const ZipEntry& a, const ZipEntry& b) { return a.name < b.name; });
  out.entries.push_back({std::string(kManifest), std::string(kManifestText), false});
  for (auto& e : entries) out.entries.push_back(std::move(e));
  return out;
}

JarContents WriteJar(const runtime::Topology& topology, const JarInputs& inputs,
                     const fs::path& path) {
  JarContents contents = MakeJarContents(topology, inputs);
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  WriteZip(path, contents.entries);
  return contents;
}

}  // namespace sparse::storm
