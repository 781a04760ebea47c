#include "cli/run_dir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <stdexcept>
#include <string>

#include "cli/process_identity.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "sparse-run-";
constexpr const char* kOwnerFile = "owner";
// A folder without an owner file is either being created this instant or was left by a version
// that wrote none; only the second is old.
constexpr auto kOwnerlessGrace = std::chrono::minutes(10);

fs::path TempRoot() {
  std::error_code ec;
  fs::path tmp = fs::temp_directory_path(ec);
  return ec ? fs::path("/tmp") : tmp;
}

bool Stale(const fs::path& dir) {
  std::ifstream in(dir / kOwnerFile);
  std::string text;
  if (in && std::getline(in, text)) {
    const auto owner = ProcessIdentity::Decode(text);
    return !owner || !owner->Alive();
  }
  std::error_code ec;
  const auto written = fs::last_write_time(dir, ec);
  if (ec) return false;
  return fs::file_time_type::clock::now() - written > kOwnerlessGrace;
}

}  // namespace

RunDir::RunDir() {
  std::string tmpl = (TempRoot() / (std::string(kPrefix) + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) {
    throw std::runtime_error("cannot create a temporary directory like " + tmpl);
  }
  path_ = tmpl;
  std::ofstream(path_ / kOwnerFile) << ProcessIdentity::Self().Encode() << "\n";
}

RunDir::~RunDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

std::vector<fs::path> RemoveStaleRunDirs(fs::path tmp) {
  if (tmp.empty()) tmp = TempRoot();
  std::vector<fs::path> removed;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(tmp, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    struct stat st {};
    // Only our own real folders: never follow a link someone else planted in a shared /tmp.
    if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
        st.st_uid != ::getuid()) {
      continue;
    }
    if (!Stale(entry.path())) continue;
    std::error_code rm;
    fs::remove_all(entry.path(), rm);
    if (!rm) removed.push_back(entry.path());
  }
  return removed;
}

}  // namespace sparse::cli
