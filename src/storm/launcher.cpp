#include "storm/launcher.hpp"

#include <cctype>
#include <cstdio>

namespace sparse::storm {

std::string LauncherFileName(std::string_view component_id) {
  std::string out;
  for (const char ch : component_id) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) || c == '-') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "_%02x", c);
      out += buf;
    }
  }
  return out;
}

std::string LauncherPath(std::string_view component_id) {
  return std::string(kLauncherDir) + "/" + LauncherFileName(component_id) + ".sh";
}

std::vector<std::string> LauncherArgv(std::string_view component_id) {
  return {std::string(kLauncherShell), LauncherPath(component_id)};
}

std::string ShellQuote(std::string_view text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out.push_back(c);
    }
  }
  out += "'";
  return out;
}

namespace {

// A comment line must not be ended early by a newline inside a component id.
std::string CommentSafe(std::string_view text) {
  std::string out;
  for (char c : text) out.push_back(c == '\n' || c == '\r' ? ' ' : c);
  return out;
}

}  // namespace

std::string LauncherScript(std::string_view component_id, const std::vector<std::string>& argv,
                           const std::vector<std::string>& executables, bool with_site) {
  std::string s;
  s += "#!/bin/sh\n";
  s += "# Launcher of component `" + CommentSafe(component_id) + "`, written by `sparse jar`.\n";
  s += "# Storm runs it as [sh, " + LauncherPath(component_id) + "] in resources/.\n";
  s += "CDPATH= cd -P -- \"$(dirname -- \"$0\")/../..\" || exit 127\n";
  constexpr std::size_t kPerLine = 50;
  for (std::size_t i = 0; i < executables.size(); i += kPerLine) {
    s += "chmod u+x --";
    for (std::size_t j = i; j < executables.size() && j < i + kPerLine; ++j) {
      s += " " + ShellQuote(executables[j]);
    }
    s += " 2>/dev/null\n";
  }
  s += "PYTHONPATH=\"$PWD/" + std::string(kPythonDir) +
       (with_site ? ":$PWD/" + std::string(kSiteDir) : std::string()) +
       "${PYTHONPATH:+:$PYTHONPATH}\"\n";
  s += "PYTHONUNBUFFERED=1\n";
  s += "export PYTHONPATH PYTHONUNBUFFERED\n";
  std::string args;
  for (std::size_t i = 1; i < argv.size(); ++i) args += " " + ShellQuote(argv[i]);
  if (!argv.empty() && argv[0] == "streamparse_run") {
    // streamparse's command for Python components: the worker's own streamparse_run if it has
    // one (a virtualenv on PATH), else the jar's (which uses an installed streamparse too).
    s += "command -v streamparse_run >/dev/null 2>&1 && exec streamparse_run" + args + "\n";
    s += "exec \"${SPARSE_PYTHON:-python3}\" -m sparse_multilang.streamparse_run" + args + "\n";
    return s;
  }
  s += "exec";
  if (!argv.empty()) s += " " + ShellQuote(argv[0]);
  s += args + "\n";
  return s;
}

}  // namespace sparse::storm
