#include "cli/streamparse_project.hpp"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

// Environment keys and why each is ignored (streamparse's meaning has no counterpart here).
const char* IgnoredEnvKeyReason(const std::string& key) {
  static const std::set<std::string> ssh = {"user", "ssh_password", "use_ssh_for_nimbus",
                                            "ssh_port", "sudo_user"};
  static const std::set<std::string> venv = {"virtualenv_root", "use_virtualenv",
                                             "install_virtualenv", "virtualenv_flags",
                                             "virtualenv_name"};
  if (ssh.count(key)) return "sparse reaches Nimbus over Thrift itself, never over SSH";
  if (venv.count(key)) {
    return "sparse builds no virtualenvs on workers: the requirements travel in the jar";
  }
  if (key == "log" || key == "log_path" || key == "log_file") {
    return "component logs are the runtime's (logs/ locally, Storm's worker logs on a cluster)";
  }
  return nullptr;
}

std::string ReadText(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  std::stringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

// config.json as YAML nodes (JSON is YAML, and the nodes keep their lines for messages); JSON
// that yaml-cpp reads differently (tabs) goes through nlohmann first, without lines.
YAML::Node LoadJsonAsYaml(const fs::path& file) {
  const std::string text = ReadText(file);
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(file.string() + ": not valid JSON: " + e.what());
  }
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception&) {
    return YAML::Load(parsed.dump(2));
  }
}

}  // namespace

bool IsStreamparseConfig(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return false;
  try {
    const auto j = nlohmann::json::parse(ReadText(file));
    return j.is_object() && (j.contains("envs") || j.contains("topology_specs"));
  } catch (const std::exception&) {
    return false;
  }
}

void LoadStreamparseProject(Project& p) {
  p.streamparse = true;
  p.config_file = p.root / "config.json";
  const fs::path& file = p.config_file;
  const YAML::Node in = LoadJsonAsYaml(file);
  if (!in.IsMap()) throw std::runtime_error(file.string() + ": must be a JSON object");
  p.name = p.root.filename().string();
  std::string specs = "topologies";
  if (in["topology_specs"]) {
    if (!in["topology_specs"].IsScalar()) {
      throw std::runtime_error(YamlWhere(file, in["topology_specs"]) +
                               ": `topology_specs` must be a folder name");
    }
    specs = in["topology_specs"].Scalar();
  }
  p.topologies_dir = p.root / specs;
  p.resources_dir = p.root / "src";
  YAML::Node config(YAML::NodeType::Map);
  config["project"] = p.name;
  config["topologies"] = specs;
  config["resources"] = "src";

  std::vector<std::string> ignored;  // "key (why)"
  auto serializer_of = [&](const YAML::Node& node) {
    if (!node.IsScalar()) {
      throw std::runtime_error(YamlWhere(file, node) + ": `serializer` must be json or msgpack");
    }
    return node.Scalar();
  };
  for (const auto& kv : in) {
    const std::string key = kv.first.as<std::string>();
    if (key == "serializer") {
      p.serializers[""] = serializer_of(kv.second);
    } else if (key == "virtualenv_specs") {
      // The folder of the requirements files (python_deps.hpp).
      if (!kv.second.IsScalar()) {
        throw std::runtime_error(YamlWhere(file, kv.second) +
                                 ": `virtualenv_specs` must be a folder name");
      }
      config["virtualenv_specs"] = kv.second.Scalar();
    } else if (key != "envs" && key != "topology_specs" && key != "library") {
      ignored.push_back("`" + key + "` (not a streamparse setting sparse knows)");
    }
  }
  YAML::Node envs(YAML::NodeType::Map);
  if (const YAML::Node in_envs = in["envs"]) {
    if (!in_envs.IsMap()) {
      throw std::runtime_error(YamlWhere(file, in_envs) + ": `envs` must map names to settings");
    }
    std::map<std::string, std::set<std::string>> by_reason;
    for (const auto& e : in_envs) {
      const std::string name = e.first.as<std::string>();
      const YAML::Node& settings = e.second;
      if (!settings.IsMap()) {
        throw std::runtime_error(YamlWhere(file, settings) + ": environment `" + name +
                                 "` must be an object");
      }
      YAML::Node env(YAML::NodeType::Map);
      for (const auto& s : settings) {
        const std::string key = s.first.as<std::string>();
        const YAML::Node& value = s.second;
        if (key == "nimbus" || key == "options") {
          if (!(key == "nimbus" && value.IsScalar() && value.Scalar().empty())) env[key] = value;
        } else if (key == "workers") {
          // streamparse lists worker hosts (for SSH) and runs one Storm worker per host.
          if (value.IsSequence()) {
            if (value.size() > 0) env["workers"] = static_cast<int>(value.size());
          } else {
            env["workers"] = value;
          }
        } else if (key == "serializer") {
          p.serializers[name] = serializer_of(value);
        } else if (const char* why = IgnoredEnvKeyReason(key)) {
          by_reason[why].insert(key);
        } else {
          by_reason["not a streamparse setting sparse knows"].insert(key);
        }
      }
      envs[name] = env;
    }
    for (const auto& [why, keys] : by_reason) {
      std::string list;
      for (const auto& k : keys) list += (list.empty() ? "`" : ", `") + k + "`";
      ignored.push_back("envs: " + list + " (" + why + ")");
    }
  }
  config["environments"] = envs;
  if (!ignored.empty()) {
    // Once per process: several commands find the project more than once.
    static bool warned = false;
    if (!warned) {
      warned = true;
      std::cerr << "sparse: note: " << file.string() << ": ignoring what has no meaning here:";
      for (const auto& i : ignored) std::cerr << "\n  " << i;
      std::cerr << "\n";
    }
  }
  p.config = config;
}

