#include "runtime/topology_loader.hpp"

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

#include "runtime/builtin.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/yaml_json.hpp"

namespace sparse::runtime {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kFluxShellSpout = "org.apache.storm.flux.wrappers.spouts.FluxShellSpout";
constexpr std::string_view kFluxShellBolt = "org.apache.storm.flux.wrappers.bolts.FluxShellBolt";

std::string JoinMessages(const std::vector<Diagnostic>& d) {
  std::string r;
  for (const auto& x : d) {
    if (!r.empty()) r += "\n";
    r += x.ToString();
  }
  return r;
}

class Loader {
 public:
  Loader(std::string file, const BuiltinRegistry& builtins)
      : file_(std::move(file)), builtins_(builtins) {}

  Topology Load(const std::string& text) {
    try {
      return LoadYaml(text);
    } catch (const YAML::Exception& e) {
      // A shape the checks below did not foresee (a mapping where a scalar was expected, a key
      // that is not a string...): still an error at a line of the file, not a bare exception.
      if (e.mark.is_null()) {
        Error(0, "unexpected YAML structure: " + e.msg);
      } else {
        Error(e.mark.line + 1, "unexpected YAML structure: " + e.msg);
      }
      Throw();
    }
  }

 private:
  Topology LoadYaml(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      Error(e.mark.line + 1, "YAML syntax error: " + e.msg);
      Throw();
    }
    Topology t;
    if (!root.IsMap()) {
      Error(root, "a topology file must be a mapping with `name`, `spouts` and `bolts`");
      Throw();
    }
    t.flux = IsFlux(root);
    for (const auto& kv : root) {
      const std::string key = kv.first.as<std::string>();
      static const std::vector<std::string> known = {"name",    "config",     "spouts",  "bolts",
                                                     "streams", "components", "includes"};
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        Error(kv.first, "unknown top-level key `" + key + "`");
      }
    }
    if (root["name"]) {
      t.name = Scalar(root["name"], "name");
    } else {
      Error(root, "missing `name`");
    }
    if (root["config"]) {
      if (!root["config"].IsMap()) {
        Error(root["config"], "`config` must be a mapping of config keys to values");
      } else {
        t.config = Json(root["config"], "config");
        KeyLines(root["config"], t.config_where);
      }
    }
    if (root["includes"]) Error(root["includes"], "Flux `includes` are not supported yet");
    if (root["components"] && root["components"].size() > 0) {
      Error(root["components"], "Flux `components` (Java objects) are not supported");
    }
    LoadComponents(root["spouts"], ComponentKind::kSpout, t);
    LoadComponents(root["bolts"], ComponentKind::kBolt, t);
    if (t.flux) {
      LoadFluxStreams(root["streams"], t);
    } else if (root["streams"]) {
      Error(root["streams"],
            "top-level `streams` is Flux syntax; in sparse's form put `inputs` on each bolt");
    }
    if (!diagnostics_.empty()) Throw();
    return t;
  }

  static bool IsFlux(const YAML::Node& root) {
    for (const char* section : {"spouts", "bolts"}) {
      const auto& list = root[section];
      if (!list || !list.IsSequence()) continue;
      for (const auto& c : list) {
        if (c.IsMap() && c["className"]) return true;
      }
    }
    return root["streams"] && root["streams"].IsSequence();
  }

  int Line(const YAML::Node& n) const { return n.Mark().line >= 0 ? n.Mark().line + 1 : 0; }
  SourceLocation Where(const YAML::Node& n) const { return {file_, Line(n)}; }
  void Error(int line, std::string msg) { diagnostics_.push_back({{file_, line}, std::move(msg)}); }
  void Error(const YAML::Node& n, std::string msg) { Error(Line(n), std::move(msg)); }
  [[noreturn]] void Throw() { throw TopologyError(diagnostics_); }

  // The value as JSON; one that expands past YamlToJson's limits (an alias bomb) is an error at
  // its line, and null.
  nlohmann::json Json(const YAML::Node& n, std::string_view what) {
    try {
      return YamlToJson(n);
    } catch (const YamlTooLarge& e) {
      Error(n, "`" + std::string(what) + "` " + e.what());
      return nullptr;
    }
  }

  // Where each key of a config mapping is written, for errors about its value.
  void KeyLines(const YAML::Node& map, std::map<std::string, SourceLocation>& out) const {
    for (const auto& kv : map) {
      if (kv.first.IsScalar()) out[kv.first.Scalar()] = Where(kv.first);
    }
  }

  std::string Scalar(const YAML::Node& n, std::string_view what) {
    if (!n.IsScalar()) {
      Error(n, "`" + std::string(what) + "` must be a string");
      return {};
    }
    return n.Scalar();
  }

  std::vector<std::string> StringList(const YAML::Node& n, std::string_view what) {
    std::vector<std::string> out;
    if (n.IsScalar()) {
      out.push_back(n.Scalar());
      return out;
    }
    if (!n.IsSequence()) {
      Error(n, "`" + std::string(what) + "` must be a list of strings");
      return out;
    }
    for (const auto& el : n) {
      if (!el.IsScalar()) {
        Error(el, "`" + std::string(what) + "` must be a list of strings");
        continue;
      }
      out.push_back(el.Scalar());
    }
    return out;
  }

  int Parallelism(const YAML::Node& n) {
    try {
      int p = n.as<int>();
      if (p < 1) Error(n, "`parallelism` must be at least 1");
      return std::max(p, 1);
    } catch (const YAML::Exception&) {
      Error(n, "`parallelism` must be an integer");
      return 1;
    }
  }

  void LoadComponents(const YAML::Node& list, ComponentKind kind, Topology& t) {
    if (!list) return;
    const char* section = kind == ComponentKind::kSpout ? "spouts" : "bolts";
    if (!list.IsSequence()) {
      Error(list, std::string("`") + section + "` must be a list of components");
      return;
    }
    for (const auto& node : list) {
      if (!node.IsMap()) {
        Error(node, std::string("each entry of `") + section + "` must be a mapping");
        continue;
      }
      ComponentDef c;
      c.kind = kind;
      c.where = Where(node);
      if (node["id"]) {
        c.id = Scalar(node["id"], "id");
      } else {
        Error(node, std::string("a component in `") + section + "` has no `id`");
      }
      if (node["parallelism"]) c.parallelism = Parallelism(node["parallelism"]);
      if (node["config"]) {
        if (node["config"].IsMap()) {
          c.config = Json(node["config"], "config");
          KeyLines(node["config"], c.config_where);
        } else {
          Error(node["config"], "`config` must be a mapping");
        }
      }
      if (t.flux) {
        LoadFluxComponent(node, c);
      } else {
        LoadSparseComponent(node, c);
      }
      t.components.push_back(std::move(c));
    }
  }

  void LoadStreamsMap(const YAML::Node& streams, ComponentDef& c) {
    if (!streams.IsMap()) {
      Error(streams, "`streams` must map stream ids to field lists");
      return;
    }
    for (const auto& kv : streams) {
      StreamDef s;
      s.id = kv.first.as<std::string>();
      s.where = Where(kv.first);
      const auto& v = kv.second;
      if (v.IsMap()) {
        if (v["fields"]) s.fields = StringList(v["fields"], "fields");
        if (v["direct"]) {
          try {
            s.direct = v["direct"].as<bool>();
          } catch (const YAML::Exception&) {
            Error(v["direct"], "`direct` must be true or false");
          }
        }
        for (const auto& f : v) {
          auto k = f.first.as<std::string>();
          if (k != "fields" && k != "direct") Error(f.first, "unknown stream key `" + k + "`");
        }
      } else if (v.IsNull()) {
      } else {
        s.fields = StringList(v, "fields");
      }
      c.streams.push_back(std::move(s));
    }
  }

  void LoadSparseComponent(const YAML::Node& node, ComponentDef& c) {
    static const std::vector<std::string> known = {"id",      "command",   "parallelism", "streams",
                                                   "outputs", "inputs",    "config",      "builtin",
                                                   "options", "serializer"};
    for (const auto& kv : node) {
      auto k = kv.first.as<std::string>();
      if (std::find(known.begin(), known.end(), k) == known.end()) {
        Error(kv.first, "unknown key `" + k + "` in component `" + c.id + "`");
      }
    }
    if (node["command"]) {
      const auto& cmd = node["command"];
      if (cmd.IsScalar()) {
        // A string is split on whitespace; use a list for arguments containing spaces.
        std::istringstream in(cmd.Scalar());
        std::string word;
        while (in >> word) c.command.push_back(word);
      } else {
        c.command = StringList(cmd, "command");
      }
    }
    if (node["serializer"]) c.serializer = Scalar(node["serializer"], "serializer");
    if (node["builtin"]) {
      c.builtin = Scalar(node["builtin"], "builtin");
      if (node["options"]) c.builtin_options = Json(node["options"], "options");
      if (!c.command.empty())
        Error(node["builtin"], "a component has either `command` or `builtin`");
    } else if (node["options"]) {
      Error(node["options"], "`options` is only for built-in components");
    }
    if (node["outputs"]) {
      StreamDef s;
      s.id = "default";
      s.where = Where(node["outputs"]);
      s.fields = StringList(node["outputs"], "outputs");
      c.streams.push_back(std::move(s));
    }
    if (node["streams"]) LoadStreamsMap(node["streams"], c);
    if (node["inputs"]) {
      const auto& inputs = node["inputs"];
      if (!inputs.IsSequence()) {
        Error(inputs, "`inputs` must be a list of {from, stream, grouping, fields}");
      } else {
        for (const auto& in : inputs) LoadSparseInput(in, c);
      }
    }
    DeclareBuiltinStreams(node, c);
  }

  void LoadSparseInput(const YAML::Node& in, ComponentDef& c) {
    InputDef input;
    input.where = Where(in);
    if (in.IsScalar()) {  // "- words": shuffle from the default stream
      input.component = in.Scalar();
      c.inputs.push_back(std::move(input));
      return;
    }
    if (!in.IsMap()) {
      Error(in, "an input must be a mapping {from, stream, grouping, fields}");
      return;
    }
    for (const auto& kv : in) {
      auto k = kv.first.as<std::string>();
      if (k != "from" && k != "component" && k != "stream" && k != "grouping" && k != "fields") {
        Error(kv.first, "unknown input key `" + k + "`");
      }
    }
    if (in["from"]) {
      input.component = Scalar(in["from"], "from");
    } else if (in["component"]) {
      input.component = Scalar(in["component"], "component");
    } else {
      Error(in, "an input of `" + c.id + "` has no `from`");
    }
    if (in["stream"]) input.stream = Scalar(in["stream"], "stream");
    if (in["grouping"]) {
      const auto& g = in["grouping"];
      std::string name;
      if (g.IsMap()) {
        name = g["type"] ? Scalar(g["type"], "type") : "";
        if (g["fields"]) input.grouping.fields = StringList(g["fields"], "fields");
      } else {
        name = Scalar(g, "grouping");
      }
      if (auto type = ParseGroupingName(name)) {
        input.grouping.type = *type;
      } else {
        Error(g,
              "unknown grouping `" + name +
                  "` (shuffle, fields, all, global, none, direct, local_or_shuffle, partial_key)");
      }
    }
    if (in["fields"]) input.grouping.fields = StringList(in["fields"], "fields");
    c.inputs.push_back(std::move(input));
  }

  void DeclareBuiltinStreams(const YAML::Node& node, ComponentDef& c) {
    if (c.builtin.empty()) return;
    const BuiltinInfo* info = builtins_.Find(c.builtin);
    if (!info) {
      std::string names;
      for (const auto& n : builtins_.Names()) names += (names.empty() ? "" : ", ") + n;
      Error(node["builtin"] ? node["builtin"] : node,
            "unknown built-in component `" + c.builtin + "` (known: " + names + ")");
      return;
    }
    if (info->kind != c.kind) {
      Error(node, "built-in `" + c.builtin + "` is a " +
                      (info->kind == ComponentKind::kSpout ? "spout" : "bolt") +
                      " and cannot be listed here");
    }
    if (c.streams.empty() && info->declare_streams) {
      std::string err;
      c.streams = info->declare_streams(c.builtin_options, err);
      for (auto& s : c.streams) s.where = c.where;
      if (!err.empty()) Error(node["options"] ? node["options"] : node, c.builtin + ": " + err);
    }
  }

  void LoadFluxComponent(const YAML::Node& node, ComponentDef& c) {
    std::string cls = node["className"] ? Scalar(node["className"], "className") : "";
    if (cls.empty()) {
      Error(node, "Flux component `" + c.id + "` has no `className`");
      return;
    }
    const bool shell = (c.kind == ComponentKind::kSpout && cls == kFluxShellSpout) ||
                       (c.kind == ComponentKind::kBolt && cls == kFluxShellBolt);
    if (!shell) {
      const BuiltinInfo* info = builtins_.FindByClass(cls);
      if (!info) {
        Error(node["className"],
              "Java class `" + cls + "` cannot run under sparse: use " +
                  std::string(c.kind == ComponentKind::kSpout ? kFluxShellSpout : kFluxShellBolt));
        return;
      }
      c.builtin = info->name;
      if (node["constructorArgs"])
        c.builtin_options["constructorArgs"] = Json(node["constructorArgs"], "constructorArgs");
      DeclareBuiltinStreams(node, c);
      return;
    }
    const auto& args = node["constructorArgs"];
    if (!args || !args.IsSequence() || args.size() < 1) {
      Error(node, "`" + c.id + "`: constructorArgs must be [[command, script...], [fields...]]");
      return;
    }
    c.command = StringList(args[0], "constructorArgs[0] (command)");
    if (args.size() >= 2) {
      StreamDef s;
      s.id = "default";
      s.where = Where(args[1]);
      if (args[1].IsMap()) {
        // Later Flux versions accept a map of stream -> fields.
        LoadStreamsMap(args[1], c);
      } else {
        s.fields = StringList(args[1], "constructorArgs[1] (output fields)");
        c.streams.push_back(std::move(s));
      }
    }
    if (const auto& methods = node["configMethods"]) {
      for (const auto& m : methods) {
        std::string name = m["name"] ? Scalar(m["name"], "name") : "";
        const auto& margs = m["args"];
        if (name == "setDefaultStream" && margs && margs.size() >= 1) {
          SetStream(c, "default", StringList(margs[0], "args"), Where(m));
        } else if (name == "setNamedStream" && margs && margs.size() >= 2) {
          SetStream(c, Scalar(margs[0], "stream"), StringList(margs[1], "args"), Where(m));
        } else if (name == "addComponentConfig" && margs && margs.size() >= 2) {
          const std::string key = Scalar(margs[0], "key");
          c.config[key] = Json(margs[1], "args");
          c.config_where[key] = Where(m);
        } else {
          Error(m, "unsupported configMethod `" + name + "` on `" + c.id + "`");
        }
      }
    }
  }

  static void SetStream(ComponentDef& c, const std::string& id, std::vector<std::string> fields,
                        SourceLocation where) {
    for (auto& s : c.streams) {
      if (s.id == id) {
        s.fields = std::move(fields);
        return;
      }
    }
    c.streams.push_back({id, std::move(fields), false, std::move(where)});
  }

  void LoadFluxStreams(const YAML::Node& streams, Topology& t) {
    if (!streams) return;
    if (!streams.IsSequence()) {
      Error(streams, "`streams` must be a list of {from, to, grouping}");
      return;
    }
    for (const auto& s : streams) {
      InputDef input;
      input.where = Where(s);
      std::string to = s["to"] ? Scalar(s["to"], "to") : "";
      if (s["from"]) {
        input.component = Scalar(s["from"], "from");
      } else {
        Error(s, "a stream has no `from`");
      }
      if (to.empty()) Error(s, "a stream has no `to`");
      const auto& g = s["grouping"];
      if (!g || !g.IsMap()) {
        Error(s, "a stream needs `grouping: {type: ...}`");
        continue;
      }
      std::string type = g["type"] ? Scalar(g["type"], "type") : "";
      if (type == "CUSTOM") {
        Error(g, "CUSTOM groupings (Java classes) are not supported");
        continue;
      }
      if (auto gt = ParseGroupingName(type)) {
        input.grouping.type = *gt;
      } else {
        Error(g["type"] ? g["type"] : g, "unknown grouping type `" + type + "`");
        continue;
      }
      if (g["args"]) input.grouping.fields = StringList(g["args"], "args");
      if (g["streamId"]) input.stream = Scalar(g["streamId"], "streamId");
      bool found = false;
      for (auto& c : t.components) {
        if (c.id == to) {
          c.inputs.push_back(input);
          found = true;
        }
      }
      if (!found && !to.empty()) {
        Error(s["to"], "stream target `" + to + "` is not a declared spout or bolt");
      }
    }
  }

  std::string file_;
  const BuiltinRegistry& builtins_;
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace

TopologyError::TopologyError(std::vector<Diagnostic> diagnostics)
    : base::Error(base::Errc::kInvalidTopology, JoinMessages(diagnostics)),
      diagnostics_(std::move(diagnostics)) {}

Topology LoadTopologyFromString(const std::string& yaml, const fs::path& file,
                                const BuiltinRegistry& builtins) {
  Loader loader(file.string(), builtins);
  Topology t = loader.Load(yaml);
  std::error_code ec;
  t.file = fs::absolute(file, ec);
  t.resources_dir = t.file.parent_path();
  return t;
}

Topology LoadTopology(const fs::path& file, const BuiltinRegistry& builtins) {
  std::ifstream in(file);
  if (!in) {
    throw TopologyError({{{file.string(), 0}, "cannot read topology file"}});
  }
  std::stringstream buf;
  buf << in.rdbuf();
  return LoadTopologyFromString(buf.str(), file, builtins);
}

}  // namespace sparse::runtime
