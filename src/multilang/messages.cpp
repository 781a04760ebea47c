#include "multilang/messages.hpp"

#include <simdjson.h>

namespace sparse::multilang {

namespace od = simdjson::ondemand;

std::string_view CommandName(Command c) {
  switch (c) {
    case Command::kEmit:
      return "emit";
    case Command::kAck:
      return "ack";
    case Command::kFail:
      return "fail";
    case Command::kError:
      return "error";
    case Command::kLog:
      return "log";
    case Command::kMetrics:
      return "metrics";
    case Command::kSync:
      return "sync";
    case Command::kPid:
      return "pid";
  }
  return "?";
}

void ComponentMessage::Clear() {
  command = Command::kSync;
  id.clear();
  stream.clear();
  task.reset();
  need_task_ids = true;
  anchors.clear();
  tuple_json.clear();
  msg.clear();
  level = LogLevel::kInfo;
  metric_name.clear();
  metric_params_json.clear();
  pid = 0;
}

struct MessageParser::Impl {
  od::parser parser;
};

MessageParser::MessageParser() : impl_(std::make_unique<Impl>()) {}
MessageParser::~MessageParser() = default;

namespace {

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// Raw JSON text of any value (arrays and objects whole, scalars as their token).
simdjson::error_code RawValue(od::value v, std::string& out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  std::string_view raw;
  if (t == od::json_type::array) {
    od::array a;
    if (auto e = v.get_array().get(a)) return e;
    if (auto e = a.raw_json().get(raw)) return e;
  } else if (t == od::json_type::object) {
    od::object o;
    if (auto e = v.get_object().get(o)) return e;
    if (auto e = o.raw_json().get(raw)) return e;
  } else {
    raw = v.raw_json_token();
  }
  out.assign(TrimRight(raw));
  return simdjson::SUCCESS;
}

// Ids and anchors are strings in the protocol; numbers are tolerated and kept as their text.
simdjson::error_code IdText(od::value v, std::string& out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::string) {
    std::string_view s;
    if (auto e = v.get_string().get(s)) return e;
    out.assign(s);
    return simdjson::SUCCESS;
  }
  if (t == od::json_type::number) {
    out.assign(TrimRight(v.raw_json_token()));
    return simdjson::SUCCESS;
  }
  return simdjson::INCORRECT_TYPE;
}

std::optional<std::string> Fail(std::string_view what, simdjson::error_code e) {
  std::string r(what);
  r += ": ";
  r += simdjson::error_message(e);
  return r;
}

}  // namespace

