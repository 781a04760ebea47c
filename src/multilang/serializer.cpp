#include "multilang/serializer.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace sparse::multilang {

std::string_view SerializerName(Serializer s) {
  switch (s) {
    case Serializer::kJson:
      return "json";
    case Serializer::kMsgpack:
      return "msgpack";
  }
  return "?";
}

std::optional<Serializer> ParseSerializerName(std::string_view name) {
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (lower.find("msgpack") != std::string::npos ||
      lower.find("messagepack") != std::string::npos) {
    return Serializer::kMsgpack;
  }
  if (lower.find("json") != std::string::npos) return Serializer::kJson;
  return std::nullopt;
}

std::optional<Serializer> SniffSerializer(unsigned char b) {
  if (b == '{') return Serializer::kJson;
  if ((b >= 0x80 && b <= 0x8f) || b == 0xde || b == 0xdf) return Serializer::kMsgpack;
  return std::nullopt;
}

}  // namespace sparse::multilang
