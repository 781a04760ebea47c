// A sparse topology as Storm's Nimbus receives it: a StormTopology of shell components and the
// topology's configuration as `jsonConf`.
//
// Every component becomes a ShellComponent whose two strings start the component's launcher in
// the jar (launcher.hpp); streams keep their fields and direct flag; inputs keep their grouping
// (global = fields []; local_or_shuffle is Storm's member 8). Storm only has partial-key grouping
// as a Java class, so partial_key is sent as fields grouping on the same fields, with a warning:
// a key still always reaches one task, the load is just not split between two.
//
// Built-in components (`builtin:`) run inside sparse's runtime and have no program a Storm worker
// could start; a topology with any is refused, naming each one.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runtime/builtin_registry.hpp"
#include "runtime/topology.hpp"
#include "runtime/topology_loader.hpp"
#include "sparse/storm/gen/storm_types.h"

namespace sparse::storm {

// What keeps `topology` off a Storm cluster (built-in components, more than one subscription to
// the same stream), each with the file and line it comes from. Empty when it can be submitted.
// Given the registry the topology was loaded with, a refused built-in's message adds what Storm
// offers instead (BuiltinInfo::on_storm); without it, the general advice.
std::vector<runtime::Diagnostic> CheckSubmittable(
    const runtime::Topology& topology, const runtime::BuiltinRegistry* builtins = nullptr);

// Why Nimbus would refuse `name` as a topology name, or a Storm cluster fail on it, if it would.
std::optional<std::string> CheckTopologyName(const std::string& name);

struct Conversion {
  gen::StormTopology topology;
  std::vector<runtime::Diagnostic> warnings;  // changes made to fit Storm (partial_key)
};

// Converts a validated topology. Throws runtime::TopologyError with CheckSubmittable's findings.
// `overrides` (-o key=value) also replace those keys in per-component config, so they win
// everywhere as in `sparse run`.
Conversion ToStormTopology(const runtime::Topology& topology, const nlohmann::json& overrides);

// The topology configuration sent as jsonConf: the topology's `config`, then the environment's
// options, then the overrides. Whole numbers are written as integers.
nlohmann::json MakeJsonConf(const runtime::Topology& topology, const nlohmann::json& environment,
                            const nlohmann::json& overrides);

// Turns whole-valued floating-point numbers into integers, recursively: Storm's validators refuse
// `2.0` for an integer key such as topology.workers.
nlohmann::json NormalizeNumbers(nlohmann::json value);

// The topology with every command replaced by its two-string launcher argv: what a Storm worker
// runs, and what the jar's topology file describes.
runtime::Topology LauncherForm(const runtime::Topology& topology);

// A topology as sparse YAML (written in JSON flow syntax, which is YAML): loads back with
// runtime::LoadTopology into the same components, streams, inputs and config.
std::string TopologyYaml(const runtime::Topology& topology, const std::string& header_comment);

}  // namespace sparse::storm
