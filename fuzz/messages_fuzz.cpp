// Fuzz target: the parser of a component's messages (multilang/messages.hpp), one message body.
//
// Properties: a failure always says why; when the body is a valid JSON object without repeated
// keys (checked with simdjson's DOM parser, which validates everything), the parser accepts
// every well-typed message and agrees with the DOM on the command, the stream, the pid and the
// tuple's values.
#include <simdjson.h>

#include <set>
#include <string>
#include <string_view>

#include "check.hpp"
#include "multilang/messages.hpp"

namespace {

using sparse::multilang::Command;
using sparse::multilang::ComponentMessage;

std::string Minified(simdjson::dom::element e) {
  return simdjson::minify(e);
}

bool UniqueKeys(simdjson::dom::object o) {
  std::set<std::string_view> keys;
  for (auto field : o) {
    if (!keys.insert(field.key).second) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  static sparse::multilang::MessageParser parser;
  static simdjson::dom::parser dom;
  std::string body(reinterpret_cast<const char*>(data), size);
  const std::string copy = body;  // Parse may reserve padding but must not change the text
  ComponentMessage m;
  const auto error = parser.Parse(body, m);
  FUZZ_CHECK(body == copy, "Parse changed the message text");
  if (error) FUZZ_CHECK(!error->empty(), "a failure without a reason");

  simdjson::dom::element root;
  if (dom.parse(copy).get(root) != simdjson::SUCCESS) return 0;
  simdjson::dom::object o;
  if (root.get_object().get(o) != simdjson::SUCCESS || !UniqueKeys(o)) return 0;

  std::string_view command;
  const bool has_command = o["command"].get_string().get(command) == simdjson::SUCCESS;
  if (!has_command) return 0;
  if (command == "emit") {
    simdjson::dom::array tuple;
    if (o["tuple"].get_array().get(tuple) != simdjson::SUCCESS) return 0;
    // Every typed field the parser checks must be well typed for it to accept.
    std::string_view s;
    std::int64_t i = 0;
    bool b = false;
    auto element = [&](const char* key) { return o[key]; };
    if (element("stream").error() == simdjson::SUCCESS && !element("stream").is_null() &&
        element("stream").get_string().get(s) != simdjson::SUCCESS)
      return 0;
    if (element("task").error() == simdjson::SUCCESS && !element("task").is_null() &&
        element("task").get_int64().get(i) != simdjson::SUCCESS)
      return 0;
    if (element("need_task_ids").error() == simdjson::SUCCESS &&
        element("need_task_ids").get_bool().get(b) != simdjson::SUCCESS)
      return 0;
    if (element("pid").error() == simdjson::SUCCESS &&
        element("pid").get_int64().get(i) != simdjson::SUCCESS)
      return 0;
    if (element("level").error() == simdjson::SUCCESS && element("level").is_number() &&
        element("level").get_int64().get(i) != simdjson::SUCCESS)
      return 0;
    simdjson::dom::element anchors;
    if (o["anchors"].get(anchors) == simdjson::SUCCESS) {
      auto id_like = [](simdjson::dom::element e) { return e.is_string() || e.is_number(); };
      if (anchors.is_array()) {
        simdjson::dom::array list = anchors.get_array().value_unsafe();
        for (auto a : list) {
          if (!id_like(a)) return 0;
        }
      } else if (!anchors.is_null() && !id_like(anchors)) {
        return 0;
      }
    }
    FUZZ_CHECK(!error, "a valid emit was refused");
    FUZZ_CHECK(m.command == Command::kEmit, "emit parsed as another command");
    std::string_view stream = "default";
    if (o["stream"].get_string().get(s) == simdjson::SUCCESS) stream = s;
    if (stream.empty()) stream = "default";
    FUZZ_CHECK(m.stream == stream, "the stream differs from the DOM's");
    static simdjson::dom::parser tuple_dom;  // a second parser: `tuple` lives in the first one's
    simdjson::dom::element parsed_tuple;
    FUZZ_CHECK(tuple_dom.parse(m.tuple_json).get(parsed_tuple) == simdjson::SUCCESS,
               "the tuple text is not the JSON it was");
    FUZZ_CHECK(Minified(parsed_tuple) == simdjson::minify(tuple),
               "the tuple differs from the DOM's");
  } else if (!error) {
    FUZZ_CHECK(m.command != Command::kEmit, "a command other than emit parsed as emit");
  }
  return 0;
}
