#include "cli/component_build.hpp"

#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
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

int WaitStatusCode(int status) {
  if (status == -1) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string Seconds(std::chrono::steady_clock::time_point since) {
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << secs << " s";
  return o.str();
}

// Runs `command` (a shell command line), appending everything it prints to `log`; each build
// step it announces is shown on stderr with the time since `start`: on a terminal as one line
// that changes, otherwise a line per step.
int RunShowingSteps(const std::string& command, std::ofstream& log, const Style& style,
                    std::chrono::steady_clock::time_point start) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return -1;
  char* buf = nullptr;
  std::size_t cap = 0;
  bool shown = false;
  for (ssize_t n; (n = ::getline(&buf, &cap, pipe)) > 0;) {
    std::string_view line(buf, static_cast<std::size_t>(n));
    log << line;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    auto step = BuildStep(line);
    if (!step) continue;
    std::string text = "  " + step->substr(0, 100) + " (" + Seconds(start) + ")";
    if (style.tty) {
      std::cerr << "\r\033[K" << text << std::flush;
      shown = true;
    } else {
      std::cerr << text << "\n";
    }
  }
  std::free(buf);
  log.flush();
  if (shown) std::cerr << "\r\033[K" << std::flush;
  return WaitStatusCode(::pclose(pipe));
}

// The value of `key` (NAME:TYPE=value) in a CMakeCache.txt, or "".
std::string CacheValue(const std::string& cache, const std::string& name) {
  std::istringstream in(cache);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(name + ":", 0) != 0) continue;
    const auto eq = line.find('=');
    return eq == std::string::npos ? "" : line.substr(eq + 1);
  }
  return "";
}

bool SamePath(const fs::path& a, const fs::path& b) {
  auto canonical = [](const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return c.has_filename() ? c : c.parent_path();  // "dir/" is "dir"
  };
  return canonical(a) == canonical(b);
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

std::optional<std::string> BuildStep(std::string_view line) {
  // "[ 45%] Building CXX object ...", "[100%] Linking CXX executable ..."
  if (line.size() > 7 && line[0] == '[' && line.substr(4, 3) == "%] ") return std::string(line);
  if (line.rfind("Built target ", 0) == 0) return std::string(line);
  return std::nullopt;
}

std::optional<std::string> StaleBuildCache(const fs::path& build_dir, const fs::path& source_dir,
                                           const fs::path& package_dir) {
  std::ifstream in(build_dir / "CMakeCache.txt");
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  const std::string cache = text.str();
  const std::string home = CacheValue(cache, "CMAKE_HOME_DIRECTORY");
  if (!home.empty() && !SamePath(home, source_dir)) return "it was configured for " + home;
  const std::string at = CacheValue(cache, "CMAKE_CACHEFILE_DIR");
  if (!at.empty() && !SamePath(at, build_dir)) return "it was configured in " + at;
  const std::string sparse = CacheValue(cache, "sparse_DIR");
  if (!sparse.empty() && !SamePath(sparse, package_dir)) {
    return "it was configured against sparse's package in " + sparse;
  }
  return std::nullopt;
}

bool BuildProjectComponents(const Project& project) {
  const fs::path build = project.root / "_build";
  const fs::path log = build / "sparse-build.log";
  const fs::path package = SparseCMakePackageDir();
  const auto start = std::chrono::steady_clock::now();
  std::error_code ec;
  const Style style = Style::ForStderr();
  std::cerr << "building C++ components (" << (project.root / "CMakeLists.txt").string() << ")\n";
  if (auto why = StaleBuildCache(build, project.root, package)) {
    // CMake refuses a cache made for another folder, and one made against another sparse would
    // link the wrong adapter: start over (only _build/ is sparse's to remove).
    std::cerr << "  _build/ is from elsewhere (" << *why << "): configuring it afresh\n";
    fs::remove_all(build, ec);
  }
  fs::create_directories(build, ec);
  int rc = 0;
  {
    std::ofstream out(log, std::ios::trunc);
    if (!fs::exists(build / "CMakeCache.txt", ec)) {
      std::cerr << "  configuring (cmake)\n";
      rc = RunShowingSteps(
          "cmake -S " + Quote(project.root.string()) + " -B " + Quote(build.string()) +
              " -DCMAKE_BUILD_TYPE=Release -Dsparse_DIR=" + Quote(package.string()),
          out, style, start);
    }
    if (rc == 0) {
      rc = RunShowingSteps("cmake --build " + Quote(build.string()) + " -j 2", out, style, start);
    }
  }
  if (rc == 0) {
    std::cerr << "built C++ components in " << Seconds(start) << "\n";
    return true;
  }
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
