#include "cli/python_topology.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "cli/paths.hpp"
#include "cli/project.hpp"
#include "cli/python_deps.hpp"
#include "runtime/topology_loader.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;
using runtime::Diagnostic;
using runtime::TopologyError;

namespace {

// Seconds a topology file may take to evaluate; $SPARSE_TOPOLOGY_EVAL_SECS overrides (tests).
int HelperTimeoutSecs() {
  const char* text = std::getenv("SPARSE_TOPOLOGY_EVAL_SECS");
  const int secs = text ? std::atoi(text) : 0;
  return secs > 0 ? secs : 120;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs the helper; returns its stdout (its stderr, what the topology printed, passes through).
std::string RunHelper(const fs::path& file, const std::string& env, const std::string& serializer) {
  std::string pythonpath = PythonAdapterDir().string();
  if (const char* existing = std::getenv("PYTHONPATH"); existing && *existing) {
    pythonpath += ":" + std::string(existing);
  }
  // A topology file that never finishes must not hang the command: coreutils' timeout ends it.
  std::string cmd = "PYTHONPATH=" + ShellQuote(pythonpath) + " PYTHONDONTWRITEBYTECODE=1 timeout " +
                    std::to_string(HelperTimeoutSecs()) + " " + ShellQuote(HelperPython()) +
                    " -m sparse_multilang.streamparse_topology " + ShellQuote(file.string());
  if (!env.empty()) cmd += " --env " + ShellQuote(env);
  if (!serializer.empty()) cmd += " --serializer " + ShellQuote(serializer);
  cmd += " </dev/null";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) throw TopologyError({{{file.string(), 0}, "cannot start " + HelperPython()}});
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 124) {
    throw TopologyError(
        {{{file.string(), 0},
          "evaluating the topology took over " + std::to_string(HelperTimeoutSecs()) +
              " s (does it, or a module it imports, wait or loop at import?)"}});
  }
  if (status != 0 && out.empty()) {
    throw TopologyError({{{file.string(), 0},
                          "could not evaluate the Python topology with " + HelperPython() +
                              " (is Python 3 installed? set SPARSE_PYTHON to choose one)"}});
  }
  return out;
}

class Builder {
 public:
  explicit Builder(fs::path file) : file_(std::move(file)) {}

  runtime::Topology Build(const nlohmann::json& j) {
    runtime::Topology t;
    t.name = j.value("name", file_.stem().string());
    if (j.contains("config") && j["config"].is_object()) t.config = j["config"];
    for (const auto& c : j.value("components", nlohmann::json::array()))
      t.components.push_back(Component(c));
    if (!diagnostics_.empty()) throw TopologyError(diagnostics_);
    return t;
  }

 private:
  runtime::SourceLocation Where(const nlohmann::json& c) const {
    std::string file = c.value("file", std::string());
    if (file.empty()) file = file_.string();
    return {file, c.value("line", 0)};
  }

  runtime::ComponentDef Component(const nlohmann::json& c) {
    runtime::ComponentDef d;
    d.id = c.value("id", std::string());
    d.kind = c.value("kind", std::string()) == "spout" ? runtime::ComponentKind::kSpout
                                                       : runtime::ComponentKind::kBolt;
    d.where = Where(c);
    if (c.contains("java") && c["java"].is_string()) {
      diagnostics_.push_back(
          {d.where, "`" + d.id + "` is a " + (d.is_spout() ? "JavaSpout" : "JavaBolt") + " (" +
                        c["java"].get<std::string>() +
                        "): sparse runs no JVM, so Java components cannot run here; write it "
                        "as a Python or other multilang component (Spout/Bolt, ShellSpout/"
                        "ShellBolt), or keep this topology on streamparse"});
      return d;
    }
    for (const auto& arg : c.value("command", nlohmann::json::array())) {
      d.command.push_back(arg.get<std::string>());
    }
    d.parallelism = c.value("parallelism", 1);
    if (c.contains("config") && c["config"].is_object()) d.config = c["config"];
    for (const auto& s : c.value("streams", nlohmann::json::array())) {
      runtime::StreamDef stream;
      stream.id = s.value("id", std::string("default"));
      stream.fields = s.value("fields", std::vector<std::string>());
      stream.direct = s.value("direct", false);
      stream.where = d.where;
      d.streams.push_back(std::move(stream));
    }
    for (const auto& in : c.value("inputs", nlohmann::json::array())) {
      runtime::InputDef input;
      input.component = in.value("from", std::string());
      input.stream = in.value("stream", std::string("default"));
      input.where = d.where;
      const std::string grouping = in.value("grouping", std::string("shuffle"));
      if (auto type = runtime::ParseGroupingName(grouping)) {
        input.grouping.type = *type;
      } else {
        diagnostics_.push_back({d.where, "grouping `" + grouping + "` is not supported"});
      }
      input.grouping.fields = in.value("fields", std::vector<std::string>());
      d.inputs.push_back(std::move(input));
    }
    return d;
  }

  fs::path file_;
  std::vector<Diagnostic> diagnostics_;
};

runtime::Topology LoadPythonTopology(const fs::path& file, const std::optional<Project>& project,
                                     const std::string& env) {
  const std::string serializer = project ? project->Serializer(env) : std::string();
  const std::string out = RunHelper(file, env, serializer);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(out);
  } catch (const nlohmann::json::parse_error&) {
    throw TopologyError({{{file.string(), 0},
                          "the Python topology helper gave no answer (see the messages above)"}});
  }
  if (j.contains("error")) {
    throw TopologyError(
        {{{j.value("file", file.string()), j.value("line", 0)}, j["error"].get<std::string>()}});
  }
  return Builder(file).Build(j);
}

}  // namespace

std::string HelperPython() {
  const char* python = std::getenv("SPARSE_PYTHON");
  return python && *python ? python : "python3";
}

runtime::Topology LoadAnyTopology(const fs::path& file, const runtime::BuiltinRegistry& builtins,
                                  const std::string& env) {
  const auto project = FindProject(file.parent_path());
  runtime::Topology t;
  if (file.extension() == ".py" || file.extension() == ".clj") {
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) {
      throw TopologyError({{{file.string(), 0}, "cannot read topology file"}});
    }
    // A .py topology imports its components, and they what its requirements install.
    if (file.extension() == ".py") UseTopologyVirtualenv(file);
    const std::string chosen = !env.empty() ? env : project ? project->DefaultEnvironment() : "";
    t = LoadPythonTopology(fs::absolute(file), project, chosen);
    t.file = fs::absolute(file);
    const fs::path src = t.file.parent_path().parent_path() / "src";
    t.resources_dir = project                     ? project->resources_dir
                      : fs::is_directory(src, ec) ? src
                                                  : t.file.parent_path();
    return t;
  }
  t = runtime::LoadTopology(file, builtins);
  // A project's components live in its resources folder (src/ unless sparse.yaml says
  // `resources:`); a bare YAML file's beside it.
  std::error_code ec;
  if (project && (project->streamparse || fs::is_directory(project->resources_dir, ec))) {
    t.resources_dir = project->resources_dir;
  }
  return t;
}

}  // namespace sparse::cli
