// The two encodings a component may speak on stdin/stdout.
//
// kJson is Storm's own: one JSON document per message, each followed by a line `end`.
// kMsgpack is pystorm's and streamparse's: one MessagePack map per message (a bare array for
// task-id replies), back to back, self-delimiting, no `end` lines. The message shapes are the
// same in both; the runtime's internal form of every message and tuple is JSON text.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sparse::multilang {

enum class Serializer { kJson, kMsgpack };

std::string_view SerializerName(Serializer s);

// Reads a serializer as a user names it: "json" / "msgpack" (also "messagepack"), or a Storm
// `topology.multilang.serializer` class name: one naming JSON (Storm's
// org.apache.storm.multilang.JsonSerializer) or MessagePack (any class whose name says msgpack
// or messagepack, as streamparse's and pyleus's did). Case-insensitive. nullopt: neither.
std::optional<Serializer> ParseSerializerName(std::string_view name);

// Which encoding a child's first output byte belongs to, to tell a user whose component speaks
// the other one: '{' (after whitespace) is JSON, a MessagePack map header is MessagePack.
std::optional<Serializer> SniffSerializer(unsigned char first_byte);

// A child that dies in the handshake without writing a byte (pystorm with msgpack reading a JSON
// handshake, or with JSON reading a MessagePack one) only tells in its stderr. When that names the
// other encoding, a hint for the failure report saying which setting to change; else nullopt.
std::optional<std::string> MismatchHint(Serializer configured, std::string_view child_stderr);

}  // namespace sparse::multilang
