// Fuzz target: the Kafka record decoder (kafka/record_codec.hpp), which turns any record a topic
// holds into the tuple the spout emits. The input picks the spout's options (fields, formats,
// json_fields) and the record's key, value and topic.
//
// Properties: a record either becomes a valid tuple (ValidateTuple accepts it, with one value per
// field, at the spans the encoder reports) or a decode error that says why; string fields decode
// back to the record's bytes, JSON ones to the same document (simdjson as the reference), base64
// ones are the bytes' base64; a value refused as text is not UTF-8, one refused as JSON is refused
// by simdjson or nested too deep.
#include <fuzzer/FuzzedDataProvider.h>
#include <simdjson.h>

#include <set>
#include <string>
#include <vector>

#include "check.hpp"
#include "kafka/record_codec.hpp"
#include "runtime/json_text.hpp"

namespace {

namespace kafka = sparse::kafka;
using kafka::Format;
using kafka::RecordField;

std::string Unquoted(std::string_view json_string) {
  FUZZ_CHECK(json_string.size() >= 2 && json_string.front() == '"' && json_string.back() == '"',
             "a string field that is not a JSON string");
  std::string out;
  FUZZ_CHECK(
      sparse::runtime::json::AppendUnescaped(out, json_string.substr(1, json_string.size() - 2)),
      "a string field with a bad escape");
  return out;
}

// simdjson's minified form of a JSON text; nullopt if simdjson refuses it (simdjson 3.0 refuses
// integers past 64 bits, which JSON allows and the decoder accepts).
std::optional<std::string> Minified(std::string_view json) {
  static simdjson::dom::parser parser;
  simdjson::dom::element e;
  if (parser.parse(json).get(e) != simdjson::SUCCESS) return std::nullopt;
  return simdjson::minify(e);
}

void CheckField(std::string_view span, std::optional<std::string_view> bytes, Format format) {
  if (!bytes) {
    FUZZ_CHECK(span == "null", "a missing key or value that is not null");
    return;
  }
  switch (format) {
    case Format::kString:
      FUZZ_CHECK(Unquoted(span) == *bytes, "a string field that is not the record's bytes");
      return;
    case Format::kBase64:
      FUZZ_CHECK(span == "\"" + kafka::Base64Encode(*bytes) + "\"", "a base64 field is not");
      return;
    case Format::kJson:
      if (const auto original = Minified(*bytes)) {
        FUZZ_CHECK(Minified(span) == original, "a JSON field that is another document");
      }
      return;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  kafka::SpoutOptions options;
  options.key_format = static_cast<Format>(in.ConsumeIntegralInRange(0, 2));
  options.value_format = static_cast<Format>(in.ConsumeIntegralInRange(0, 2));
  options.fields.clear();
  for (int n = in.ConsumeIntegralInRange(0, 6); n > 0; --n) {
    options.fields.push_back(static_cast<RecordField>(in.ConsumeIntegralInRange(0, 5)));
  }
  for (int n = in.ConsumeIntegralInRange(0, 3); n > 0; --n) {
    options.json_fields.push_back(in.ConsumeRandomLengthString(8));
  }
  // Kafka allows only [a-zA-Z0-9._-] in topic names, and the broker enforces it.
  std::string topic = in.ConsumeRandomLengthString(16);
  for (char& c : topic) c = "abcXYZ019._-"[static_cast<unsigned char>(c) % 12];
  const bool has_key = in.ConsumeBool();
  const bool has_value = in.ConsumeBool();
  const std::string key = in.ConsumeRandomLengthString(256);
  const std::string value = in.ConsumeRemainingBytesAsString();

  kafka::RecordView record;
  record.topic = topic;
  record.partition = 3;
  record.offset = 42;
  if (has_key) record.key = key;
  if (has_value) record.value = value;

  const kafka::RecordEncoder encoder(options);
  std::string out;
  sparse::runtime::ValueSpans encoded;
  const auto error = encoder.Encode(record, out, &encoded);
  if (error) {
    FUZZ_CHECK(!error->empty(), "a decode error without a reason");
    if (options.value_format == Format::kString && has_value && !kafka::IsValidUtf8(value))
      return 0;
    if (options.key_format == Format::kString && has_key && !kafka::IsValidUtf8(key)) return 0;
    const bool json_asked = !options.json_fields.empty() ||
                            (options.value_format == Format::kJson && has_value) ||
                            (options.key_format == Format::kJson && has_key);
    FUZZ_CHECK(json_asked, "a decode error for a record any text or bytes would do for");
    if (!options.json_fields.empty() && !has_value) return 0;
    if (options.value_format == Format::kJson && has_value &&
        sparse::runtime::json::Validate(value, sparse::runtime::kMaxValueDepth)) {
      return 0;
    }
    if (options.key_format == Format::kJson && has_key &&
        sparse::runtime::json::Validate(key, sparse::runtime::kMaxValueDepth)) {
      return 0;
    }
    FUZZ_CHECK(!options.json_fields.empty(), "a valid JSON value refused");
    return 0;
  }

  sparse::runtime::ValueSpans spans;
  const auto invalid = sparse::runtime::ValidateTuple(out, spans);
  FUZZ_CHECK(!invalid, "the decoder made an invalid tuple");
  FUZZ_CHECK(encoded == spans,
             "the encoder's spans are not the tuple's (PrepareEncoded trusts them)");
  FUZZ_CHECK(spans.size() == options.fields.size() + options.json_fields.size(),
             "a tuple with another number of values than fields");
  const auto span = [&](std::size_t i) {
    return std::string_view(out).substr(spans[i].first, spans[i].second);
  };
  for (std::size_t i = 0; i < options.fields.size(); ++i) {
    switch (options.fields[i]) {
      case RecordField::kTopic:
        CheckField(span(i), topic, Format::kString);
        break;
      case RecordField::kPartition:
        FUZZ_CHECK(span(i) == "3", "the partition");
        break;
      case RecordField::kOffset:
        FUZZ_CHECK(span(i) == "42", "the offset");
        break;
      case RecordField::kTimestamp:
        FUZZ_CHECK(span(i) == "null", "the missing timestamp");
        break;
      case RecordField::kKey:
        CheckField(span(i), record.key, options.key_format);
        break;
      case RecordField::kValue:
        CheckField(span(i), record.value, options.value_format);
        break;
    }
  }
  if (!options.json_fields.empty()) {
    // Each named member's value (the last one of a repeated key), by simdjson's DOM.
    static simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (parser.parse(value).get(doc) != simdjson::SUCCESS) return 0;  // integers past 64 bits
    simdjson::dom::object object;
    FUZZ_CHECK(doc.get_object().get(object) == simdjson::SUCCESS, "json_fields of a non-object");
    for (std::size_t k = 0; k < options.json_fields.size(); ++k) {
      std::string expected = "null";
      for (auto field : object) {
        if (field.key == options.json_fields[k]) expected = simdjson::minify(field.value);
      }
      FUZZ_CHECK(Minified(span(options.fields.size() + k)).value_or("?") == expected,
                 "a json_fields value that is not the member's");
    }
  }
  return 0;
}
