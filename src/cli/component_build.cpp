#include "cli/component_build.hpp"

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cli/console.hpp"
#include "cli/paths.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  return out + "'";
}

int Shell(const std::string& command) {
  const int status = std::system(command.c_str());
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

fs::path SparseCMakePackageDir() {
  if (const char* home = std::getenv("SPARSE_HOME"); home && *home) {
    return fs::path(home) / "lib" / "cmake" / "sparse";
  }
  return ExecutablePath().parent_path().parent_path() / "lib" / "cmake" / "sparse";
}

bool HasComponentBuild(const Project& project) {
  std::error_code ec;
  return fs::exists(project.root / "CMakeLists.txt", ec);
}

bool BuildProjectComponents(const Project& project) {
  const fs::path build = project.root / "_build";
  const fs::path log = build / "sparse-build.log";
  std::error_code ec;
  fs::create_directories(build, ec);
  const Style style = Style::ForStderr();
  std::cerr << "building C++ components (" << (project.root / "CMakeLists.txt").string() << ")\n";
  int rc = 0;
  if (!fs::exists(build / "CMakeCache.txt", ec)) {
    rc = Shell("cmake -S " + Quote(project.root.string()) + " -B " + Quote(build.string()) +
               " -DCMAKE_BUILD_TYPE=Release -Dsparse_DIR=" +
               Quote(SparseCMakePackageDir().string()) + " > " + Quote(log.string()) + " 2>&1");
  }
  if (rc == 0) {
    rc = Shell("cmake --build " + Quote(build.string()) + " -j 2 >> " + Quote(log.string()) +
               " 2>&1");
  }
  if (rc == 0) return true;
  std::ifstream in(log);
  std::stringstream text;
  text << in.rdbuf();
  std::cerr << text.str();
  std::cerr << style.Paint("build of the C++ components failed", "31") << " (exit code " << rc
            << "; full output in " << log.string() << ")\n";
  if (fs::exists(build / "CMakeCache.txt", ec) &&
      text.str().find("find_package") != std::string::npos) {
    std::cerr << "hint: sparse's CMake package is expected in " << SparseCMakePackageDir().string()
              << "\n";
  }
  return false;
}

}  // namespace sparse::cli
