#include "storm/zip.hpp"

#include <zip.h>

#include <algorithm>
#include <limits>
#include <memory>

namespace sparse::storm {

namespace {

struct ArchiveCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using Archive = std::unique_ptr<zip_t, ArchiveCloser>;

struct FileCloser {
  void operator()(zip_file_t* f) const { zip_fclose(f); }
};
using File = std::unique_ptr<zip_file_t, FileCloser>;

struct SourceFree {
  void operator()(zip_source_t* s) const { zip_source_free(s); }
};

constexpr zip_uint16_t kDosDate1980 = (0 << 9) | (1 << 5) | 1;  // 1980-01-01
constexpr zip_uint16_t kDosMidnight = 0;

std::string OpenErrorText(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string text = zip_error_strerror(&error);
  zip_error_fini(&error);
  return text;
}

[[noreturn]] void Fail(const std::filesystem::path& path, const std::string& what, zip_t* z) {
  throw ZipError(path.string() + ": " + what + ": " + zip_strerror(z));
}

}  // namespace

void WriteZip(const std::filesystem::path& path, const std::vector<ZipEntry>& entries) {
  int code = 0;
  Archive archive(zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code));
  if (!archive) throw ZipError(path.string() + ": cannot create: " + OpenErrorText(code));
  zip_t* z = archive.get();
  for (const auto& e : entries) {
    std::unique_ptr<zip_source_t, SourceFree> source(
        zip_source_buffer(z, e.data.data(), e.data.size(), 0));
    if (!source) Fail(path, "cannot add " + e.name, z);
    const zip_int64_t index = zip_file_add(z, e.name.c_str(), source.get(), ZIP_FL_ENC_UTF_8);
    if (index < 0) Fail(path, "cannot add " + e.name, z);
    source.release();  // owned by the archive now
    const auto i = static_cast<zip_uint64_t>(index);
    const zip_uint32_t mode = e.executable ? 0100755 : 0100644;
    if (zip_set_file_compression(z, i, ZIP_CM_DEFLATE, 9) < 0 ||
        zip_file_set_dostime(z, i, kDosMidnight, kDosDate1980, 0) < 0 ||
        zip_file_set_external_attributes(z, i, 0, ZIP_OPSYS_UNIX, mode << 16) < 0) {
      Fail(path, "cannot set the attributes of " + e.name, z);
    }
  }
  if (zip_close(z) < 0) Fail(path, "cannot write", z);
  archive.release();  // zip_close freed it
}

struct ZipReader::Archive {
  Archive(zip_t* z) : zip(z) {}
  ~Archive() { zip_discard(zip); }
  zip_t* zip;
};

ZipReader::ZipReader(const std::filesystem::path& path) : path_(path) {
  int code = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
  if (!z) throw ZipError(path.string() + ": cannot open as a jar: " + OpenErrorText(code));
  archive_ = std::make_unique<Archive>(z);
  const zip_int64_t n = zip_get_num_entries(z, 0);
  entries_ = n > 0 ? static_cast<std::uint64_t>(n) : 0;
}

ZipReader::~ZipReader() = default;

ZipReader::Entry ZipReader::Stat(std::uint64_t index) const {
  zip_t* z = archive_->zip;
  zip_stat_t st;
  zip_stat_init(&st);
  if (zip_stat_index(z, index, 0, &st) < 0) Fail(path_, "cannot read entry", z);
  Entry e;
  e.name = st.name ? st.name : "";
  e.size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
  zip_uint8_t opsys = 0;
  zip_uint32_t attributes = 0;
  if (zip_file_get_external_attributes(z, index, 0, &opsys, &attributes) == 0 &&
      opsys == ZIP_OPSYS_UNIX) {
    e.executable = ((attributes >> 16) & 0111) != 0;
  }
  return e;
}

void ZipReader::Read(std::uint64_t index, std::uint64_t max_bytes,
                     const std::function<void(std::string_view)>& write) const {
  zip_t* z = archive_->zip;
  const std::string name = Stat(index).name;
  File file(zip_fopen_index(z, index, 0));
  if (!file) Fail(path_, "cannot read " + name, z);
  char buffer[64 * 1024];
  std::uint64_t total = 0;
  for (;;) {
    // One byte more than the limit allows, to tell "exactly max_bytes" from "more".
    const std::uint64_t room = max_bytes - total + 1;
    const zip_int64_t got =
        zip_fread(file.get(), buffer,
                  static_cast<zip_uint64_t>(std::min<std::uint64_t>(room, sizeof buffer)));
    if (got < 0) throw ZipError(path_.string() + ": " + name + " is truncated or corrupt");
    if (got == 0) return;
    total += static_cast<std::uint64_t>(got);
    if (total > max_bytes) {
      throw ZipError(path_.string() + ": entry `" + name + "` holds more than " +
                     std::to_string(max_bytes) + " bytes");
    }
    write(std::string_view(buffer, static_cast<std::size_t>(got)));
  }
}

std::vector<ZipEntry> ReadZip(const std::filesystem::path& path) {
  const ZipReader reader(path);
  std::vector<ZipEntry> out;
  for (std::uint64_t i = 0; i < reader.size(); ++i) {
    ZipReader::Entry info = reader.Stat(i);
    if (info.name.empty() || info.name.back() == '/') continue;
    ZipEntry e;
    e.name = std::move(info.name);
    e.executable = info.executable;
    reader.Read(i, std::numeric_limits<std::uint64_t>::max() - 1,
                [&](std::string_view bytes) { e.data.append(bytes); });
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace sparse::storm
