#include "multilang/msgpack_codec.hpp"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <msgpack.hpp>

#include "multilang/messages.hpp"

namespace sparse::multilang {

namespace {

// Writes into a std::string for msgpack::packer.
struct StringSink {
  std::string* out;
  void write(const char* data, std::size_t len) { out->append(data, len); }
};

void AppendNumber(std::string& out, double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
  // A whole double prints without a point; keep it a float for the reader, as JSON encoders do.
  if (std::find_if(buf, r.ptr, [](char c) { return c == '.' || c == 'e' || c == 'n'; }) == r.ptr)
    out += ".0";
}

// JSON text of a decoded object. Depth is bounded by the unpacker's limit.
std::optional<std::string> ToJson(const msgpack::object& o, std::string& out) {
  switch (o.type) {
    case msgpack::type::NIL:
      out += "null";
      return std::nullopt;
    case msgpack::type::BOOLEAN:
      out += o.via.boolean ? "true" : "false";
      return std::nullopt;
    case msgpack::type::POSITIVE_INTEGER:
      AppendJsonInt(out, o.via.u64);
      return std::nullopt;
    case msgpack::type::NEGATIVE_INTEGER:
      AppendJsonInt(out, o.via.i64);
      return std::nullopt;
    case msgpack::type::FLOAT32:
    case msgpack::type::FLOAT64:
      if (!std::isfinite(o.via.f64)) return std::string("a NaN or infinite float (JSON has none)");
      AppendNumber(out, o.via.f64);
      return std::nullopt;
    case msgpack::type::STR:
      AppendJsonString(out, std::string_view(o.via.str.ptr, o.via.str.size));
      return std::nullopt;
    case msgpack::type::BIN:
      AppendJsonString(out, std::string_view(o.via.bin.ptr, o.via.bin.size));
      return std::nullopt;
    case msgpack::type::ARRAY:
      out.push_back('[');
      for (std::uint32_t i = 0; i < o.via.array.size; ++i) {
        if (i) out.push_back(',');
        if (auto e = ToJson(o.via.array.ptr[i], out)) return e;
      }
      out.push_back(']');
      return std::nullopt;
    case msgpack::type::MAP:
      out.push_back('{');
      for (std::uint32_t i = 0; i < o.via.map.size; ++i) {
        if (i) out.push_back(',');
        const auto& kv = o.via.map.ptr[i];
        if (kv.key.type == msgpack::type::STR || kv.key.type == msgpack::type::BIN) {
          if (auto e = ToJson(kv.key, out)) return e;
        } else if (kv.key.type == msgpack::type::ARRAY || kv.key.type == msgpack::type::MAP) {
          // Quoting a container key escapes every quote inside it again, so keys nested in keys
          // grow exponentially (100 bytes spun for ever): only scalar keys are taken.
          return std::string("a map key that is an array or a map (JSON keys are strings)");
        } else {
          std::string key;
          if (auto e = ToJson(kv.key, key)) return e;
          AppendJsonString(out, key);
        }
        out.push_back(':');
        if (auto e = ToJson(kv.val, out)) return e;
      }
      out.push_back('}');
      return std::nullopt;
    case msgpack::type::EXT:
      return "a MessagePack extension value (type " + std::to_string(o.via.ext.type()) +
             "), which JSON cannot carry";
  }
  return std::string("an unknown MessagePack type");
}

// Always a float64, as Python's msgpack writes one: msgpack-c's pack_double writes a whole
// double as an integer, so the component would get 1 for 1.0 (another type) and 0 for -0.0.
void PackFloat64(std::string& out, double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  out.push_back(static_cast<char>(0xcb));
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>(bits >> shift));
}

// Packs a parsed JSON element; depth is bounded by the parser's max depth.
void Pack(msgpack::packer<StringSink>& pk, std::string& out, simdjson::dom::element e) {
  switch (e.type()) {
    case simdjson::dom::element_type::ARRAY: {
      simdjson::dom::array a = e.get_array().value_unsafe();
      pk.pack_array(static_cast<std::uint32_t>(a.size()));
      for (auto v : a) Pack(pk, out, v);
      return;
    }
    case simdjson::dom::element_type::OBJECT: {
      simdjson::dom::object o = e.get_object().value_unsafe();
      pk.pack_map(static_cast<std::uint32_t>(o.size()));
      for (auto field : o) {
        pk.pack_str(static_cast<std::uint32_t>(field.key.size()));
        pk.pack_str_body(field.key.data(), static_cast<std::uint32_t>(field.key.size()));
        Pack(pk, out, field.value);
      }
      return;
    }
    case simdjson::dom::element_type::INT64:
      pk.pack_int64(e.get_int64().value_unsafe());
      return;
    case simdjson::dom::element_type::UINT64:
      pk.pack_uint64(e.get_uint64().value_unsafe());
      return;
    case simdjson::dom::element_type::DOUBLE:
      PackFloat64(out, e.get_double().value_unsafe());
      return;
    case simdjson::dom::element_type::STRING: {
      std::string_view s = e.get_string().value_unsafe();
      pk.pack_str(static_cast<std::uint32_t>(s.size()));
      pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
      return;
    }
    case simdjson::dom::element_type::BOOL:
      if (e.get_bool().value_unsafe()) {
        pk.pack_true();
      } else {
        pk.pack_false();
      }
      return;
    case simdjson::dom::element_type::NULL_VALUE:
      pk.pack_nil();
      return;
  }
}

// One DOM parser per thread, reused (it keeps its buffers), with the nesting limit.
simdjson::dom::parser& Parser() {
  thread_local simdjson::dom::parser parser = [] {
    simdjson::dom::parser p;
    // On failure the first parse allocates again (with the default depth) and reports it.
    const auto err = p.allocate(1 << 16, kMaxNestingDepth);
    (void)err;
    return p;
  }();
  return parser;
}

}  // namespace

