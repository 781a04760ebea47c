#include "kafka/rdkafka_handles.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <nlohmann/json.hpp>

namespace sparse::kafka {

std::optional<std::string> SetProperty(rd_kafka_conf_t* conf, const std::string& key,
                                       const std::string& value) {
  char err[512];
  if (rd_kafka_conf_set(conf, key.c_str(), value.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
    return std::string(err);
  }
  return std::nullopt;
}

std::optional<std::string> PropertyText(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_number_integer()) return value.dump();
  if (value.is_number_float()) {
    // librdkafka has no fractional properties except a few (e.g. *.backoff.jitter); keep the text.
    return value.dump();
  }
  return std::nullopt;
}

std::optional<std::string> ApplyProperties(rd_kafka_conf_t* conf, const nlohmann::json& props) {
  if (props.is_null()) return std::nullopt;
  if (!props.is_object()) return std::string("properties: expected a mapping of librdkafka keys");
  for (const auto& [key, value] : props.items()) {
    auto text = PropertyText(value);
    if (!text) return "properties." + key + ": expected a string, number or boolean";
    if (auto err = SetProperty(conf, key, *text)) return "properties." + key + ": " + *err;
  }
  return std::nullopt;
}

std::optional<std::string> SetDefault(rd_kafka_conf_t* conf, const nlohmann::json& user_props,
                                      const std::string& key, const std::string& value) {
  if (user_props.is_object() && user_props.contains(key)) return std::nullopt;
  return SetProperty(conf, key, value);
}

std::optional<std::int64_t> IntProperty(const rd_kafka_conf_t* conf, const std::string& key) {
  char text[64];
  std::size_t size = sizeof text;
  if (rd_kafka_conf_get(conf, key.c_str(), text, &size) != RD_KAFKA_CONF_OK) return std::nullopt;
  std::int64_t value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc() || ptr != end || ptr == text) return std::nullopt;
  return value;
}

ClientPtr NewClient(rd_kafka_type_t type, ConfPtr conf, std::string& error) {
  char err[512];
  rd_kafka_t* rk = rd_kafka_new(type, conf.get(), err, sizeof err);
  if (!rk) {
    error = err;
    return nullptr;  // conf is still ours on failure: the unique_ptr frees it
  }
  static_cast<void>(conf.release());  // owned by the client now
  return ClientPtr(rk);
}

rd_kafka_resp_err_t Produce(rd_kafka_t* producer, const OutRecord& record) {
  std::array<rd_kafka_vu_t, 7> args{};
  std::size_t n = 0;
  auto add = [&](rd_kafka_vtype_t type) -> rd_kafka_vu_t& {
    args[n].vtype = type;
    return args[n++];
  };
  // librdkafka's argument union takes non-const memory; with RD_KAFKA_MSG_F_COPY it only reads it.
  auto add_bytes = [&](rd_kafka_vtype_t type, std::string_view bytes) {
    auto& mem = add(type).u.mem;
    mem.ptr = const_cast<char*>(bytes.data());
    mem.size = bytes.size();
  };
  add(RD_KAFKA_VTYPE_TOPIC).u.cstr = record.topic;
  add(RD_KAFKA_VTYPE_PARTITION).u.i32 = record.partition;
  if (record.key) add_bytes(RD_KAFKA_VTYPE_KEY, *record.key);
  if (record.value) add_bytes(RD_KAFKA_VTYPE_VALUE, *record.value);
  add(RD_KAFKA_VTYPE_MSGFLAGS).u.i = RD_KAFKA_MSG_F_COPY;
  if (record.headers) add(RD_KAFKA_VTYPE_HEADERS).u.headers = record.headers;
  if (record.opaque) add(RD_KAFKA_VTYPE_OPAQUE).u.ptr = record.opaque;
  const ErrorPtr error(rd_kafka_produceva(producer, args.data(), n));
  return error ? rd_kafka_error_code(error.get()) : RD_KAFKA_RESP_ERR_NO_ERROR;
}

}  // namespace sparse::kafka
