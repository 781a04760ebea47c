// Fuzz target: the tuple validator and splitter (runtime/tuple.hpp, runtime/json_text.hpp), which
// every emitted tuple and every Kafka record decoded as JSON goes through.
//
// Properties, against simdjson's DOM parser (a full validator) as the reference:
//   - what ValidateTuple accepts, simdjson accepts, as an array of as many values as spans, each
//     span's text being exactly that value;
//   - what simdjson accepts as an array nested at most kMaxTupleDepth levels, ValidateTuple
//     accepts, and deeper arrays it refuses as too deep;
//   - on accepted text SplitJsonArray (the fast splitter) finds the same spans.
// One documented difference: simdjson 3.0 refuses integers past 64 bits (NUMBER_ERROR), which
// RFC 8259 allows and ValidateTuple accepts; inputs with 19 digits in a row are not compared.
#include <simdjson.h>

#include <string>
#include <string_view>

#include "check.hpp"
#include "runtime/json_text.hpp"
#include "runtime/tuple.hpp"

namespace {

using sparse::runtime::kMaxTupleDepth;
using sparse::runtime::ValueSpans;

std::size_t Depth(simdjson::dom::element e) {
  std::size_t deepest = 0;
  if (e.is_array()) {
    simdjson::dom::array array = e.get_array().value_unsafe();
    for (auto v : array) deepest = std::max(deepest, Depth(v));
    return deepest + 1;
  }
  if (e.is_object()) {
    simdjson::dom::object object = e.get_object().value_unsafe();
    for (auto f : object) deepest = std::max(deepest, Depth(f.value));
    return deepest + 1;
  }
  return 0;
}

bool HasLongDigitRun(std::string_view text) {
  std::size_t run = 0;
  for (char c : text) {
    run = (c >= '0' && c <= '9') ? run + 1 : 0;
    if (run >= 19) return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  static simdjson::dom::parser dom;       // the whole text
  static simdjson::dom::parser span_dom;  // one span at a time
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  ValueSpans spans;
  const auto refused = sparse::runtime::ValidateTuple(text, spans);
  if (refused) FUZZ_CHECK(!refused->empty(), "a refusal without a reason");

  simdjson::dom::element root;
  const auto dom_error = dom.parse(text).get(root);
  if (dom_error == simdjson::NUMBER_ERROR && HasLongDigitRun(text)) return 0;

  if (!refused) {
    FUZZ_CHECK(dom_error == simdjson::SUCCESS, "ValidateTuple accepted what simdjson refuses");
    FUZZ_CHECK(root.is_array(), "ValidateTuple accepted a value that is not an array");
    const simdjson::dom::array array = root.get_array().value_unsafe();
    FUZZ_CHECK(array.size() == spans.size(), "a span count other than the array's size");
    std::size_t i = 0;
    for (auto value : array) {
      const std::string_view span = text.substr(spans[i].first, spans[i].second);
      simdjson::dom::element parsed;
      FUZZ_CHECK(span_dom.parse(span).get(parsed) == simdjson::SUCCESS,
                 "a span that is not one JSON value");
      FUZZ_CHECK(simdjson::minify(parsed) == simdjson::minify(value),
                 "a span that is not its value");
      ++i;
    }
    ValueSpans split;
    FUZZ_CHECK(sparse::runtime::SplitJsonArray(text, split), "SplitJsonArray refused a tuple");
    FUZZ_CHECK(split == spans, "SplitJsonArray found other spans than ValidateTuple");
    return 0;
  }
  if (dom_error == simdjson::SUCCESS && root.is_array()) {
    FUZZ_CHECK(Depth(root) > kMaxTupleDepth, "ValidateTuple refused a valid array");
    FUZZ_CHECK(refused->find("nested deeper") != std::string::npos,
               "a too deep array refused for another reason");
  }
  return 0;
}
