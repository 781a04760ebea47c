// Splits what a child writes on stdout into messages, whichever serializer it speaks, and hands
// each out as JSON text (the runtime's one internal form; see msgpack_codec.hpp).
//
// The first byte the child writes tells which encoding it really speaks (a JSON object starts
// with '{', a MessagePack map with a map header); when that is not the one the topology gave the
// component, the reader stops with an error that says so and names the setting to change,
// instead of reporting the other encoding's bytes as garbage.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "multilang/framing.hpp"
#include "multilang/msgpack_codec.hpp"
#include "multilang/serializer.hpp"

namespace sparse::multilang {

class InboundReader {
 public:
  InboundReader(Serializer serializer, std::size_t max_message_bytes);

  void Append(std::string_view bytes);
  // The next complete message as JSON text into `out` (replacing it); false when none is
  // complete yet, or after an error.
  bool NextInto(std::string& out);
  // Why no more messages come (an oversized message, bad MessagePack, the wrong encoding).
  const std::optional<std::string>& error() const { return error_; }

 private:
  // Looks for the first byte that is not a blank; returns its index (bytes.size() if none).
  std::size_t Sniff(std::string_view bytes);
  void Feed(std::string_view bytes);

  Serializer serializer_;
  std::size_t max_message_bytes_;
  MessageReader json_;
  std::optional<MsgpackReader> msgpack_;
  bool sniffed_ = false;
  std::string blanks_;  // what came before the first byte that tells the encoding
  std::optional<std::string> error_;
};

}  // namespace sparse::multilang
