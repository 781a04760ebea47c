// The launchers that turn Storm's two-string ShellComponent into a component's real argv.
//
// Storm starts a shell component as exactly `[execution_command, script]`, run without a shell,
// in the extracted `resources/` folder of the topology jar, whose files have lost their execute
// bits. A sparse component's command is an argv of any length (`[python3, -u, x.py, --flag]`,
// `[bin/counter]`), and a component cannot learn its id before the multilang handshake. So the
// jar carries one small POSIX sh script per component, and the ShellComponent of component C is
//
//   ["sh", "_sparse/launch/<C>.sh"]
//
// (`sh` is on every machine a Storm supervisor runs on, unlike python3). The script:
//   1. changes to the resources folder (Storm already starts it there; this makes it robust),
//   2. restores the execute bits of the files that had them in the project (chmod u+x),
//   3. puts the jar's copy of the Python adapter (`_sparse/python`, with sparse's stand-ins for
//      streamparse and pystorm), then the topology's Python requirements when the jar has them
//      (`_sparse/site`, installed by pip at `sparse jar` time), first on PYTHONPATH, since
//      Python adds the script's folder, not the working directory, to sys.path, and sets
//      PYTHONUNBUFFERED=1 as `sparse run` does,
//   4. `exec`s the component's argv, each element single-quoted (no word splitting, no globbing),
//      so the component is the process Storm talks to and signals reach it directly; streamparse's
//      `streamparse_run ARGS` is the worker's streamparse_run when on PATH, else the jar's
//      (`python3 -m sparse_multilang.streamparse_run ARGS`, $SPARSE_PYTHON if set).
// The script never writes to stdout: stdout is the multilang channel.
//
// `sparse run --jar` starts components with the same two strings, so this path is tested locally.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace sparse::storm {

// The folder inside resources/ that sparse owns in a jar (launchers, adapter, topology file).
inline constexpr std::string_view kSparseDir = "_sparse";
inline constexpr std::string_view kLauncherDir = "_sparse/launch";
inline constexpr std::string_view kPythonDir = "_sparse/python";
inline constexpr std::string_view kSiteDir = "_sparse/site";  // the requirements (python_deps.hpp)
inline constexpr std::string_view kLauncherShell = "sh";

// A file name for component `id` that is safe on any file system and distinct for distinct ids:
// ASCII letters, digits and '-' are kept; every other byte (including '_') becomes `_XX` (hex).
std::string LauncherFileName(std::string_view component_id);

// The launcher's path relative to resources/, e.g. `_sparse/launch/count.sh`.
std::string LauncherPath(std::string_view component_id);

// The two strings of the component's ShellComponent: {"sh", LauncherPath(id)}.
std::vector<std::string> LauncherArgv(std::string_view component_id);

// The script for component `id` running `argv`; `executables` are paths relative to resources/
// whose execute bit is to be restored; `with_site`: the jar carries kSiteDir. Deterministic for
// the same arguments.
std::string LauncherScript(std::string_view component_id, const std::vector<std::string>& argv,
                           const std::vector<std::string>& executables, bool with_site = false);

// `text` as one single-quoted POSIX shell word.
std::string ShellQuote(std::string_view text);

}  // namespace sparse::storm
