#include "support/temp_dir.hpp"

#include <stdlib.h>

#include <stdexcept>

#include "support/files.hpp"

namespace sparse::test {

TempDir::TempDir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + tmpl);
  path_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;  // a destructor must not throw; a leftover folder is harmless
  std::filesystem::remove_all(path_, ec);
}

void TempDir::Write(const std::string& name, const std::string& text) const {
  WriteFile(path_ / name, text);
}

}  // namespace sparse::test
