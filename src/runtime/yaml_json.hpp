// YAML -> JSON conversion with YAML's scalar typing (plain scalars become numbers, booleans or
// null where they look like one; quoted scalars stay strings), as Storm's config readers do.
//
// YAML aliases let a few lines stand for an exponential number of values ("billion laughs": nine
// anchors, each a list of nine aliases of the previous one, are 10^9 values). The conversion
// expands aliases, so it is bounded: at most kMaxYamlJsonValues values and kMaxYamlJsonDepth
// levels of nesting per call (an alias of an enclosing anchor would otherwise nest forever);
// past either it throws YamlTooLarge instead of exhausting memory or stack.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "base/error.hpp"

namespace sparse::runtime {

// Far beyond any real config (a topology's is a few hundred values), far below what exhausts
// memory (a value costs some tens of bytes as JSON).
inline constexpr std::size_t kMaxYamlJsonValues = 1'000'000;
inline constexpr std::size_t kMaxYamlJsonDepth = 256;

class YamlTooLarge : public base::Error {
 public:
  explicit YamlTooLarge(const std::string& message)
      : base::Error(base::Errc::kInvalidTopology, message) {}
};

nlohmann::json YamlToJson(const YAML::Node& node);

// Parses a command-line value ("30", "true", "[a, b]", "text") as YAML.
nlohmann::json ParseYamlValue(const std::string& text);

}  // namespace sparse::runtime
