#include "storm/zip.hpp"

#include <zip.h>

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

std::vector<ZipEntry> ReadZip(const std::filesystem::path& path) {
  int code = 0;
  Archive archive(zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code));
  if (!archive) throw ZipError(path.string() + ": cannot open as a jar: " + OpenErrorText(code));
  zip_t* z = archive.get();
  std::vector<ZipEntry> out;
  const zip_int64_t n = zip_get_num_entries(z, 0);
  for (zip_int64_t i = 0; i < n; ++i) {
    const auto index = static_cast<zip_uint64_t>(i);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(z, index, 0, &st) < 0) Fail(path, "cannot read entry", z);
    std::string name = st.name ? st.name : "";
    if (name.empty() || name.back() == '/') continue;
    ZipEntry e;
    e.name = std::move(name);
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(z, index, 0, &opsys, &attributes) == 0 &&
        opsys == ZIP_OPSYS_UNIX) {
      e.executable = ((attributes >> 16) & 0111) != 0;
    }
    File file(zip_fopen_index(z, index, 0));
    if (!file) Fail(path, "cannot read " + e.name, z);
    e.data.resize(static_cast<std::size_t>(st.size));
    std::size_t done = 0;
    while (done < e.data.size()) {
      const zip_int64_t got = zip_fread(file.get(), e.data.data() + done, e.data.size() - done);
      if (got <= 0) throw ZipError(path.string() + ": " + e.name + " is truncated or corrupt");
      done += static_cast<std::size_t>(got);
    }
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace sparse::storm