std::optional<std::string> MessageParser::Parse(std::string& body, ComponentMessage& out) {
  out.Clear();
  const std::size_t len = body.size();
  body.reserve(len + simdjson::SIMDJSON_PADDING);
  od::document doc;
  if (auto e = impl_->parser.iterate(body.data(), len, body.capacity()).get(doc)) {
    return Fail("not JSON", e);
  }
  od::object obj;
  if (auto e = doc.get_object().get(obj)) {
    return std::string("not a JSON object (") + simdjson::error_message(e) + ")";
  }

  bool have_command = false;
  bool have_pid = false;
  std::string_view command;
  std::string raw_id;
  bool id_is_string = false;
  for (auto field_result : obj) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return Fail("malformed object", e);
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return Fail("malformed key", e);
    od::value v = field.value();
    if (key == "command") {
      std::string_view c;
      if (auto e = v.get_string().get(c)) return Fail("\"command\" is not a string", e);
      // The view points into the parser's string buffer, valid until the next iterate().
      command = c;
      have_command = true;
    } else if (key == "id") {
      bool is_null = false;
      if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null) continue;
      od::json_type t;
      if (auto e = v.type().get(t)) return Fail("bad \"id\"", e);
      id_is_string = (t == od::json_type::string);
      if (id_is_string) {
        // Keep both: the string value (bolt ack/fail) and its JSON text (spout message id).
        std::string_view raw = TrimRight(v.raw_json_token());
        raw_id.assign(raw);
        std::string_view s;
        if (auto e = v.get_string().get(s)) return Fail("bad \"id\"", e);
        out.id.assign(s);
      } else {
        if (auto e = RawValue(v, raw_id)) return Fail("bad \"id\"", e);
      }
    } else if (key == "stream") {
      bool is_null = false;
      if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null) continue;
      std::string_view s;
      if (auto e = v.get_string().get(s)) return Fail("\"stream\" is not a string", e);
      out.stream.assign(s);
    } else if (key == "task") {
      bool is_null = false;
      if (v.is_null().get(is_null) == simdjson::SUCCESS && is_null) continue;
      std::int64_t t = 0;
      if (auto e = v.get_int64().get(t)) return Fail("\"task\" is not an integer", e);
      out.task = t;
    } else if (key == "need_task_ids") {
      bool b = true;
      if (auto e = v.get_bool().get(b)) return Fail("\"need_task_ids\" is not a boolean", e);
      out.need_task_ids = b;
    } else if (key == "anchors") {
      od::json_type t;
      if (auto e = v.type().get(t)) return Fail("bad \"anchors\"", e);
      if (t == od::json_type::null) continue;
      if (t == od::json_type::array) {
        od::array a;
        if (auto e = v.get_array().get(a)) return Fail("bad \"anchors\"", e);
        for (auto el : a) {
          od::value av;
          if (auto e = el.get(av)) return Fail("bad anchor", e);
          std::string& s = out.anchors.emplace_back();
          if (auto e = IdText(av, s)) return Fail("anchor is not a string", e);
        }
      } else {
        std::string& s = out.anchors.emplace_back();
        if (auto e = IdText(v, s)) return Fail("anchor is not a string", e);
      }
    } else if (key == "tuple") {
      od::array a;
      if (auto e = v.get_array().get(a)) return Fail("\"tuple\" is not an array", e);
      std::string_view raw;
      if (auto e = a.raw_json().get(raw)) return Fail("bad \"tuple\"", e);
      out.tuple_json.assign(TrimRight(raw));
    } else if (key == "msg") {
      od::json_type t;
      if (auto e = v.type().get(t)) return Fail("bad \"msg\"", e);
      if (t == od::json_type::string) {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return Fail("bad \"msg\"", e);
        out.msg.assign(s);
      } else if (auto e = RawValue(v, out.msg)) {
        return Fail("bad \"msg\"", e);
      }
    } else if (key == "level") {
      std::int64_t l = 2;
      od::json_type t;
      if (auto e = v.type().get(t)) return Fail("bad \"level\"", e);
      if (t == od::json_type::number) {
        if (auto e = v.get_int64().get(l)) return Fail("\"level\" is not an integer", e);
      } else if (t == od::json_type::string) {
        std::string_view s;
        if (auto e = v.get_string().get(s)) return Fail("bad \"level\"", e);
        if (s == "trace")
          l = 0;
        else if (s == "debug")
          l = 1;
        else if (s == "warn" || s == "warning")
          l = 3;
        else if (s == "error" || s == "critical")
          l = 4;
      }
      if (l < 0) l = 0;
      if (l > 4) l = 4;
      out.level = static_cast<LogLevel>(l);
    } else if (key == "name") {
      std::string_view s;
      if (v.get_string().get(s) == simdjson::SUCCESS) out.metric_name.assign(s);
    } else if (key == "params") {
      if (auto e = RawValue(v, out.metric_params_json)) return Fail("bad \"params\"", e);
    } else if (key == "pid") {
      std::int64_t p = 0;
      if (auto e = v.get_int64().get(p)) return Fail("\"pid\" is not an integer", e);
      out.pid = p;
      have_pid = true;
    }
    // Unknown keys are ignored, as Storm does.
  }
  {
    // simdjson 3.0 has no document::at_end(); a valid location after the object means trailing
    // content.
    const char* rest = nullptr;
    if (doc.current_location().get(rest) == simdjson::SUCCESS) {
      return std::string("trailing characters after the JSON object");
    }
  }

  if (!have_command) {
    if (have_pid) {
      out.command = Command::kPid;
      return std::nullopt;
    }
    return std::string("missing \"command\"");
  }
  if (command == "emit") {
    out.command = Command::kEmit;
    if (out.tuple_json.empty()) return std::string("emit without \"tuple\"");
    if (out.stream.empty()) out.stream = "default";
    // For spout emits the message id is any JSON value: keep its JSON text.
    out.id = std::move(raw_id);
  } else if (command == "ack" || command == "fail") {
    out.command = command == "ack" ? Command::kAck : Command::kFail;
    if (raw_id.empty()) return std::string(command) + " without \"id\"";
    (void)id_is_string;  // numbers are accepted: out.id holds their text below
    if (!id_is_string) out.id = raw_id;
  } else if (command == "sync") {
    out.command = Command::kSync;
  } else if (command == "log") {
    out.command = Command::kLog;
  } else if (command == "error") {
    out.command = Command::kError;
  } else if (command == "metrics") {
    out.command = Command::kMetrics;
  } else {
    return "unknown command \"" + std::string(command) + "\"";
  }
  return std::nullopt;
}

void AppendJsonEscape(std::string& out, unsigned char c) {
  switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\u00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
}

void AppendJsonString(std::string& out, std::string_view s) {
  out.push_back('"');
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == '"' || c == '\\') {
      AppendJsonEscape(out, c);
    } else {
      out.push_back(ch);
    }
  }
  out.push_back('"');
}

std::string Truncate(std::string_view s, std::size_t max) {
  if (s.size() <= max) return std::string(s);
  std::string r(s.substr(0, max));
  r += "... (" + std::to_string(s.size()) + " bytes)";
  return r;
}

}  // namespace sparse::multilang
