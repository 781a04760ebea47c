// Deterministic zip files (jars) over libzip: the same entries give the same bytes.
//
// Entries are written in the order given, with a fixed timestamp (1980-01-01 00:00, the zip
// epoch), Unix modes 0644 or 0755 and deflate compression; no directory entries, no extra fields.
// Blocking file I/O; failures throw ZipError naming the file and what libzip said.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"

namespace sparse::storm {

// An archive that cannot be opened, read or written (kInvalidInput; base/error.hpp).
class ZipError : public base::Error {
 public:
  explicit ZipError(const std::string& message) : base::Error(base::Errc::kInvalidInput, message) {}
};

struct ZipEntry {
  std::string name;  // '/'-separated path inside the archive
  std::string data;
  bool executable = false;  // Unix mode 0755 instead of 0644
};

// Writes `entries` to `path`, replacing it only once the archive is complete.
void WriteZip(const std::filesystem::path& path, const std::vector<ZipEntry>& entries);

// Reads an archive entry by entry, streaming each one's bytes, so that reading costs a small
// buffer whatever the entries inflate to (a 1 MB zip can hold a 1 GiB entry), and entries a
// caller does not want are never inflated.
class ZipReader {
 public:
  // Throws ZipError if `path` cannot be opened as a zip.
  explicit ZipReader(const std::filesystem::path& path);
  ~ZipReader();
  ZipReader(const ZipReader&) = delete;
  ZipReader& operator=(const ZipReader&) = delete;

  struct Entry {
    std::string name;        // as stored; directories end in '/'
    std::uint64_t size = 0;  // the uncompressed size the archive declares (it may lie)
    bool executable = false;
  };
  std::uint64_t size() const { return entries_; }
  Entry Stat(std::uint64_t index) const;
  // Hands entry `index`'s bytes to `write` in pieces. Throws ZipError naming the archive and the
  // entry when it is corrupt, or when it holds more than `max_bytes` (counted as it inflates,
  // whatever its header declares): nothing past max_bytes is ever inflated.
  void Read(std::uint64_t index, std::uint64_t max_bytes,
            const std::function<void(std::string_view)>& write) const;

 private:
  std::filesystem::path path_;
  struct Archive;
  std::unique_ptr<Archive> archive_;
  std::uint64_t entries_ = 0;
};

// Every file entry of the archive at `path`, in archive order (directory entries are skipped),
// read into memory whole: for archives the caller made (tests), not for untrusted ones.
std::vector<ZipEntry> ReadZip(const std::filesystem::path& path);

}  // namespace sparse::storm