void AddStreamparseOptionFlags(CLI::App& cmd, std::vector<std::string>& options) {
  cmd.add_option_function<std::string>(
      "-a,--ackers",
      [&options](const std::string& n) { options.push_back("topology.acker.executors=" + n); },
      "Sets topology.acker.executors (streamparse's flag)");
  cmd.add_option_function<std::string>(
      "-w,--workers",
      [&options](const std::string& n) { options.push_back("topology.workers=" + n); },
      "Sets topology.workers (streamparse's flag; under `sparse run` every task runs in one "
      "process, so it only reaches the components' config)");
}

namespace {

struct IgnoredFlag {
  const char* flags;
  bool takes_value;
  const char* why;
  std::set<std::string> commands;
};

const std::vector<IgnoredFlag>& IgnoredFlags() {
  static const char* kConfig = "sparse finds config.json itself, here or in a folder above";
  static const char* kVenv =
      "sparse builds no virtualenvs on workers: the jar carries the packages of "
      "virtualenvs/NAME.txt, installed with pip when it is built";
  static const char* kSsh = "sparse reaches Nimbus and workers without SSH";
  static const char* kJar =
      "`sparse jar` always builds one jar holding every component and "
      "sparse's launchers, and uploads it itself";
  static const std::vector<IgnoredFlag> flags = {
      {"--config", true, kConfig, {"run", "submit", "kill", "list", "jar"}},
      {"-r,--requirements", true, kVenv, {"submit"}},
      {"--overwrite_virtualenv", false, kVenv, {"submit"}},
      {"--pool_size", true, kSsh, {"submit"}},
      {"--user", true, kSsh, {"submit"}},
      {"-u,--uber_jar", false, kJar, {"submit"}},
      {"-j,--local_jar_path", true, kJar, {"submit"}},
      {"-R,--remote_jar_path", true, kJar, {"submit"}},
      {"-s,--simple_jar", false, kJar, {"jar"}},
  };
  return flags;
}

void NoteIgnored(const std::string& flags, const char* why) {
  std::cerr << "sparse: note: " << flags << " (streamparse's) is ignored: " << why << "\n";
}

}  // namespace

void AddIgnoredStreamparseFlags(CLI::App& cmd, const std::string& command) {
  for (const auto& f : IgnoredFlags()) {
    if (!f.commands.count(command)) continue;
    const std::string flags = f.flags;
    const std::string help = std::string("Ignored (streamparse's flag): ") + f.why;
    const char* why = f.why;
    if (f.takes_value) {
      cmd.add_option_function<std::string>(
             flags, [flags, why](const std::string&) { NoteIgnored(flags, why); }, help)
          ->group("streamparse flags with no meaning here");
    } else {
      cmd.add_flag_callback(
             flags, [flags, why] { NoteIgnored(flags, why); }, help)
          ->group("streamparse flags with no meaning here");
    }
  }
}

}  // namespace sparse::cli
