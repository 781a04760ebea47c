// Where sparse finds its own files at run time: `share/sparse` next to the binary's `bin/`
// (the same layout in the build tree and in an installation), or $SPARSE_HOME/share/sparse.
#pragma once

#include <filesystem>
#include <optional>

namespace sparse::cli {

std::filesystem::path ExecutablePath();
// The share/sparse folder; throws with a clear message if it cannot be found.
std::filesystem::path ShareDir();
std::filesystem::path PythonAdapterDir();  // contains sparse_multilang/
std::filesystem::path TemplatesDir();      // contains quickstart/

}  // namespace sparse::cli
