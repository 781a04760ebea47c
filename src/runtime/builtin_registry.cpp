#include <algorithm>
#include <map>

#include "runtime/builtin.hpp"

namespace sparse::runtime {

namespace {
std::map<std::string, BuiltinInfo, std::less<>>& Registry() {
  static std::map<std::string, BuiltinInfo, std::less<>> registry;
  return registry;
}
}  // namespace

void RegisterBuiltin(BuiltinInfo info) {
  auto name = info.name;
  Registry()[name] = std::move(info);
}

const BuiltinInfo* FindBuiltin(std::string_view name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : &it->second;
}

const BuiltinInfo* FindBuiltinByClass(std::string_view java_class) {
  for (const auto& [_, info] : Registry()) {
    if (std::find(info.flux_classes.begin(), info.flux_classes.end(), java_class) !=
        info.flux_classes.end()) {
      return &info;
    }
  }
  return nullptr;
}

std::vector<std::string> BuiltinNames() {
  std::vector<std::string> names;
  for (const auto& [name, _] : Registry()) names.push_back(name);
  return names;
}

}  // namespace sparse::runtime
