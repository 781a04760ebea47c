// Builds a project's compiled components before they run: a project with a CMakeLists.txt at its
// root (as `sparse quickstart NAME --lang cpp` writes) is configured once into `_build/` with
// sparse's CMake package (`find_package(sparse)` finds the adapter next to this binary) and built
// incrementally. Output goes to `_build/sparse-build.log` and is shown when the build fails;
// meanwhile the console shows the step (CMake's "[ 45%] Building ...") and the elapsed time.
//
// A `_build/` configured for another folder (the project was copied or moved with it) or against
// another sparse installation is removed and configured afresh: CMake refuses to reuse it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "cli/project.hpp"

namespace sparse::cli {

// True when the project has compiled components to build.
bool HasComponentBuild(const Project& project);

// Builds them; on failure prints what the compiler said and returns false.
bool BuildProjectComponents(const Project& project);

// The step a line of CMake's build output announces ("[ 45%] Building CXX object x.cpp.o"
// -> "[ 45%] Building CXX object x.cpp.o"; "Built target word_count" too); nullopt for any other
// line (compiler output, warnings).
std::optional<std::string> BuildStep(std::string_view line);

// Why `build_dir`'s CMakeCache.txt cannot be reused for `source_dir` built against
// `package_dir` (another source folder, another sparse package); nullopt when it can, or when
// there is no cache yet.
std::optional<std::string> StaleBuildCache(const std::filesystem::path& build_dir,
                                           const std::filesystem::path& source_dir,
                                           const std::filesystem::path& package_dir);

// Where sparse's CMake package (sparseConfig.cmake) is: <prefix>/lib/cmake/sparse.
std::filesystem::path SparseCMakePackageDir();

}  // namespace sparse::cli
