#include "storm/convert.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "multilang/serializer.hpp"
#include "runtime/config.hpp"
#include "storm/launcher.hpp"

namespace sparse::storm {

namespace {

using runtime::ComponentDef;
using runtime::Diagnostic;
using runtime::GroupingType;
using runtime::Topology;

gen::Grouping ToGrouping(const runtime::Grouping& g) {
  gen::Grouping out;
  switch (g.type) {
    case GroupingType::kShuffle:
      out.__set_shuffle(gen::NullStruct());
      break;
    case GroupingType::kFields:
    case GroupingType::kPartialKey:
      out.__set_fields(g.fields);
      break;
    case GroupingType::kGlobal:
      out.__set_fields({});
      break;
    case GroupingType::kAll:
      out.__set_all(gen::NullStruct());
      break;
    case GroupingType::kNone:
      out.__set_none(gen::NullStruct());
      break;
    case GroupingType::kDirect:
      out.__set_direct(gen::NullStruct());
      break;
    case GroupingType::kLocalOrShuffle:
      out.__set_local_or_shuffle(gen::NullStruct());
      break;
  }
  return out;
}

std::string JoinFields(const std::vector<std::string>& fields) {
  std::string out;
  for (const auto& f : fields) out += (out.empty() ? "" : ", ") + f;
  return out;
}

gen::ComponentCommon ToCommon(const ComponentDef& c, const nlohmann::json& overrides,
                              std::vector<Diagnostic>& warnings) {
  gen::ComponentCommon common;
  for (const auto& s : c.streams) {
    gen::StreamInfo info;
    info.__set_output_fields(s.fields);
    info.__set_direct(s.direct);
    common.streams[s.id] = std::move(info);
  }
  for (const auto& in : c.inputs) {
    gen::GlobalStreamId id;
    id.__set_componentId(in.component);
    id.__set_streamId(in.stream);
    common.inputs[id] = ToGrouping(in.grouping);
    if (in.grouping.type == GroupingType::kPartialKey) {
      warnings.push_back(
          {in.where, "`" + c.id + "` reads `" + in.component + "` with partial_key grouping, " +
                         "which Storm offers only as a Java class: it is submitted as fields " +
                         "grouping on [" + JoinFields(in.grouping.fields) +
                         "] (each key still goes to one task; the load is not split in two)"});
    }
  }
  common.__set_parallelism_hint(c.parallelism);
  if (!c.serializer.empty() &&
      multilang::ParseSerializerName(c.serializer) == multilang::Serializer::kMsgpack) {
    // A worker's ShellBolt speaks what topology.multilang.serializer names; YAML's per-component
    // `serializer` means nothing to it.
    warnings.push_back(
        {c.where, "`" + c.id + "` speaks MessagePack (`serializer: msgpack`), but a Storm " +
                      "worker speaks what topology.multilang.serializer names (Storm ships " +
                      "only JSON): on the cluster, set that key to a MessagePack serializer " +
                      "class your workers have, or let the component speak JSON"});
  }
  nlohmann::json conf = c.config;
  for (auto it = overrides.begin(); it != overrides.end(); ++it) {
    if (conf.contains(it.key())) conf[it.key()] = it.value();
  }
  if (!conf.empty()) common.__set_json_conf(NormalizeNumbers(std::move(conf)).dump());
  return common;
}

// Whether a worker talks JSON to `c`: topology.multilang.serializer from the overrides, else the
// component's config, else the topology's; Storm's default is its JsonSerializer.
bool SpeaksJsonOnStorm(const Topology& topology, const ComponentDef& c,
                       const nlohmann::json& overrides) {
  constexpr const char* kKey = "topology.multilang.serializer";
  for (const nlohmann::json* conf : {&overrides, &c.config, &topology.config}) {
    if (conf->is_object() && conf->contains(kKey)) {
      const auto& v = (*conf)[kKey];
      return !v.is_string() || v.get<std::string>() == "org.apache.storm.multilang.JsonSerializer";
    }
  }
  return true;
}

// Storm 2.6 moved its multilang JSON to json-smart, which reads a small number as an Integer,
// and its JsonSerializer still casts an emit's `task` to Long: every direct emit of a shell
// component throws ClassCastException and the worker dies (seen on a real 2.8.3 cluster; the
// cast is unchanged up to 2.8.8). No JSON spelling of a task id reads as a Long, so sparse can
// only say so.
void WarnDirectStreams(const ComponentDef& c, std::vector<Diagnostic>& warnings) {
  for (const auto& s : c.streams) {
    if (!s.direct) continue;
    warnings.push_back(
        {s.where, "`" + c.id + "` declares the direct stream `" + s.id +
                      "`: Storm 2.6 and later fail a shell component's direct emit under the " +
                      "JSON serializer (ClassCastException: Integer cannot be cast to Long; the " +
                      "worker dies), so on such a cluster set topology.multilang.serializer to " +
                      "another serializer your workers have, or use another grouping"});
  }
}

nlohmann::json StreamsJson(const ComponentDef& c) {
  nlohmann::json streams = nlohmann::json::object();
  for (const auto& s : c.streams) {
    nlohmann::json fields = s.fields;
    if (s.direct) {
      streams[s.id] = {{"fields", std::move(fields)}, {"direct", true}};
    } else {
      streams[s.id] = std::move(fields);
    }
  }
  return streams;
}

nlohmann::json ComponentJson(const ComponentDef& c) {
  nlohmann::json j = {{"id", c.id}, {"parallelism", c.parallelism}};
  if (!c.command.empty()) j["command"] = c.command;
  if (!c.serializer.empty()) j["serializer"] = c.serializer;
  if (!c.builtin.empty()) {
    j["builtin"] = c.builtin;
    if (!c.builtin_options.empty()) j["options"] = c.builtin_options;
  }
  if (!c.streams.empty()) j["streams"] = StreamsJson(c);
  if (!c.config.empty()) j["config"] = c.config;
  if (!c.inputs.empty()) {
    nlohmann::json inputs = nlohmann::json::array();
    for (const auto& in : c.inputs) {
      nlohmann::json i = {{"from", in.component},
                          {"stream", in.stream},
                          {"grouping", std::string(runtime::GroupingName(in.grouping.type))}};
      if (!in.grouping.fields.empty()) i["fields"] = in.grouping.fields;
      inputs.push_back(std::move(i));
    }
    j["inputs"] = std::move(inputs);
  }
  return j;
}

// What a Storm cluster offers instead of a built-in, for submit's refusal: the built-in's own
// word when it has one (BuiltinInfo::on_storm, kept with its registration), else the general one.
std::string OnStormInstead(const std::string& builtin, const runtime::BuiltinRegistry* builtins) {
  if (builtins) {
    if (const runtime::BuiltinInfo* info = builtins->Find(builtin);
        info && !info->on_storm.empty()) {
      return "; " + info->on_storm;
    }
  }
  return "; replace it with a shell component (`command:`) to submit this topology";
}

}  // namespace

std::vector<Diagnostic> CheckSubmittable(const Topology& topology,
                                         const runtime::BuiltinRegistry* builtins) {
  std::vector<Diagnostic> out;
  for (const auto& c : topology.components) {
    if (!c.builtin.empty()) {
      out.push_back({c.where, "component `" + c.id + "` is sparse's built-in `" + c.builtin +
                                  "`, which runs inside sparse's runtime and has no program a " +
                                  "Storm worker could start" +
                                  OnStormInstead(c.builtin, builtins)});
    }
    std::map<std::pair<std::string, std::string>, const runtime::InputDef*> seen;
    for (const auto& in : c.inputs) {
      auto [it, inserted] = seen.emplace(std::make_pair(in.component, in.stream), &in);
      if (!inserted) {
        out.push_back({in.where, "`" + c.id + "` subscribes to stream `" + in.stream + "` of `" +
                                     in.component + "` twice (first at " +
                                     it->second->where.ToString() +
                                     "); Storm keeps one grouping per stream and subscriber"});
      }
    }
  }
  return out;
}

std::optional<std::string> CheckTopologyName(const std::string& name) {
  if (name.empty()) return "the topology name is empty";
  if (name.find_first_of("/.:\\") != std::string::npos) {
    return "topology name `" + name + "` must not contain any of / . : \\ (Nimbus refuses them)";
  }
  // Nimbus names the topology's blobs `<id>-stormjar.jar` etc., and its blob store takes only
  // [A-Za-z0-9_ \t.-] in a key (anything else fails the submit with an internal error), while a
  // supervisor keeps a topology in a folder named by the URL-encoded id, so a space or tab makes it
  // fail when the topology is killed (Storm 2.8.3: the supervisor exits). Letters, digits, '-' and
  // '_' are safe everywhere.
  for (const char c : name) {
    const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_';
    if (!safe) {
      return "topology name `" + name +
             "` may use only letters, digits, '-' and '_' (Storm's blob store refuses other "
             "characters, and a supervisor fails on spaces)";
    }
  }
  return std::nullopt;
}

Conversion ToStormTopology(const Topology& topology, const nlohmann::json& overrides) {
  if (auto problems = CheckSubmittable(topology); !problems.empty()) {
    throw runtime::TopologyError(std::move(problems));
  }
  Conversion out;
  out.topology.state_spouts.clear();
  for (const auto& c : topology.components) {
    if (SpeaksJsonOnStorm(topology, c, overrides)) WarnDirectStreams(c, out.warnings);
    const auto argv = LauncherArgv(c.id);
    gen::ShellComponent shell;
    shell.__set_execution_command(argv[0]);
    shell.__set_script(argv[1]);
    gen::ComponentObject object;
    object.__set_shell(shell);
    if (c.is_spout()) {
      gen::SpoutSpec spec;
      spec.__set_spout_object(object);
      spec.__set_common(ToCommon(c, overrides, out.warnings));
      out.topology.spouts[c.id] = std::move(spec);
    } else {
      gen::Bolt bolt;
      bolt.__set_bolt_object(object);
      bolt.__set_common(ToCommon(c, overrides, out.warnings));
      out.topology.bolts[c.id] = std::move(bolt);
    }
  }
  return out;
}

nlohmann::json NormalizeNumbers(nlohmann::json value) {
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && std::trunc(d) == d &&
        std::fabs(d) < static_cast<double>(std::numeric_limits<std::int64_t>::max())) {
      return static_cast<std::int64_t>(d);
    }
    return value;
  }
  if (value.is_object() || value.is_array()) {
    for (auto& el : value) el = NormalizeNumbers(std::move(el));
  }
  return value;
}

