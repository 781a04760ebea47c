// Conversions between Kafka records (bytes) and tuple values (JSON), without any Kafka client, so
// they can be tested alone.
//
// Spout side: a record becomes the JSON array the spout emits, with the fields its options name.
// A record that cannot be represented as asked (a value that is not UTF-8 text, not JSON, or not
// a JSON object when json_fields are used) is a decode error, described for the user; it is
// never silently changed.
//
// Bolt side: a tuple value (its raw JSON text) becomes the bytes of a key or value: a JSON string
// is written as its text, anything else as its JSON.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kafka/options.hpp"
#include "runtime/tuple.hpp"

namespace sparse::kafka {

struct RecordView {
  std::string_view topic;
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::optional<std::string_view> key;    // nullopt: the record has no key
  std::optional<std::string_view> value;  // nullopt: a null value (tombstone)
  std::optional<std::int64_t> timestamp;  // milliseconds since the epoch, if the record has one
};

class RecordEncoder {
 public:
  explicit RecordEncoder(const SpoutOptions& options);
  // Appends the tuple's values (a JSON array) to `out`. On a decode error returns its
  // description ("value is not valid UTF-8 text (value_format: string)") and leaves `out` in an
  // unspecified state. JSON from a record (value_format: json, json_fields) is validated, and
  // refused when the tuple would nest deeper than runtime::kMaxTupleDepth: no record, however
  // deep or malformed, gets past here as anything but a decode error. Nothing recurses.
  // When `spans` is given, it is set to the values' spans in the array (what ValidateTuple would
  // find in `out`, which the runtime then need not scan again: BuiltinCollector::PrepareEncoded).
  std::optional<std::string> Encode(const RecordView& record, std::string& out,
                                    runtime::ValueSpans* spans = nullptr) const;

 private:
  std::optional<std::string> AppendBytes(std::string& out, std::optional<std::string_view> bytes,
                                         Format format, const char* what) const;
  template <typename Begin, typename End>
  std::optional<std::string> AppendJsonFields(std::string& out, std::string_view doc, Begin& begin,
                                              End& end) const;

  std::vector<RecordField> fields_;
  Format key_format_;
  Format value_format_;
  std::vector<std::string> json_fields_;
};

bool IsValidUtf8(std::string_view s);
// Appends `s` as a JSON string literal. Returns false, leaving `out` unspecified, when `s` is not
// valid UTF-8 (which JSON text cannot carry).
bool AppendJsonStringUtf8(std::string& out, std::string_view s);
std::string Base64Encode(std::string_view bytes);

// The bytes a tuple value stands for: a JSON string's text, or the JSON text of anything else.
// nullopt for JSON null (no key / a null value). Returns false in `ok` for a malformed string.
std::optional<std::string> ValueBytes(std::string_view json_value, bool& ok);

// {"field": value, ...} from field names and the raw JSON text of each value.
std::string TupleAsJsonObject(const std::vector<std::string>& fields,
                              const std::vector<std::string_view>& values);

}  // namespace sparse::kafka
