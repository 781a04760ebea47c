// YAML -> JSON conversion with YAML's scalar typing (plain scalars become numbers, booleans or
// null where they look like one; quoted scalars stay strings), as Storm's config readers do.
#pragma once

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>

namespace sparse::runtime {

nlohmann::json YamlToJson(const YAML::Node& node);

// Parses a command-line value ("30", "true", "[a, b]", "text") as YAML.
nlohmann::json ParseYamlValue(const std::string& text);

}  // namespace sparse::runtime
