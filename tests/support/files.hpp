// Whole-file reads and writes for tests.
#pragma once

#include <filesystem>
#include <string>

namespace sparse::test {

// The whole file, byte for byte ("" when it cannot be read).
std::string ReadFile(const std::filesystem::path& path);

// Replaces the file with `text`, making its folder first.
void WriteFile(const std::filesystem::path& path, const std::string& text);

}  // namespace sparse::test
