#include "cli/paths.hpp"

#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace sparse::cli {

namespace fs = std::filesystem;

fs::path ExecutablePath() {
  std::error_code ec;
  auto p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

fs::path ShareDir() {
  std::error_code ec;
  if (const char* home = std::getenv("SPARSE_HOME"); home && *home) {
    fs::path p = fs::path(home) / "share" / "sparse";
    if (fs::is_directory(p, ec)) return p;
    throw std::runtime_error("SPARSE_HOME is set but " + p.string() + " does not exist");
  }
  fs::path exe = ExecutablePath();
  fs::path p = exe.parent_path().parent_path() / "share" / "sparse";
  if (fs::is_directory(p, ec)) return p;
  throw std::runtime_error("cannot find sparse's share files at " + p.string() +
                           " (is sparse installed? set SPARSE_HOME to its prefix)");
}

fs::path PythonAdapterDir() {
  return ShareDir() / "python";
}
fs::path TemplatesDir() {
  return ShareDir() / "templates";
}

}  // namespace sparse::cli
