// Which serializer a shell component speaks, from the places a user may say it, strongest first:
//   1. the component's own `serializer:` in sparse YAML;
//   2. its command, as streamparse runs components: `-s msgpack`, `--serializer msgpack`,
//      `--serializer=msgpack`;
//   3. `topology.multilang.serializer` in its effective config (component over topology), a
//      Storm serializer class name or json/msgpack.
// JSON when none says otherwise. One rule for validation (which reports a bad name with its
// file and line) and for the plan (which uses the result).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "multilang/serializer.hpp"
#include "runtime/topology.hpp"

namespace sparse::runtime {

struct SerializerChoice {
  multilang::Serializer serializer = multilang::Serializer::kJson;
  std::optional<std::string> error;  // a name that is neither JSON nor MessagePack, and where
};

SerializerChoice ChooseSerializer(const ComponentDef& def, const nlohmann::json& effective_config);

}  // namespace sparse::runtime
