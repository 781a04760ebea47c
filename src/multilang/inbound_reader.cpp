#include "multilang/inbound_reader.hpp"

namespace sparse::multilang {

InboundReader::InboundReader(Serializer serializer, std::size_t max_message_bytes)
    : serializer_(serializer),
      max_message_bytes_(max_message_bytes),
      json_(serializer == Serializer::kJson ? max_message_bytes : 0) {
  if (serializer_ == Serializer::kMsgpack) msgpack_.emplace(max_message_bytes);
}

std::size_t InboundReader::Sniff(std::string_view bytes) {
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    sniffed_ = true;
    const auto spoken = SniffSerializer(c);
    if (!spoken || *spoken == serializer_) return i;
    if (*spoken == Serializer::kMsgpack) {
      error_ =
          "the component writes MessagePack, but the topology says it speaks JSON: set "
          "`serializer: msgpack` on the component (or topology.multilang.serializer, or run it "
          "with -s msgpack)";
    } else {
      error_ =
          "the component writes JSON, but the topology says it speaks MessagePack (serializer: "
          "msgpack): remove that setting, or make the component use MessagePack";
    }
    return i;
  }
  return bytes.size();
}

void InboundReader::Append(std::string_view bytes) {
  if (error_) return;
  if (!sniffed_) {
    // Blanks before the first byte that tells the encoding are held until it comes, so what is
    // read does not depend on how the pipe splits them off: JSON takes them as blank lines
    // (harmless), while to MessagePack they are noise that would decode as small integers.
    const std::size_t first = Sniff(bytes);
    if (error_) return;
    if (!sniffed_) {
      blanks_.append(bytes);
      if (blanks_.size() > max_message_bytes_) {
        error_ = "message larger than " + std::to_string(max_message_bytes_) + " bytes";
      }
      return;
    }
    if (msgpack_) {
      bytes.remove_prefix(first);
    } else if (!blanks_.empty()) {
      Feed(blanks_);
    }
    blanks_ = std::string();
  }
  Feed(bytes);
}

void InboundReader::Feed(std::string_view bytes) {
  if (msgpack_) {
    msgpack_->Append(bytes);
  } else {
    json_.Append(bytes);
  }
}

bool InboundReader::NextInto(std::string& out) {
  if (error_) return false;
  if (msgpack_) {
    if (msgpack_->NextInto(out)) return true;
    if (msgpack_->error()) error_ = msgpack_->error();
    return false;
  }
  if (json_.NextInto(out)) return true;
  if (json_.error() == FrameError::kTooLarge) {
    error_ = "message larger than " + std::to_string(max_message_bytes_) + " bytes";
  }
  return false;
}

}  // namespace sparse::multilang
