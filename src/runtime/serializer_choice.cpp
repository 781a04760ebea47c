#include "runtime/serializer_choice.hpp"

#include "runtime/config.hpp"

namespace sparse::runtime {

namespace {

SerializerChoice FromName(const std::string& name, const std::string& where) {
  SerializerChoice c;
  if (auto s = multilang::ParseSerializerName(name)) {
    c.serializer = *s;
  } else {
    c.error = where + ": unknown serializer `" + name +
              "` (sparse speaks `json` and `msgpack`; Storm class names naming either are "
              "accepted)";
  }
  return c;
}

// streamparse's runner takes -s/--serializer; a value after the flag names the serializer.
std::optional<std::string> SerializerFlag(const std::vector<std::string>& argv) {
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if ((a == "-s" || a == "--serializer") && i + 1 < argv.size()) return argv[i + 1];
    if (a.rfind("--serializer=", 0) == 0) return a.substr(13);
  }
  return std::nullopt;
}

}  // namespace

SerializerChoice ChooseSerializer(const ComponentDef& def, const nlohmann::json& config) {
  if (!def.serializer.empty()) return FromName(def.serializer, "`serializer`");
  if (!def.builtin.empty()) return {};
  if (auto flag = SerializerFlag(def.command)) return FromName(*flag, "the command's -s option");
  // A value that is not a string is CheckConfig's error to report; it reads as the default.
  if (auto name = ConfigView(&config).String(keys::kSerializer)) {
    return FromName(*name, keys::kSerializer);
  }
  return {};
}

}  // namespace sparse::runtime
