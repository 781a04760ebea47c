// Deterministic zip files (jars) over libzip: the same entries give the same bytes.
//
// Entries are written in the order given, with a fixed timestamp (1980-01-01 00:00, the zip
// epoch), Unix modes 0644 or 0755 and deflate compression; no directory entries, no extra fields.
// Blocking file I/O; failures throw ZipError naming the file and what libzip said.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace sparse::storm {

class ZipError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ZipEntry {
  std::string name;  // '/'-separated path inside the archive
  std::string data;
  bool executable = false;  // Unix mode 0755 instead of 0644
};

// Writes `entries` to `path`, replacing it only once the archive is complete.
void WriteZip(const std::filesystem::path& path, const std::vector<ZipEntry>& entries);

// Every file entry of the archive at `path`, in archive order (directory entries are skipped).
std::vector<ZipEntry> ReadZip(const std::filesystem::path& path);

}  // namespace sparse::storm
