// Fuzz target: what the runtime reads from a child's stdout (multilang/inbound_reader.hpp) in
// either encoding, with the MessagePack decoder (multilang/msgpack_codec.hpp) behind it. The
// first input byte picks the component's configured serializer; the rest is its output.
//
// Properties: the messages and the error do not depend on how the pipe chunks the bytes; every
// message decoded from MessagePack is JSON text nested at most kMaxNestingDepth levels (valid,
// but for string bytes that are not UTF-8, which the message parser refuses later); and it
// round-trips: encoded back to MessagePack and decoded again it is the same text.
#include <string>
#include <string_view>
#include <vector>

#include "check.hpp"
#include "multilang/inbound_reader.hpp"
#include "multilang/msgpack_codec.hpp"
#include "runtime/json_text.hpp"

namespace {

using sparse::multilang::InboundReader;
using sparse::multilang::kMaxNestingDepth;
using sparse::multilang::Serializer;

constexpr std::size_t kLimit = 4096;

struct Result {
  std::vector<std::string> messages;
  std::optional<std::string> error;
  bool operator==(const Result&) const = default;
};

Result Read(Serializer serializer, std::string_view bytes, bool chunked) {
  InboundReader reader(serializer, kLimit);
  Result r;
  sparse::fuzz::Chunker chunker(bytes);
  std::string message;
  for (std::size_t at = 0; at < bytes.size();) {
    const std::size_t n = chunked ? chunker.Next(bytes.size() - at) : bytes.size() - at;
    reader.Append(bytes.substr(at, n));
    at += n;
    while (reader.NextInto(message)) r.messages.push_back(message);
  }
  r.error = reader.error();
  return r;
}

void CheckDecoded(const std::string& json) {
  const auto invalid = sparse::runtime::json::Validate(json, kMaxNestingDepth);
  if (invalid) {
    FUZZ_CHECK(!invalid->too_deep, "a decoded message nests deeper than the limit");
    FUZZ_CHECK(invalid->what == "invalid UTF-8", "a decoded message is not JSON");
    return;
  }
  std::string packed;
  FUZZ_CHECK(!sparse::multilang::AppendJsonAsMsgpack(packed, json),
             "a decoded message cannot be encoded again");
  sparse::multilang::MsgpackReader again(packed.size() + 1);
  again.Append(packed);
  std::string decoded;
  FUZZ_CHECK(again.NextInto(decoded), "an encoded message does not decode");
  FUZZ_CHECK(decoded == json, "a message changed in a MessagePack round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  if (size == 0) return 0;
  const Serializer serializer = data[0] & 1 ? Serializer::kMsgpack : Serializer::kJson;
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Result whole = Read(serializer, bytes, false);
  const Result pieces = Read(serializer, bytes, true);
  FUZZ_CHECK(whole == pieces, "the result depends on how the input is chunked");
  if (whole.error) FUZZ_CHECK(!whole.error->empty(), "an error without a reason");
  if (serializer == Serializer::kMsgpack) {
    for (const auto& m : whole.messages) CheckDecoded(m);
  }
  return 0;
}