nlohmann::json MakeJsonConf(const Topology& topology, const nlohmann::json& environment,
                            const nlohmann::json& overrides) {
  nlohmann::json conf = nlohmann::json::object();
  runtime::MergeConfig(conf, topology.config);
  runtime::MergeConfig(conf, environment);
  runtime::MergeConfig(conf, overrides);
  return NormalizeNumbers(std::move(conf));
}

Topology LauncherForm(const Topology& topology) {
  Topology out = topology;
  for (auto& c : out.components) {
    if (c.builtin.empty()) c.command = LauncherArgv(c.id);
  }
  return out;
}

std::string TopologyYaml(const Topology& topology, const std::string& header_comment) {
  nlohmann::json j = {{"name", topology.name}};
  if (!topology.config.empty()) j["config"] = topology.config;
  nlohmann::json spouts = nlohmann::json::array();
  nlohmann::json bolts = nlohmann::json::array();
  for (const auto& c : topology.components) {
    (c.is_spout() ? spouts : bolts).push_back(ComponentJson(c));
  }
  j["spouts"] = std::move(spouts);
  j["bolts"] = std::move(bolts);
  std::string text;
  std::string line;
  for (char ch : header_comment) {
    if (ch == '\n') {
      text += "# " + line + "\n";
      line.clear();
    } else {
      line.push_back(ch);
    }
  }
  if (!line.empty()) text += "# " + line + "\n";
  return text + j.dump(2) + "\n";
}

}  // namespace sparse::storm
