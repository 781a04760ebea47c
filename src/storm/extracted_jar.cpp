// ExtractedJar (jar.hpp): a jar's resources/ streamed to a temporary folder, within limits.
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <optional>

#include "storm/jar.hpp"

namespace sparse::storm {

namespace fs = std::filesystem;

namespace {

// `name` relative to resources/, if it is a safe relative path.
bool SafeRelative(const std::string& rel) {
  if (rel.empty() || rel.front() == '/') return false;
  for (const auto& part : fs::path(rel)) {
    if (part == "..") return false;
  }
  return true;
}

std::string Bytes(std::uint64_t n) {
  return std::to_string(n) + " bytes";
}

}  // namespace

ExtractedJar::ExtractedJar(const fs::path& jar, const JarLimits& limits) {
  std::optional<ZipReader> reader;
  try {
    reader.emplace(jar);
  } catch (const ZipError& e) {
    throw JarError(e.what());
  }
  std::string tmpl = (fs::temp_directory_path() / "sparse-jar-XXXXXX").string();
  if (!::mkdtemp(tmpl.data()))
    throw JarError("cannot create a temporary folder for " + jar.string());
  root_ = tmpl;
  try {
    const fs::path resources = resources_dir();
    fs::create_directories(resources);
    const std::string prefix(kResourcesPrefix);
    std::uint64_t total = 0;
    for (std::uint64_t i = 0; i < reader->size(); ++i) {
      const ZipReader::Entry e = reader->Stat(i);
      // Only resources/ is extracted (as by Storm's supervisor): nothing else is even inflated.
      if (e.name.rfind(prefix, 0) != 0 || e.name.back() == '/') continue;
      const std::string rel = e.name.substr(prefix.size());
      if (!SafeRelative(rel)) {
        throw JarError(jar.string() + ": entry `" + e.name +
                       "` would be written outside resources/");
      }
      // The declared sizes refuse an honest oversized jar before anything is written; the
      // bytes are counted again as they inflate, against a header that lies.
      const std::uint64_t room = std::min(limits.max_entry_bytes, limits.max_total_bytes - total);
      if (e.size > room) {
        throw JarError(
            jar.string() + ": entry `" + e.name + "` is " + Bytes(e.size) +
            (e.size > limits.max_entry_bytes
                 ? ", more than the " + Bytes(limits.max_entry_bytes) + " an entry may hold"
                 : ", past the " + Bytes(limits.max_total_bytes) + " all of resources/ may hold"));
      }
      const fs::path out = resources / rel;
      // An entry whose folder is another entry's file ("a" and "a/b") cannot be written.
      std::error_code ec;
      fs::create_directories(out.parent_path(), ec);
      if (ec) {
        throw JarError(jar.string() + ": entry `" + e.name +
                       "` cannot be extracted: " + ec.message());
      }
      std::ofstream file(out, std::ios::binary | std::ios::trunc);
      try {
        reader->Read(i, room, [&](std::string_view bytes) {
          file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
          total += bytes.size();
        });
      } catch (const ZipError& error) {
        throw JarError(error.what());
      }
      file.close();
      if (!file) {
        throw JarError(jar.string() + ": entry `" + e.name + "` cannot be written to " +
                       out.string());
      }
      // Like Storm's supervisor: no execute bits. The launchers restore what needs them.
      fs::permissions(out,
                      fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                          fs::perms::others_read,
                      ec);
    }
    if (!fs::is_regular_file(topology_file())) {
      throw JarError(jar.string() + " is not a jar built by `sparse jar`: it has no resources/" +
                     std::string(kTopologyFile));
    }
  } catch (...) {
    std::error_code ec;
    fs::remove_all(root_, ec);
    throw;
  }
}

ExtractedJar::~ExtractedJar() {
  std::error_code ec;
  fs::remove_all(root_, ec);
}

}  // namespace sparse::storm