struct MsgpackReader::Impl {
  explicit Impl(std::size_t max_bytes)
      : unpacker(nullptr, nullptr, 64 * 1024,
                 // Counts and sizes past the message limit cannot be honest; refusing them
                 // keeps a lying header from reserving memory it will never fill.
                 // An element count is reserved (24-48 bytes each) before the elements arrive:
                 // a million is far past any real tuple and still a bounded reservation.
                 msgpack::unpack_limit(kMaxElements, kMaxElements, max_bytes, max_bytes, max_bytes,
                                       kMaxNestingDepth)) {}
  static constexpr std::size_t kMaxElements = 1u << 20;
  msgpack::unpacker unpacker;
  msgpack::object_handle handle;
};

MsgpackReader::MsgpackReader(std::size_t max_message_bytes)
    : impl_(std::make_unique<Impl>(max_message_bytes)), max_message_bytes_(max_message_bytes) {}

MsgpackReader::~MsgpackReader() = default;

void MsgpackReader::Append(std::string_view bytes) {
  if (error_ || bytes.empty()) return;
  impl_->unpacker.reserve_buffer(bytes.size());
  std::memcpy(impl_->unpacker.buffer(), bytes.data(), bytes.size());
  impl_->unpacker.buffer_consumed(bytes.size());
  buffered_ += bytes.size();
}

bool MsgpackReader::NextInto(std::string& out) {
  if (error_) return false;
  bool complete = false;
  try {
    complete = impl_->unpacker.next(impl_->handle);
  } catch (const msgpack::depth_size_overflow&) {
    error_ = "MessagePack nested deeper than " + std::to_string(kMaxNestingDepth) + " levels";
    return false;
  } catch (const msgpack::size_overflow& e) {
    error_ = std::string("MessagePack size over the message limit (") + e.what() + ")";
    return false;
  } catch (const std::exception& e) {
    error_ = std::string("not MessagePack (") + e.what() + ")";
    return false;
  }
  if (!complete) {
    // The unpacker keeps the partial value's bytes; bound them like a JSON frame.
    if (buffered_ > max_message_bytes_) {
      error_ = "message larger than " + std::to_string(max_message_bytes_) + " bytes";
    }
    return false;
  }
  buffered_ = impl_->unpacker.nonparsed_size();
  out.clear();
  if (auto e = ToJson(impl_->handle.get(), out)) {
    error_ = "MessagePack message holds " + *e;
    return false;
  }
  return true;
}

std::optional<std::string> AppendJsonAsMsgpack(std::string& out, std::string_view json) {
  simdjson::dom::element root;
  if (auto e = Parser().parse(json.data(), json.size()).get(root)) {
    return std::string("not JSON: ") + simdjson::error_message(e);
  }
  StringSink sink{&out};
  msgpack::packer<StringSink> pk(sink);  // writes through to `out` at once, as PackFloat64 does
  Pack(pk, out, root);
  return std::nullopt;
}

void PackMapHeader(std::string& out, std::uint32_t entries) {
  StringSink sink{&out};
  msgpack::packer<StringSink>(sink).pack_map(entries);
}

void PackArrayHeader(std::string& out, std::uint32_t elements) {
  StringSink sink{&out};
  msgpack::packer<StringSink>(sink).pack_array(elements);
}

void PackString(std::string& out, std::string_view s) {
  StringSink sink{&out};
  msgpack::packer<StringSink> pk(sink);
  pk.pack_str(static_cast<std::uint32_t>(s.size()));
  pk.pack_str_body(s.data(), static_cast<std::uint32_t>(s.size()));
}

void PackInt(std::string& out, std::int64_t v) {
  StringSink sink{&out};
  msgpack::packer<StringSink>(sink).pack_int64(v);
}

void PackNil(std::string& out) {
  StringSink sink{&out};
  msgpack::packer<StringSink>(sink).pack_nil();
}

}  // namespace sparse::multilang
