// Fuzz target: the jar reader behind `sparse run --jar` (storm/jar.hpp ExtractedJar over
// storm/zip.hpp ZipReader, on libzip), on any bytes as the jar, with small limits.
//
// Properties: extraction either succeeds or throws JarError naming the jar (no other exception);
// what it writes stays inside its folder's resources/, as regular files without execute bits,
// each within the entry limit and all within the total limit; its folder is gone after it, on
// success and on failure alike.
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "check.hpp"
#include "storm/jar.hpp"

namespace {

namespace fs = std::filesystem;

constexpr sparse::storm::JarLimits kLimits{64 * 1024, 256 * 1024};

// A private temporary folder: extraction folders go there, and it must be empty between runs.
const fs::path& Scratch() {
  static const fs::path dir = [] {
    std::string tmpl = (fs::temp_directory_path() / "sparse-fuzz-jar-XXXXXX").string();
    FUZZ_CHECK(::mkdtemp(tmpl.data()) != nullptr, "cannot make a scratch folder");
    ::setenv("TMPDIR", tmpl.c_str(), 1);
    std::atexit([] { fs::remove_all(Scratch()); });
    return fs::path(tmpl);
  }();
  return dir;
}

void CheckExtracted(const sparse::storm::ExtractedJar& jar) {
  const fs::path resources = fs::canonical(jar.resources_dir());
  std::uintmax_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(jar.root())) {
    const fs::path path = entry.path();
    FUZZ_CHECK(!entry.is_symlink(), "a symbolic link was extracted");
    if (entry.is_directory()) continue;
    FUZZ_CHECK(entry.is_regular_file(), "something other than a file was extracted");
    const std::string canonical = fs::canonical(path).string();
    FUZZ_CHECK(canonical.rfind(resources.string() + "/", 0) == 0, "a file outside resources/");
    const auto perms = fs::status(path).permissions();
    FUZZ_CHECK((perms & (fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec)) ==
                   fs::perms::none,
               "an extracted file is executable");
    const std::uintmax_t size = fs::file_size(path);
    FUZZ_CHECK(size <= kLimits.max_entry_bytes, "a file past the entry limit");
    total += size;
  }
  FUZZ_CHECK(total <= kLimits.max_total_bytes, "files past the total limit");
  FUZZ_CHECK(fs::is_regular_file(jar.topology_file()), "no topology file");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  const fs::path jar_path = Scratch() / "input.jar";
  {
    std::ofstream out(jar_path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const sparse::storm::ExtractedJar jar(jar_path, kLimits);
    CheckExtracted(jar);
  } catch (const sparse::storm::JarError& e) {
    FUZZ_CHECK(std::string(e.what()).find(jar_path.string()) != std::string::npos,
               "a jar error that does not name the jar");
  }
  fs::remove(jar_path);
  FUZZ_CHECK(fs::is_empty(Scratch()), "extraction left files behind");
  return 0;
}
