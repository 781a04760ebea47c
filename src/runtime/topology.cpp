#include "runtime/topology.hpp"

#include <algorithm>
#include <cctype>

namespace sparse::runtime {

std::string_view GroupingName(GroupingType t) {
  switch (t) {
    case GroupingType::kShuffle:
      return "shuffle";
    case GroupingType::kFields:
      return "fields";
    case GroupingType::kAll:
      return "all";
    case GroupingType::kGlobal:
      return "global";
    case GroupingType::kNone:
      return "none";
    case GroupingType::kDirect:
      return "direct";
    case GroupingType::kLocalOrShuffle:
      return "local_or_shuffle";
    case GroupingType::kPartialKey:
      return "partial_key";
  }
  return "?";
}

std::optional<GroupingType> ParseGroupingName(std::string_view name) {
  std::string n;
  for (char c : name) n.push_back(c == '-' ? '_' : static_cast<char>(std::tolower(c)));
  if (n == "shuffle") return GroupingType::kShuffle;
  if (n == "fields") return GroupingType::kFields;
  if (n == "all") return GroupingType::kAll;
  if (n == "global") return GroupingType::kGlobal;
  if (n == "none") return GroupingType::kNone;
  if (n == "direct") return GroupingType::kDirect;
  if (n == "local_or_shuffle" || n == "localorshuffle") return GroupingType::kLocalOrShuffle;
  if (n == "partial_key" || n == "partialkey") return GroupingType::kPartialKey;
  return std::nullopt;
}

const StreamDef* ComponentDef::FindStream(std::string_view stream) const {
  for (const auto& s : streams) {
    if (s.id == stream) return &s;
  }
  return nullptr;
}

const ComponentDef* Topology::Find(std::string_view id) const {
  for (const auto& c : components) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

}  // namespace sparse::runtime
