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

namespace {
bool ContainsNoCase(std::string_view text, std::string_view word) {
  return std::search(text.begin(), text.end(), word.begin(), word.end(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) == b;
         }) != text.end();
}
}  // namespace

std::optional<std::string> MismatchHint(Serializer configured, std::string_view child_stderr) {
  switch (configured) {
    case Serializer::kJson:
      // A JSON handshake read as MessagePack decodes to an integer first ('{' is fixint 123),
      // which pystorm then indexes.
      if (!ContainsNoCase(child_stderr, "msgpack") &&
          !ContainsNoCase(child_stderr, "'int' object is not subscriptable")) {
        return std::nullopt;
      }
      return std::string(
          "the topology says it speaks JSON, and its error output suggests it read the "
          "handshake as MessagePack: if the "
          "component speaks MessagePack (pystorm's serializer=\"msgpack\", streamparse's -s "
          "msgpack), set `serializer: msgpack` on it");
    case Serializer::kMsgpack:
      if (!ContainsNoCase(child_stderr, "json") &&
          !ContainsNoCase(child_stderr, "unicodedecodeerror")) {
        return std::nullopt;
      }
      return std::string(
          "the topology says it speaks MessagePack (serializer: msgpack), and its error output "
          "suggests it read the handshake as JSON: if the component speaks JSON, remove that "
          "setting");
  }
  return std::nullopt;
}

std::optional<Serializer> SniffSerializer(unsigned char b) {
  if (b == '{') return Serializer::kJson;
  if ((b >= 0x80 && b <= 0x8f) || b == 0xde || b == 0xdf) return Serializer::kMsgpack;
  return std::nullopt;
}

}  // namespace sparse::multilang
