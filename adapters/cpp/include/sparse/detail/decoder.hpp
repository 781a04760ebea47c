// sparse C++ component adapter — parsing host messages, the decoding half of the wire seam
// (detail/wire.hpp): one parser per format behind parse_message and parse_bolt_message.
#pragma once

#include <sparse/detail/json_reader.hpp>
#include <sparse/detail/msgpack.hpp>
#include <sparse/detail/wire.hpp>
#include <sparse/errors.hpp>
#include <sparse/json.hpp>
#include <sparse/tuple.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace sparse {
namespace detail {

/// Parses one whole host message in `wire` (JSON unless MessagePack). Throws ProtocolError, with
/// the position and an excerpt, if it is not a valid message of that format.
inline json parse_message(Wire wire, std::string_view bytes) {
  if (wire == Wire::msgpack) return msgpack::Reader(bytes).parse_document();
  return parse_message(bytes);
}

/// Parses a JSON message to a bolt in one pass: a tuple object (ticks and heartbeats included)
/// goes into `tuple` (returns true), a task-id reply array into `reply` (returns false). Anything
/// else throws ProtocolError.
inline bool parse_bolt_message(std::string_view text, Tuple& tuple, json& reply) {
  JsonReader reader(text);
  const char first = reader.peek();
  if (first == '[') {
    reply = reader.parse_document();
    return false;
  }
  if (first != '{') {
    const json value = reader.parse_document();  // reports invalid JSON as such
    throw ProtocolError("the host sent a message that is neither a tuple nor a task-id list: " +
                        excerpt(value));
  }
  reader.expect('{');
  json id;
  std::string component;
  std::string stream = "default";
  std::int64_t task = 0;
  json values;
  std::string key;
  for (bool first_member = true; reader.next_member(first_member); first_member = false) {
    reader.read_key(key);
    const std::string_view name = key;
    if (name == "tuple") {
      values = reader.read_value();
    } else if (name == "id") {
      id = reader.read_value();
    } else if (name == "comp") {
      if (!reader.read_string_if_any(component)) reader.read_value();  // null for heartbeats
    } else if (name == "stream") {
      if (!reader.read_string_if_any(stream)) reader.read_value();
    } else if (name == "task") {
      const json value = reader.read_value();
      if (value.is_number_integer()) task = value.get<std::int64_t>();
    } else {
      reader.read_value();
    }
  }
  reader.expect_end();
  if (!values.is_array()) {
    std::string shown(text.substr(0, 200));
    throw ProtocolError("a tuple message from the host has no \"tuple\" array: " + shown);
  }
  tuple = Tuple(std::move(id), std::move(component), std::move(stream), task, std::move(values));
  return true;
}

/// The same for a MessagePack message: a map is a tuple, an array a task-id reply.
inline bool parse_msgpack_bolt_message(std::string_view bytes, Tuple& tuple, json& reply) {
  msgpack::Reader reader(bytes);
  const msgpack::Kind kind = reader.peek_kind();
  if (kind == msgpack::Kind::array) {
    reply = reader.parse_document();
    return false;
  }
  if (kind != msgpack::Kind::map) {
    const json value = reader.parse_document();  // reports invalid MessagePack as such
    throw ProtocolError("the host sent a message that is neither a tuple nor a task-id list: " +
                        excerpt(value));
  }
  json id;
  std::string component;
  std::string stream = "default";
  std::int64_t task = 0;
  json values;
  for (std::uint64_t members = reader.read_map_head(); members > 0; --members) {
    const std::string_view name = reader.read_key();
    if (name == "tuple") {
      values = reader.read_value(1);
    } else if (name == "id") {
      id = reader.read_value(1);
    } else if (name == "comp") {
      if (!reader.read_string_if_any(component)) reader.skip_value(1);  // nil for heartbeats
    } else if (name == "stream") {
      if (!reader.read_string_if_any(stream)) reader.skip_value(1);
    } else if (name == "task") {
      const json value = reader.read_value(1);
      if (value.is_number_integer()) task = value.get<std::int64_t>();
    } else {
      reader.skip_value(1);
    }
  }
  reader.expect_end();
  if (!values.is_array()) {
    throw ProtocolError("a tuple message from the host has no \"tuple\" array: " +
                        excerpt(msgpack::Reader(bytes).parse_document(), 200));
  }
  tuple = Tuple(std::move(id), std::move(component), std::move(stream), task, std::move(values));
  return true;
}

/// Parses one whole message to a bolt in `wire`; see parse_bolt_message above.
inline bool parse_bolt_message(Wire wire, std::string_view bytes, Tuple& tuple, json& reply) {
  if (wire == Wire::msgpack) return parse_msgpack_bolt_message(bytes, tuple, reply);
  return parse_bolt_message(bytes, tuple, reply);
}

}  // namespace detail
}  // namespace sparse
