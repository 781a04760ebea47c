// The built-in components one process knows (builtin.hpp), by name and by Flux Java class.
//
// There is no global registry. The program's entry (cli::Main) builds one at start-up, fills it
// with the runtime's own built-ins (RegisterStandardBuiltins below) and those of the subsystems
// it links (kafka::RegisterKafkaBuiltins), and passes it by const reference to what needs it:
// the loader (`builtin: NAME`, a Flux className), validation (BuiltinInfo::check_topology) and
// LocalCluster (BuiltinInfo::create). A test builds the registry it needs.
//
// Contract:
//   - Add registers a built-in. A name may be registered once, and a Flux class name claimed by
//     one built-in: registering either twice is a programmer error (two registrations that
//     disagree on what a name means), and aborts (SPARSE_INVARIANT) naming it. There is no
//     replacing or removing.
//   - Find and FindByClass give nullptr for what is unknown, else a pointer into the registry
//     that stays valid as long as the registry does (later Adds do not move entries).
//   - Names lists every name in sorted order (for messages).
//   - Filled before use, then only read: reads may come from several threads, an Add may not
//     run beside them.
//   - It must outlive what was handed it: a LocalCluster keeps the reference while it runs.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/builtin.hpp"

namespace sparse::runtime {

class BuiltinRegistry {
 public:
  BuiltinRegistry() = default;
  // Not copied by accident (callers hold pointers into it); moving keeps them valid.
  BuiltinRegistry(const BuiltinRegistry&) = delete;
  BuiltinRegistry& operator=(const BuiltinRegistry&) = delete;
  BuiltinRegistry(BuiltinRegistry&&) = default;
  BuiltinRegistry& operator=(BuiltinRegistry&&) = default;

  // Aborts if `info.name`, or one of its flux_classes, is already registered (see above).
  void Add(BuiltinInfo info);

  // The built-in written as `builtin: NAME` in sparse YAML.
  const BuiltinInfo* Find(std::string_view name) const;
  // The built-in a Flux file names by this Java class.
  const BuiltinInfo* FindByClass(std::string_view java_class) const;
  std::vector<std::string> Names() const;

 private:
  std::map<std::string, BuiltinInfo, std::less<>> by_name_;
};

// Adds the runtime's own built-ins, Storm's test components that Flux examples name
// (test_word_spout, test_word_counter, log_info; standard_builtins.cpp). Once per registry.
void RegisterStandardBuiltins(BuiltinRegistry& registry);

}  // namespace sparse::runtime
