#include "multilang/inbound_reader.hpp"

namespace sparse::multilang {

InboundReader::InboundReader(Serializer serializer, std::size_t max_message_bytes)
    : serializer_(serializer),
      max_message_bytes_(max_message_bytes),
      json_(serializer == Serializer::kJson ? max_message_bytes : 0) {
  if (serializer_ == Serializer::kMsgpack) msgpack_.emplace(max_message_bytes);
}

void InboundReader::Sniff(std::string_view bytes) {
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    sniffed_ = true;
    const auto spoken = SniffSerializer(c);
    if (!spoken || *spoken == serializer_) return;
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
    return;
  }
}

void InboundReader::Append(std::string_view bytes) {
  if (error_) return;
  if (!sniffed_) {
    Sniff(bytes);
    if (error_) return;
  }
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
