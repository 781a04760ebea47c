// Builds a project's compiled components before they run: a project with a CMakeLists.txt at its
// root (as `sparse quickstart NAME --lang cpp` writes) is configured once into `_build/` with
// sparse's CMake package (`find_package(sparse)` finds the adapter next to this binary) and built
// incrementally. Output goes to `_build/sparse-build.log` and is shown when the build fails.
#pragma once

#include <filesystem>

#include "cli/project.hpp"

namespace sparse::cli {

// True when the project has compiled components to build.
bool HasComponentBuild(const Project& project);

// Builds them; on failure prints what the compiler said and returns false.
bool BuildProjectComponents(const Project& project);

// Where sparse's CMake package (sparseConfig.cmake) is: <prefix>/lib/cmake/sparse.
std::filesystem::path SparseCMakePackageDir();

}  // namespace sparse::cli
