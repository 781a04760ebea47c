// Python dependencies that travel with a topology (issue 13).
//
// Where they are declared:
//   - a streamparse project: `virtualenvs/<topology>.txt` (config.json's `virtualenv_specs`
//     names the folder), a pip requirements file, as streamparse reads it;
//   - a sparse.yaml project: `python_requirements:`, a list of pip requirement lines for every
//     topology of the project (a file's line, e.g. `requests>=2`, `./wheels/x.whl`, `-r f.txt`).
// A `streamparse` line is left out (with a note): sparse brings its own streamparse and pystorm
// for the components, and the real streamparse needs thriftpy2 and fabric for what sparse does
// itself. Nothing left means no virtualenv at all.
//
// Where they go:
//   - `sparse run` (and `visualize`, `jar`, `submit`, which evaluate a .py topology in it, since
//     it imports its components): a virtualenv per project and topology,
//     `_build/venv/<topology>-<hash>/`, built once with `python3 -m venv` + pip (its output shown
//     on the console and kept in
//     `_build/venv/<topology>-pip.log`), rebuilt when the requirements or the interpreter change
//     (the hash covers both) or with `sparse update_virtualenv`; its bin/ goes first on the
//     components' PATH and its python becomes $SPARSE_PYTHON.
//   - `sparse jar`/`submit`: `pip install --target` into
//   `_build/venv/<topology>-<hash>-site[-pyX.Y]`,
//     which the jar carries as `resources/_sparse/site` (launcher.hpp puts it on PYTHONPATH), so a
//     worker needs only a Python interpreter. The workers' Python version is set with
//     `--python-version X.Y` or $SPARSE_WORKER_PYTHON_VERSION (pip then takes wheels only).
// Relative paths in the requirements are relative to the project root (pip runs there).
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/project.hpp"

namespace sparse::cli {

struct Requirements {
  std::filesystem::path file;      // the file declaring them (for messages)
  std::vector<std::string> lines;  // what pip gets, one requirement or pip option per entry
  std::vector<std::string> notes;  // lines left out, and why (`file:line: ...`)
};

// The requirements file a streamparse project declares for `topology` (whether or not it
// exists): <root>/<virtualenv_specs>/<topology>.txt. Empty for a sparse.yaml project.
std::filesystem::path StreamparseRequirementsFile(const Project& project,
                                                  const std::string& topology);

// What `project` declares for `topology`, or nullopt when it declares nothing. Checks every
// line's shape; throws base::Error (kInvalidTopology) naming file:line for one pip would not read.
std::optional<Requirements> FindRequirements(const Project& project, const std::string& topology);

// A topology file's requirements, with the project declaring them.
struct TopologyRequirements {
  Project project;
  std::string topology;  // the file's stem: streamparse's topology name
  Requirements requirements;
  std::filesystem::path venv;  // its virtualenv, once UseTopologyVirtualenv has built it
};

// The requirements of the topology in `file` (from its project), if it declares any.
std::optional<TopologyRequirements> RequirementsOfTopologyFile(const std::filesystem::path& file);

// The virtualenv `sparse run` uses for `topology`: built if missing or stale (or `rebuild`).
// Returns its folder. Throws base::Error (kStartFailed) when venv or pip fails, naming the file.
std::filesystem::path EnsureVirtualenv(const Project& project, const std::string& topology,
                                       const Requirements& requirements, bool rebuild = false);

// The packages installed with `pip install --target` for the workers' Python `python_version`
// ("" = the local one) by the pip of `r.venv` (UseTopologyVirtualenv's), cached beside it.
// Throws base::Error on failure.
std::filesystem::path VendorRequirements(const TopologyRequirements& r,
                                         const std::string& python_version);

// Puts the virtualenv first for everything this process starts afterwards: its bin/ on PATH,
// $SPARSE_PYTHON and $VIRTUAL_ENV (the helper that evaluates .py topologies uses it too).
// Activating the active one again changes nothing.
void ActivateVirtualenv(const std::filesystem::path& venv);

// The one step every command takes before it evaluates or runs the topology in `file`: its
// requirements (RequirementsOfTopologyFile) and, if it has any, its virtualenv built if needed
// (EnsureVirtualenv) and activated. Done once per process and file: once activated, the
// interpreter is the virtualenv's, which must not key another one. Returns the requirements,
// with `venv` set.
std::optional<TopologyRequirements> UseTopologyVirtualenv(const std::filesystem::path& file);

// The workers' Python version for `jar`/`submit`: `flag` if set, else
// $SPARSE_WORKER_PYTHON_VERSION, else "" (the local interpreter's). Throws base::Error
// (exit 1) unless it reads as MAJOR.MINOR.
std::string WorkerPythonVersion(const std::string& flag);

}  // namespace sparse::cli
