// Fuzz target: the topology loader (runtime/topology_loader.hpp) on any text, in sparse's form
// and Storm Flux's (the seeds hold both; the loader tells them apart), with the YAML -> JSON
// conversion of configs and options (runtime/yaml_json.hpp), then the validator.
//
// Properties: the loader throws nothing but TopologyError (an exception of yaml-cpp escaping
// would end `sparse run` with a bare "error" and no file or line); every diagnostic names the
// file and says something; a loaded topology validates without throwing; a config converted
// from YAML holds at most kMaxYamlJsonValues values (aliases cannot blow it up).
#include <cstddef>
#include <string>
#include <vector>

#include "check.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"
#include "runtime/yaml_json.hpp"

namespace {

using sparse::runtime::Diagnostic;

constexpr const char* kFile = "/nonexistent-fuzz/topology.yaml";

void CheckDiagnostics(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics) {
    FUZZ_CHECK(d.where.file == kFile, "a diagnostic that does not name the file");
    FUZZ_CHECK(!d.message.empty(), "a diagnostic that says nothing");
    FUZZ_CHECK(d.where.line >= 0, "a negative line number");
  }
}

std::size_t CountValues(const nlohmann::json& j) {
  std::size_t n = 1;
  if (j.is_structured()) {
    for (const auto& v : j) n += CountValues(v);
  }
  return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  // Built once for the fuzzing process, as sparse builds its own at start-up.
  static const sparse::runtime::BuiltinRegistry builtins = [] {
    sparse::runtime::BuiltinRegistry r;
    sparse::runtime::RegisterStandardBuiltins(r);
    return r;
  }();
  const std::string text(reinterpret_cast<const char*>(data), size);
  sparse::runtime::Topology topology;
  try {
    topology = sparse::runtime::LoadTopologyFromString(text, kFile, builtins);
  } catch (const sparse::runtime::TopologyError& e) {
    FUZZ_CHECK(!e.diagnostics().empty(), "a TopologyError without diagnostics");
    CheckDiagnostics(e.diagnostics());
    return 0;
  }
  CheckDiagnostics(sparse::runtime::ValidateTopology(topology, builtins));
  FUZZ_CHECK(CountValues(topology.config) <= sparse::runtime::kMaxYamlJsonValues,
             "a config larger than the conversion's limit");
  for (const auto& c : topology.components) {
    FUZZ_CHECK(CountValues(c.config) <= sparse::runtime::kMaxYamlJsonValues,
               "a component config larger than the conversion's limit");
  }
  return 0;
}
