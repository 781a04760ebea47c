// The topology jar: what `sparse jar` writes, `sparse submit` uploads and `sparse run --jar` runs.
//
// Layout (a zip; Storm's supervisor extracts `resources/` and runs every component there):
//
//   META-INF/MANIFEST.MF
//   resources/<the project's resources folder (src/), as is>
//   resources/_sparse/launch/<component>.sh      one launcher per component (launcher.hpp)
//   resources/_sparse/python/sparse_multilang/   the Python adapter, which a cluster lacks
//   resources/_sparse/site/                      the topology's Python requirements, if any
//                                                (pip install --target; cli/python_deps.hpp)
//   resources/_sparse/topology.yaml              the topology as submitted: sparse YAML whose
//                                                commands are the launchers' [sh, script]
//
// `__pycache__`, `.git`, `logs` and `_build` folders, `*.pyc` files and the jar being written are
// left out. Entries are sorted (the manifest first) and carry fixed timestamps, so the same
// project gives the same bytes. Files that are executable in the project are marked so (0755)
// and listed in every launcher, which restores the bit the supervisor drops.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "base/error.hpp"
#include "runtime/topology.hpp"
#include "storm/zip.hpp"

namespace sparse::storm {

inline constexpr std::string_view kResourcesPrefix = "resources/";
inline constexpr std::string_view kTopologyFile = "_sparse/topology.yaml";  // inside resources/

// A jar that cannot be read, written or used (kInvalidInput; base/error.hpp).
class JarError : public base::Error {
 public:
  explicit JarError(const std::string& message) : base::Error(base::Errc::kInvalidInput, message) {}
};

struct JarInputs {
  // The folder that contains `sparse_multilang/` (cli::PythonAdapterDir()).
  std::filesystem::path python_adapter_dir;
  // A file never to include (the jar being written, when it lies inside the resources folder).
  std::filesystem::path exclude;
  // Installed Python packages to carry as resources/_sparse/site (empty: none).
  std::filesystem::path site_packages_dir;
};

struct JarContents {
  std::vector<ZipEntry> entries;      // in archive order
  std::vector<std::string> warnings;  // e.g. symlinked folders that were not followed
};

// Everything the jar of `topology` holds. The topology must be valid and submittable
// (convert.hpp: CheckSubmittable); throws runtime::TopologyError if it is not, JarError when a
// file cannot be read or the resources folder uses the reserved `_sparse/`.
JarContents MakeJarContents(const runtime::Topology& topology, const JarInputs& inputs);

// MakeJarContents, written to `path` (parent folders are created). Returns the contents written.
JarContents WriteJar(const runtime::Topology& topology, const JarInputs& inputs,
                     const std::filesystem::path& path);

// What extracting a jar may write: a jar is small, but its entries may inflate a thousandfold.
struct JarLimits {
  std::uint64_t max_entry_bytes = std::uint64_t{256} << 20;  // 256 MiB
  std::uint64_t max_total_bytes = std::uint64_t{1} << 30;    // 1 GiB, all of resources/
};

// A jar extracted the way a Storm supervisor does it, for `sparse run --jar`: only `resources/`
// (other entries are not even inflated), into a fresh temporary folder, every file without
// execute permission, each entry streamed to its file (memory stays small whatever the sizes).
// The folder is removed when this object is destroyed. Throws JarError for an unreadable jar,
// an entry escaping the folder (`..`, absolute paths), an entry or a total past `limits` (the
// error names the jar and the entry), or a jar without resources/_sparse/topology.yaml.
// (extracted_jar.cpp)
class ExtractedJar {
 public:
  explicit ExtractedJar(const std::filesystem::path& jar, const JarLimits& limits = {});
  ~ExtractedJar();
  ExtractedJar(const ExtractedJar&) = delete;
  ExtractedJar& operator=(const ExtractedJar&) = delete;

  const std::filesystem::path& root() const { return root_; }
  // The components' working directory (Storm's resources/).
  std::filesystem::path resources_dir() const { return root_ / "resources"; }
  // The topology as submitted; load it with runtime::LoadTopology, then set its resources_dir.
  std::filesystem::path topology_file() const { return resources_dir() / kTopologyFile; }

 private:
  std::filesystem::path root_;
};

}  // namespace sparse::storm
