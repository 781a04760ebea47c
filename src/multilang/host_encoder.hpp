// Every message the runtime writes to a component, in the component's serializer: the one place
// that knows the wire shapes of host -> component messages and how each encoding frames them
// (JSON: the document and a line `end`; MessagePack: one self-delimiting value).
//
// Each method appends one complete message to `out`, so many can be gathered into one write.
// Values the runtime holds as JSON text (tuple values, spout message ids, the handshake) are
// transcoded for MessagePack; they were validated when they entered the runtime, so a failure
// there is reported as a value, never thrown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "multilang/serializer.hpp"

namespace sparse::multilang {

class HostEncoder {
 public:
  explicit HostEncoder(Serializer serializer = Serializer::kJson) : serializer_(serializer) {}
  Serializer serializer() const { return serializer_; }

  // Any message given as JSON text (the handshake).
  std::optional<std::string> Json(std::string& out, std::string_view json) const;

  // A tuple to a bolt: {"id": "<id>", "comp", "stream", "task", "tuple": values}.
  std::optional<std::string> Tuple(std::string& out, std::uint64_t id, std::string_view comp,
                                   std::string_view stream, std::int64_t task,
                                   std::string_view values_json) const;
  // A tick tuple: comp "__system", stream "__tick", task -1, tuple [freq_secs].
  void Tick(std::string& out, std::uint64_t id, std::int64_t freq_secs) const;
  // A heartbeat: comp null, stream "__heartbeat", task -1, tuple [].
  void Heartbeat(std::string& out, std::uint64_t id) const;
  // The reply to an emit that asked for task ids: a bare array.
  void TaskIds(std::string& out, const std::vector<int>& tasks) const;
  // A spout command: {"command": next|activate|deactivate, "id": ""}, or ack/fail with the
  // message id the spout emitted (`id_json`, JSON text of any value).
  std::optional<std::string> SpoutCommand(std::string& out, std::string_view command,
                                          std::string_view id_json = "\"\"") const;

 private:
  void Frame(std::string& out) const;
  Serializer serializer_;
};

}  // namespace sparse::multilang
