// streamparse's project file, config.json, read as a sparse project config.
//
// What carries over: `topology_specs` (the topologies folder), `envs` (each becomes an
// environment: `nimbus` HOST[:PORT], `workers` — streamparse's list of worker hosts, whose
// count is what it used for topology.workers — and `options`), `serializer` (top level or per
// environment: the Python components' `streamparse_run -s`). Components live in `src/`, as in
// streamparse. What has no meaning here (SSH settings, virtualenv locations on workers, log
// settings of streamparse's own tasks, ...) gets one warning naming the keys and why, never an
// error; project.clj, fabfile.py and tasks.py are not read at all.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/project.hpp"

namespace sparse::cli {

// Whether `file` is streamparse's config.json: a JSON object with `envs` or `topology_specs`
// (a config.json of anything else does not make a folder a project).
bool IsStreamparseConfig(const std::filesystem::path& file);

// Fills `project` (root set) from its config.json. Throws std::runtime_error naming the file
// and line when it is not valid JSON or a key has the wrong shape.
void LoadStreamparseProject(Project& project);

// streamparse's shorthands for topology options on `run` and `submit`: -a/--ackers N and
// -w/--workers N append topology.acker.executors=N / topology.workers=N to `options` (the -o
// list, which must outlive the command line's parsing).
void AddStreamparseOptionFlags(CLI::App& cmd, std::vector<std::string>& options);

// The flags streamparse's `sparse COMMAND` took that mean nothing here (SSH, virtualenvs, its
// jar variants, --config): accepted, each with a note on stderr saying why it is ignored, so a
// streamparse user's command lines keep working. `command` is the subcommand's name.
void AddIgnoredStreamparseFlags(CLI::App& cmd, const std::string& command);

// `update_virtualenv` and `remove_logs`, streamparse's commands as they mean here
// (cmd_streamparse.cpp).
void RegisterStreamparseCommands(CLI::App& app, Action& action);

}  // namespace sparse::cli
