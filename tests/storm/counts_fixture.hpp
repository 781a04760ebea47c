// What the `counts` fixture (fixtures/counts, and its Flux form fixtures/flux/counts_flux.yaml)
// must produce, and how to read what it did produce.
#pragma once

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "process.hpp"

namespace sparse::storm::testing {

// The words the spout (src/spouts/numbers.py) emits once, counted.
inline std::map<std::string, int> ExpectedCounts() {
  const char* words[] = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"};
  std::map<std::string, int> out;
  for (int i = 0; i < 500; ++i) ++out[words[(i * i + 3 * i) % 7]];
  return out;
}

// Sums the count-<task>.json files the count bolt tasks keep in `dir` (each replaced
// atomically); `files` is set to how many there were.
inline std::map<std::string, int> SumCounts(const std::filesystem::path& dir, int& files) {
  std::map<std::string, int> out;
  files = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("count-", 0) != 0 || e.path().extension() != ".json") continue;
    ++files;
    const auto counts = nlohmann::json::parse(ReadFile(e.path()), nullptr, false);
    if (!counts.is_object()) continue;
    for (const auto& [word, n] : counts.items()) {
      if (n.is_number_integer()) out[word] += n.get<int>();
    }
  }
  return out;
}

}  // namespace sparse::storm::testing
