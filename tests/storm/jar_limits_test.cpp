// Hostile jars for `sparse run --jar`: entries that inflate far past the jar's size, entries
// outside resources/, entries that collide. Each jar is built here with libzip, its big entries
// streamed from a source of zeros, so the tests themselves stay small in memory.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <zip.h>

#include <algorithm>
#include <cstring>

#include "process.hpp"
#include "storm/jar.hpp"

namespace sparse::storm {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

constexpr const char* kTopology = "name: x\nspouts: []\n";

// A libzip source of `size` zero bytes, produced as libzip reads them.
struct Zeros {
  zip_uint64_t size = 0;
  zip_uint64_t done = 0;
  zip_error_t error{};
};

zip_int64_t ZerosCallback(void* user, void* data, zip_uint64_t len, zip_source_cmd_t cmd) {
  auto* zeros = static_cast<Zeros*>(user);
  switch (cmd) {
    case ZIP_SOURCE_OPEN:
      zeros->done = 0;
      return 0;
    case ZIP_SOURCE_READ: {
      const zip_uint64_t n = std::min(len, zeros->size - zeros->done);
      std::memset(data, 0, n);
      zeros->done += n;
      return static_cast<zip_int64_t>(n);
    }
    case ZIP_SOURCE_CLOSE:
      return 0;
    case ZIP_SOURCE_STAT: {
      auto* st = static_cast<zip_stat_t*>(data);
      zip_stat_init(st);
      st->size = zeros->size;
      st->mtime = 0;
      st->valid |= ZIP_STAT_SIZE | ZIP_STAT_MTIME;
      return sizeof(*st);
    }
    case ZIP_SOURCE_ERROR:
      return zip_error_to_data(&zeros->error, data, len);
    case ZIP_SOURCE_FREE:
      delete zeros;
      return 0;
    case ZIP_SOURCE_SUPPORTS:
      return zip_source_make_command_bitmap(ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE,
                                            ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR, ZIP_SOURCE_FREE, -1);
    default:
      return -1;
  }
}

struct Entry {
  std::string name;
  std::string data;             // or:
  zip_uint64_t zero_bytes = 0;  // that many zeros
};

// Writes a jar of `entries`, deflated (fast level: the zeros compress a thousandfold anyway).
void WriteJar(const fs::path& path, const std::vector<Entry>& entries) {
  int code = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  ASSERT_TRUE(z);
  for (const auto& e : entries) {
    zip_source_t* source = nullptr;
    if (e.zero_bytes > 0) {
      auto* zeros = new Zeros{e.zero_bytes};
      source = zip_source_function(z, ZerosCallback, zeros);
    } else {
      source = zip_source_buffer(z, e.data.data(), e.data.size(), 0);
    }
    ASSERT_TRUE(source);
    const zip_int64_t index = zip_file_add(z, e.name.c_str(), source, ZIP_FL_ENC_UTF_8);
    ASSERT_GE(index, 0) << zip_strerror(z);
    ASSERT_EQ(zip_set_file_compression(z, static_cast<zip_uint64_t>(index), ZIP_CM_DEFLATE, 1), 0);
  }
  ASSERT_EQ(zip_close(z), 0) << zip_strerror(z);
}

std::string ErrorOf(const fs::path& jar, const JarLimits& limits = {}) {
  try {
    ExtractedJar extracted(jar, limits);
  } catch (const JarError& e) {
    return e.what();
  }
  return "";
}

long PeakRssKb() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// Issue 18: a 1 MB jar with a 1 GiB entry took 1 GB of memory (every entry was read whole).
TEST(JarLimits, AnEntryPastTheLimitIsRefusedNamingJarAndEntry) {
  TempDir dir;
  const fs::path jar = dir.path() / "bomb.jar";
  WriteJar(jar, {{"resources/_sparse/topology.yaml", kTopology},
                 {"resources/big.bin", "", zip_uint64_t{1} << 30}});
  EXPECT_LT(fs::file_size(jar), 8u << 20);  // a few MB of jar
  const long before = PeakRssKb();
  const std::string error = ErrorOf(jar);
  EXPECT_NE(error.find(jar.string()), std::string::npos) << error;
  EXPECT_NE(error.find("`resources/big.bin`"), std::string::npos) << error;
  EXPECT_NE(error.find("an entry may hold"), std::string::npos) << error;
  EXPECT_LT(PeakRssKb() - before, 64 * 1024);
}

// Extraction streams: a big entry within the limits costs a small buffer, not its size.
TEST(JarLimits, EntriesStreamToDiskInSmallMemory) {
  TempDir dir;
  const fs::path jar = dir.path() / "big.jar";
  const zip_uint64_t size = zip_uint64_t{192} << 20;
  WriteJar(jar,
           {{"resources/_sparse/topology.yaml", kTopology}, {"resources/model.bin", "", size}});
  const long before = PeakRssKb();
  {
    ExtractedJar extracted(jar);
    EXPECT_EQ(fs::file_size(extracted.resources_dir() / "model.bin"), size);
  }
  EXPECT_LT(PeakRssKb() - before, 64 * 1024) << "KiB of peak memory grew while extracting";
}

TEST(JarLimits, TheTotalOfResourcesIsCapped) {
  TempDir dir;
  const fs::path jar = dir.path() / "many.jar";
  WriteJar(jar, {{"resources/_sparse/topology.yaml", kTopology},
                 {"resources/a.bin", "", 600 << 10},
                 {"resources/b.bin", "", 600 << 10}});
  const std::string error = ErrorOf(jar, {1 << 20, 1 << 20});
  EXPECT_NE(error.find("`resources/b.bin`"), std::string::npos) << error;
  EXPECT_NE(error.find("all of resources/ may hold"), std::string::npos) << error;
  EXPECT_EQ(ErrorOf(jar, {1 << 20, 2 << 20}), "");
}

// Only resources/ is extracted: what lies elsewhere is neither inflated nor held to the limits.
TEST(JarLimits, EntriesOutsideResourcesAreNotRead) {
  TempDir dir;
  const fs::path jar = dir.path() / "lib.jar";
  WriteJar(jar, {{"META-INF/MANIFEST.MF", "Manifest-Version: 1.0\r\n"},
                 {"lib/huge.bin", "", 8 << 20},
                 {"resources/_sparse/topology.yaml", kTopology}});
  EXPECT_EQ(ErrorOf(jar, {1 << 20, 1 << 20}), "");
}

// Found with fuzz/jar_fuzz.cpp's property (only JarError leaves ExtractedJar): an entry below
// another entry's file escaped as std::filesystem::filesystem_error, naming neither.
TEST(JarLimits, AnEntryInsideAnotherEntrysFileIsAJarError) {
  TempDir dir;
  const fs::path jar = dir.path() / "clash.jar";
  WriteJar(jar, {{"resources/a", "x"},
                 {"resources/a/b", "y"},
                 {"resources/_sparse/topology.yaml", kTopology}});
  const std::string error = ErrorOf(jar);
  EXPECT_NE(error.find(jar.string()), std::string::npos) << error;
  EXPECT_NE(error.find("`resources/a/b`"), std::string::npos) << error;
}

}  // namespace
}  // namespace sparse::storm
