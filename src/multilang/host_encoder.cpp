#include "multilang/host_encoder.hpp"

#include <charconv>

#include "multilang/messages.hpp"
#include "multilang/msgpack_codec.hpp"

namespace sparse::multilang {

namespace {

// Storm's tuple ids are decimal strings.
void PackIdString(std::string& out, std::uint64_t id) {
  char buf[24];
  const auto* end = std::to_chars(buf, buf + sizeof buf, id).ptr;
  PackString(out, std::string_view(buf, static_cast<std::size_t>(end - buf)));
}

void JsonIdField(std::string& out, std::uint64_t id) {
  out += "{\"id\":\"";
  AppendJsonInt(out, id);
  out += '"';
}

}  // namespace

void HostEncoder::Frame(std::string& out) const {
  if (serializer_ == Serializer::kJson) out += "\nend\n";
}

std::optional<std::string> HostEncoder::Json(std::string& out, std::string_view json) const {
  if (serializer_ == Serializer::kMsgpack) return AppendJsonAsMsgpack(out, json);
  out.append(json);
  Frame(out);
  return std::nullopt;
}

std::optional<std::string> HostEncoder::Tuple(std::string& out, std::uint64_t id,
                                              std::string_view comp, std::string_view stream,
                                              std::int64_t task,
                                              std::string_view values_json) const {
  if (serializer_ == Serializer::kMsgpack) {
    const std::size_t mark = out.size();
    PackMapHeader(out, 5);
    PackString(out, "id");
    PackIdString(out, id);
    PackString(out, "comp");
    PackString(out, comp);
    PackString(out, "stream");
    PackString(out, stream);
    PackString(out, "task");
    PackInt(out, task);
    PackString(out, "tuple");
    if (auto err = AppendJsonAsMsgpack(out, values_json)) {
      out.resize(mark);
      return err;
    }
    return std::nullopt;
  }
  JsonIdField(out, id);
  out += ",\"comp\":";
  AppendJsonString(out, comp);
  out += ",\"stream\":";
  AppendJsonString(out, stream);
  out += ",\"task\":";
  AppendJsonInt(out, task);
  out += ",\"tuple\":";
  out += values_json;
  out += '}';
  Frame(out);
  return std::nullopt;
}

void HostEncoder::Tick(std::string& out, std::uint64_t id, std::int64_t freq_secs) const {
  if (serializer_ == Serializer::kMsgpack) {
    PackMapHeader(out, 5);
    PackString(out, "id");
    PackIdString(out, id);
    PackString(out, "comp");
    PackString(out, "__system");
    PackString(out, "stream");
    PackString(out, "__tick");
    PackString(out, "task");
    PackInt(out, -1);
    PackString(out, "tuple");
    PackArrayHeader(out, 1);
    PackInt(out, freq_secs);
    return;
  }
  JsonIdField(out, id);
  out += ",\"comp\":\"__system\",\"stream\":\"__tick\",\"task\":-1,\"tuple\":[";
  AppendJsonInt(out, freq_secs);
  out += "]}";
  Frame(out);
}

void HostEncoder::Heartbeat(std::string& out, std::uint64_t id) const {
  if (serializer_ == Serializer::kMsgpack) {
    PackMapHeader(out, 5);
    PackString(out, "id");
    PackIdString(out, id);
    PackString(out, "comp");
    PackNil(out);
    PackString(out, "stream");
    PackString(out, "__heartbeat");
    PackString(out, "task");
    PackInt(out, -1);
    PackString(out, "tuple");
    PackArrayHeader(out, 0);
    return;
  }
  JsonIdField(out, id);
  out += ",\"comp\":null,\"stream\":\"__heartbeat\",\"task\":-1,\"tuple\":[]}";
  Frame(out);
}

void HostEncoder::TaskIds(std::string& out, const std::vector<int>& tasks) const {
  if (serializer_ == Serializer::kMsgpack) {
    PackArrayHeader(out, static_cast<std::uint32_t>(tasks.size()));
    for (int t : tasks) PackInt(out, t);
    return;
  }
  out += '[';
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    if (i) out += ',';
    AppendJsonInt(out, tasks[i]);
  }
  out += ']';
  Frame(out);
}

std::optional<std::string> HostEncoder::SpoutCommand(std::string& out, std::string_view command,
                                                     std::string_view id_json) const {
  if (serializer_ == Serializer::kMsgpack) {
    const std::size_t mark = out.size();
    PackMapHeader(out, 2);
    PackString(out, "command");
    PackString(out, command);
    PackString(out, "id");
    if (auto err = AppendJsonAsMsgpack(out, id_json)) {
      out.resize(mark);
      return err;
    }
    return std::nullopt;
  }
  out += "{\"command\":";
  AppendJsonString(out, command);
  out += ",\"id\":";
  out += id_json;
  out += '}';
  Frame(out);
  return std::nullopt;
}

}  // namespace sparse::multilang
