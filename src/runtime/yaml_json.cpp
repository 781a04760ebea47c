#include "runtime/yaml_json.hpp"

#include <charconv>
#include <cstdlib>

namespace sparse::runtime {

namespace {

nlohmann::json ScalarToJson(const YAML::Node& node) {
  const std::string& s = node.Scalar();
  if (node.Tag() == "!") return s;  // quoted: always a string
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  {
    long long v = 0;
    const char* b = s.data();
    const char* e = b + s.size();
    if (*b == '+') ++b;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec == std::errc() && p == e) return v;
  }
  {
    char* end = nullptr;
    double d = std::strtod(s.c_str(), &end);
    bool looks_numeric = s.find_first_not_of("0123456789+-.eE") == std::string::npos;
    if (looks_numeric && end && *end == '\0' && end != s.c_str()) return d;
  }
  return s;
}

// The recursive conversion, counting what it makes against the limits.
class Converter {
 public:
  nlohmann::json Convert(const YAML::Node& node, std::size_t depth) {
    if (++values_ > kMaxYamlJsonValues) {
      throw YamlTooLarge("expands to more than " + std::to_string(kMaxYamlJsonValues) +
                         " values (through YAML aliases?)");
    }
    if (depth > kMaxYamlJsonDepth) {
      throw YamlTooLarge("nests deeper than " + std::to_string(kMaxYamlJsonDepth) +
                         " levels (an alias inside its own anchor?)");
    }
    switch (node.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        return nullptr;
      case YAML::NodeType::Scalar:
        return ScalarToJson(node);
      case YAML::NodeType::Sequence: {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& el : node) arr.push_back(Convert(el, depth + 1));
        return arr;
      }
      case YAML::NodeType::Map: {
        nlohmann::json obj = nlohmann::json::object();
        for (const auto& kv : node) obj[kv.first.as<std::string>()] = Convert(kv.second, depth + 1);
        return obj;
      }
    }
    return nullptr;
  }

 private:
  std::size_t values_ = 0;
};

}  // namespace

nlohmann::json YamlToJson(const YAML::Node& node) {
  return Converter().Convert(node, 0);
}

nlohmann::json ParseYamlValue(const std::string& text) {
  try {
    return YamlToJson(YAML::Load(text));
  } catch (const YAML::Exception&) {
    return text;
  }
}

}  // namespace sparse::runtime
