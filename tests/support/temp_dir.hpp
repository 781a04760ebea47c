// A scratch folder for a test: made fresh under the system's temporary folder, removed with
// everything in it when the object goes away. The one temp-folder helper of the tests.
#pragma once

#include <filesystem>
#include <string>

namespace sparse::test {

class TempDir {
 public:
  // `prefix` starts the folder's name, so a leftover says which test made it.
  explicit TempDir(const std::string& prefix = "sparse-test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // Writes `text` to path()/name, making the folders on the way.
  void Write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

}  // namespace sparse::test
