#include "kafka/record_codec.hpp"

#include <charconv>
#include <cstring>

#include "multilang/messages.hpp"
#include "runtime/json_text.hpp"

namespace sparse::kafka {

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  for (std::size_t i = 0; i < n;) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    const int len = runtime::json::Utf8Length(p + i, n - i);
    if (len == 0) return false;
    i += static_cast<std::size_t>(len);
  }
  return true;
}

bool AppendJsonStringUtf8(std::string& out, std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = runtime::json::PlainRun(p, n);
  if (i == n) {
    // Nothing to escape or check: the quotes and the bytes in one step.
    const std::size_t at = out.size();
    out.resize(at + n + 2);
    char* d = out.data() + at;
    d[0] = '"';
    if (n > 0) std::memcpy(d + 1, s.data(), n);
    d[n + 1] = '"';
    return true;
  }
  out.reserve(out.size() + n + 2);
  out.push_back('"');
  std::size_t run = 0;  // start of the bytes not yet copied
  auto flush = [&](std::size_t to) { out.append(s.data() + run, to - run); };
  while (i < n) {
    const unsigned char c = p[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      i += runtime::json::PlainRun(p + i, n - i);
      continue;
    }
    if (c < 0x80) {  // a quote, a backslash or a control character
      flush(i);
      multilang::AppendJsonEscape(out, c);
      run = ++i;
      continue;
    }
    const int len = runtime::json::Utf8Length(p + i, n - i);
    if (len == 0) return false;
    i += static_cast<std::size_t>(len);
  }
  flush(n);
  out.push_back('"');
  return true;
}

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t n = (b[i] << 16) | (b[i + 1] << 8) | b[i + 2];
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += kAlphabet[(n >> 6) & 63];
    out += kAlphabet[n & 63];
  }
  if (const std::size_t rest = bytes.size() - i; rest > 0) {
    std::uint32_t n = b[i] << 16;
    if (rest == 2) n |= b[i + 1] << 8;
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += rest == 2 ? kAlphabet[(n >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

RecordEncoder::RecordEncoder(const SpoutOptions& options)
    : fields_(options.fields),
      key_format_(options.key_format),
      value_format_(options.value_format),
      json_fields_(options.json_fields) {}

std::optional<std::string> RecordEncoder::AppendBytes(std::string& out,
                                                      std::optional<std::string_view> bytes,
                                                      Format format, const char* what) const {
  if (!bytes) {
    out += "null";
    return std::nullopt;
  }
  switch (format) {
    case Format::kString:
      if (!AppendJsonStringUtf8(out, *bytes)) {
        return std::string(what) + " is not valid UTF-8 text (" + what +
               "_format: string; use base64 for binary data)";
      }
      return std::nullopt;
    case Format::kBase64:
      out += '"';
      out += Base64Encode(*bytes);
      out += '"';
      return std::nullopt;
    case Format::kJson: {
      if (const auto error = runtime::json::Validate(*bytes, runtime::kMaxValueDepth)) {
        if (error->too_deep) {
          return std::string(what) + " nests deeper than " +
                 std::to_string(runtime::kMaxValueDepth) + " levels (" + what +
                 "_format: json), the most a tuple value may";
        }
        return std::string(what) + " is not a JSON document (" + what +
               "_format: json): " + runtime::json::Describe(*error);
      }
      if (bytes->find_first_of("\r\n") != std::string_view::npos) {
        // Tuples travel as one line in some protocols: keep the document, drop the layout.
        runtime::json::AppendMinified(out, *bytes);
      } else {
        // Without the document's surrounding blanks, so the value's span is its JSON exactly.
        std::string_view doc = *bytes;
        while (!doc.empty() && (doc.front() == ' ' || doc.front() == '\t')) doc.remove_prefix(1);
        while (!doc.empty() && (doc.back() == ' ' || doc.back() == '\t')) doc.remove_suffix(1);
        out.append(doc.data(), doc.size());
      }
      return std::nullopt;
    }
  }
  return std::string("unknown format");
}

std::optional<std::string> RecordEncoder::Encode(const RecordView& record, std::string& out,
                                                 runtime::ValueSpans* spans) const {
  out.push_back('[');
  if (spans) spans->clear();
  bool first = true;
  std::size_t value_start = 0;
  // Around each value: the comma before it, and its span once written.
  auto begin = [&] {
    if (!first) out.push_back(',');
    first = false;
    value_start = out.size();
  };
  auto end = [&] {
    if (spans) {
      spans->emplace_back(static_cast<std::uint32_t>(value_start),
                          static_cast<std::uint32_t>(out.size() - value_start));
    }
  };
  char digits[24];
  auto append_int = [&](std::int64_t n) {
    out.append(digits, std::to_chars(digits, digits + sizeof digits, n).ptr);
  };
  for (RecordField f : fields_) {
    begin();
    switch (f) {
      case RecordField::kTopic:
        AppendJsonStringUtf8(out, record.topic);
        break;
      case RecordField::kPartition:
        append_int(record.partition);
        break;
      case RecordField::kOffset:
        append_int(record.offset);
        break;
      case RecordField::kTimestamp:
        if (record.timestamp) {
          append_int(*record.timestamp);
        } else {
          out += "null";
        }
        break;
      case RecordField::kKey:
        if (auto err = AppendBytes(out, record.key, key_format_, "key")) return err;
        break;
      case RecordField::kValue:
        if (auto err = AppendBytes(out, record.value, value_format_, "value")) return err;
        break;
    }
    end();
  }
  if (!json_fields_.empty()) {
    if (!record.value) return std::string("value is null but json_fields need a JSON object");
    if (auto err = AppendJsonFields(out, *record.value, begin, end)) return err;
  }
  out.push_back(']');
  return std::nullopt;
}

template <typename Begin, typename End>
std::optional<std::string> RecordEncoder::AppendJsonFields(std::string& out, std::string_view doc,
                                                           Begin& begin, End& end) const {
  // The document's members are the tuple's values: they may nest one level more than a value.
  if (const auto error = runtime::json::Validate(doc, runtime::kMaxValueDepth + 1)) {
    if (error->too_deep) {
      return "value nests deeper than " + std::to_string(runtime::kMaxValueDepth + 1) +
             " levels (json_fields), more than a tuple value may";
    }
    return "value is not a JSON document (json_fields): " + runtime::json::Describe(*error);
  }
  const std::size_t start = doc.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || doc[start] != '{') {
    return std::string("value is not a JSON object (json_fields)");
  }
  // Each named member's value; a repeated key keeps its last value.
  boost::container::small_vector<std::string_view, 8> found(json_fields_.size());
  runtime::json::MemberReader members(doc.substr(start));
  std::string_view key;
  std::string_view value;
  std::string decoded;
  while (members.Next(key, value)) {
    std::string_view name = key;
    if (key.find('\\') != std::string_view::npos) {
      decoded.clear();
      runtime::json::AppendUnescaped(decoded, key);
      name = decoded;
    }
    for (std::size_t k = 0; k < json_fields_.size(); ++k) {
      if (json_fields_[k] == name) found[k] = value;
    }
  }
  for (const std::string_view v : found) {
    begin();
    if (v.empty()) {
      out += "null";
    } else {
      runtime::json::AppendMinified(out, v);
    }
    end();
  }
  return std::nullopt;
}

std::optional<std::string> ValueBytes(std::string_view json_value, bool& ok) {
  ok = true;
  if (json_value == "null") return std::nullopt;
  if (json_value.size() >= 2 && json_value.front() == '"' && json_value.back() == '"') {
    const std::string_view inner = json_value.substr(1, json_value.size() - 2);
    if (inner.find('\\') == std::string_view::npos) return std::string(inner);
    std::string text;
    if (!runtime::json::AppendUnescaped(text, inner)) {
      ok = false;
      return std::nullopt;
    }
    return text;
  }
  return std::string(json_value);
}

std::string TupleAsJsonObject(const std::vector<std::string>& fields,
                              const std::vector<std::string_view>& values) {
  std::string out = "{";
  for (std::size_t i = 0; i < fields.size() && i < values.size(); ++i) {
    if (i) out.push_back(',');
    multilang::AppendJsonString(out, fields[i]);
    out.push_back(':');
    out.append(values[i].data(), values[i].size());
  }
  out.push_back('}');
  return out;
}

}  // namespace sparse::kafka
