// `sparse visualize`: a topology as a picture. DOT always; SVG and PNG through Graphviz's `dot`
// when it is installed.
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iostream>

#include "cli/console.hpp"
#include "cli/observability_commands.hpp"
#include "cli/project.hpp"
#include "cli/python_topology.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"
#include "web/graph.hpp"

extern char** environ;

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

struct VisualizeArgs {
  std::optional<std::string> topology;
  std::string name;    // streamparse's -n
  std::string env;     // resolves streamparse's per-environment `par`
  std::string format;  // dot, svg, png; default from -o's extension, else dot
  std::string output;  // default: stdout
};

std::optional<fs::path> FindInPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  std::string_view rest = path;
  while (!rest.empty()) {
    const auto colon = rest.find(':');
    const std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

std::string FormatOf(const VisualizeArgs& args) {
  if (!args.format.empty()) return args.format;
  const std::string ext = fs::path(args.output).extension().string();
  if (ext == ".svg") return "svg";
  if (ext == ".png") return "png";
  return "dot";
}

// Runs `dot -T<format>` on the DOT text; output to `output`, or inherited stdout.
int RunGraphviz(const fs::path& dot, const std::string& text, const std::string& format,
                const std::string& output) {
  char tmpl[] = "/tmp/sparse-visualize-XXXXXX";
  const int fd = ::mkstemp(tmpl);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file");
  ::close(fd);
  const fs::path input = tmpl;
  std::ofstream(input) << text;
  std::vector<std::string> argv = {dot.string(), "-T" + format, input.string()};
  if (!output.empty()) {
    argv.push_back("-o");
    argv.push_back(output);
  }
  std::vector<char*> cargv;
  for (auto& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  std::cout.flush();
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, cargv[0], nullptr, nullptr, cargv.data(), environ);
  int status = 0;
  if (rc == 0) ::waitpid(pid, &status, 0);
  std::error_code ec;
  fs::remove(input, ec);
  if (rc != 0) throw std::runtime_error("cannot run " + dot.string() + ": " + std::strerror(rc));
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::cerr << "sparse: error: Graphviz's dot failed (its message is above)\n";
    return ExitCode(base::Errc::kIo);
  }
  return kExitOk;
}

int Visualize(const VisualizeArgs& args, const runtime::BuiltinRegistry& builtins) {
  const std::string format = FormatOf(args);
  if (format != "dot" && format != "svg" && format != "png") {
    std::cerr << "sparse: error: -f must be dot, svg or png, not `" << format << "`\n";
    return ExitCode(base::Errc::kUsage);
  }
  const auto project = FindProject(fs::current_path());
  const fs::path file = ResolveTopology(args.name.empty() ? args.topology : args.name, project);
  runtime::Topology topology;
  try {
    topology = LoadAnyTopology(file, builtins, args.env);
    runtime::ValidateOrThrow(topology, builtins);
  } catch (const runtime::TopologyError& e) {
    const Style style = Style::ForStderr();
    std::cerr << style.Paint("invalid topology:", "31") << "\n";
    for (const auto& d : e.diagnostics()) std::cerr << "  " << d.ToString() << "\n";
    return ExitCode(base::Errc::kInvalidTopology);
  }
  const std::string text = web::GraphDot(web::MakeGraph(topology));
  if (format == "dot") {
    if (args.output.empty()) {
      std::cout << text;
      return kExitOk;
    }
    std::ofstream out(args.output);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + args.output);
    std::cerr << "wrote " << args.output << "\n";
    return kExitOk;
  }
  const auto dot = FindInPath("dot");
  if (!dot) {
    std::cerr << "sparse: error: -f " << format
              << " needs Graphviz's `dot`, which is not installed (Debian: apt-get install "
                 "graphviz); -f dot works without it\n";
    return ExitCode(base::Errc::kNotFound);
  }
  if (format == "png" && args.output.empty() && ::isatty(1)) {
    std::cerr << "sparse: error: not writing PNG to a terminal; give -o FILE\n";
    return ExitCode(base::Errc::kUsage);
  }
  const int rc = RunGraphviz(*dot, text, format, args.output);
  if (rc == kExitOk && !args.output.empty()) std::cerr << "wrote " << args.output << "\n";
  return rc;
}

}  // namespace

void RegisterVisualize(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins) {
  auto args = std::make_shared<VisualizeArgs>();
  CLI::App* cmd = app.add_subcommand("visualize", "Draw a topology (Graphviz DOT, SVG or PNG)");
  cmd->footer(
      R"(Spouts are orange arrows, bolts blue boxes; every edge is labelled with its stream, the
stream's fields and the grouping. DOT needs nothing; SVG and PNG need Graphviz's `dot`.

Examples:
  sparse visualize                          the project's topology, DOT on stdout
  sparse visualize wordcount -o wc.svg      SVG (format from the extension)
  sparse visualize topo.yaml -f png -o topo.png
  sparse visualize | dot -Tpdf > topo.pdf)");
  cmd->add_option("topology", args->topology, "Topology file, or the name of one in the project");
  cmd->add_option("-n,--name", args->name,
                  "The project topology of this name (streamparse's flag; same as the argument)");
  cmd->add_option("-e,--env,--environment", args->env,
                  "Project environment, for `par` given per environment in streamparse topologies");
  cmd->add_option("-f,--format", args->format, "dot, svg or png (default: from -o, else dot)");
  cmd->add_option("-o,--output", args->output, "Write to FILE instead of stdout");
  cmd->callback([args, &action, &builtins] {
    action = [args, &builtins] { return Visualize(*args, builtins); };
  });
}

}  // namespace sparse::cli
