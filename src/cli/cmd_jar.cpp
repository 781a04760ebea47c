// `sparse jar [TOPOLOGY] [-o FILE]`: packages a topology for Apache Storm (layout: storm/jar.hpp).
#include <iostream>

#include "cli/paths.hpp"
#include "cli/storm_commands.hpp"
#include "cli/streamparse_project.hpp"
#include "storm/jar.hpp"

namespace sparse::cli {

namespace fs = std::filesystem;

namespace {

struct JarArgs {
  std::optional<std::string> topology;
  std::string output;
  bool no_build = false;
  std::string python_version;
};

int Jar(const JarArgs& args, const runtime::BuiltinRegistry& builtins) {
  const std::string python_version = WorkerPythonVersion(args.python_version);
  const StormTopologySource source = LoadTopologyForStorm(args.topology, builtins);
  BuildComponentsForJar(source, args.no_build);
  const fs::path out = args.output.empty() ? DefaultJarPath(source) : fs::absolute(args.output);
  const storm::JarContents contents = storm::WriteJar(
      source.topology, {PythonAdapterDir(), out, JarSitePackages(source, python_version)}, out);
  for (const auto& w : contents.warnings) std::cerr << "sparse: warning: " << w << "\n";
  std::error_code ec;
  std::cerr << "wrote " << out.string() << " (" << contents.entries.size() << " files, "
            << HumanBytes(fs::file_size(out, ec)) << ")\n"
            << "try it locally with `sparse run --jar " << out.string()
            << "`, send it to Storm with `sparse submit`\n";
  std::cout << out.string() << "\n";
  return kExitOk;
}

}  // namespace

void RegisterJar(CLI::App& app, Action& action, const runtime::BuiltinRegistry& builtins) {
  auto args = std::make_shared<JarArgs>();
  CLI::App* cmd = app.add_subcommand("jar", "Package a topology as a jar for Apache Storm");
  cmd->footer(R"(The jar's resources/ holds the project's src/, the Python adapter, one launcher per
component, the topology itself and its Python requirements (virtualenvs/NAME.txt
or sparse.yaml's python_requirements, installed with pip); Storm workers need
nothing else installed but sh and the components' interpreters (python3).

Examples:
  sparse jar                           the project's topology -> _build/NAME.jar
  sparse jar wordcount -o /tmp/wc.jar
  sparse run --jar _build/wordcount.jar    run the jar locally as a Storm worker would)");
  cmd->add_option("topology", args->topology, "Topology file, or the name of one in the project");
  AddIgnoredStreamparseFlags(*cmd, "jar");
  AddPythonVersionOption(*cmd, args->python_version);
  cmd->add_option("-o,--output", args->output, "Where to write the jar (default: _build/NAME.jar)");
  cmd->add_flag("--no-build", args->no_build,
                "Do not build the project's C++ components (CMakeLists.txt) first");
  cmd->callback(
      [args, &action, &builtins] { action = [args, &builtins] { return Jar(*args, builtins); }; });
}

}  // namespace sparse::cli
