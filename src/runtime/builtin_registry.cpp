#include "runtime/builtin_registry.hpp"

#include <algorithm>

#include "base/invariant.hpp"

namespace sparse::runtime {

void BuiltinRegistry::Add(BuiltinInfo info) {
  SPARSE_INVARIANT(!by_name_.contains(info.name), "built-in `" + info.name + "` registered twice");
  for (const auto& java_class : info.flux_classes) {
    const BuiltinInfo* other = FindByClass(java_class);
    SPARSE_INVARIANT(other == nullptr, "Flux class `" + java_class + "` claimed by built-ins `" +
                                           (other ? other->name : "") + "` and `" + info.name +
                                           "`");
  }
  auto name = info.name;
  by_name_.emplace(std::move(name), std::move(info));
}

const BuiltinInfo* BuiltinRegistry::Find(std::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &it->second;
}

const BuiltinInfo* BuiltinRegistry::FindByClass(std::string_view java_class) const {
  for (const auto& [_, info] : by_name_) {
    if (std::find(info.flux_classes.begin(), info.flux_classes.end(), java_class) !=
        info.flux_classes.end()) {
      return &info;
    }
  }
  return nullptr;
}

std::vector<std::string> BuiltinRegistry::Names() const {
  std::vector<std::string> names;
  names.reserve(by_name_.size());
  for (const auto& [name, _] : by_name_) names.push_back(name);
  return names;
}

}  // namespace sparse::runtime
