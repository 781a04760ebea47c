// Makes the Kafka built-ins known to the runtime: `builtin: kafka_spout`, `builtin: kafka_bolt`
// and `builtin: keyed_aggregate` in a topology. The program's entry (cli::Main) calls it once on
// the registry it builds at start-up, before topologies are loaded (runtime/builtin_registry.hpp).
#pragma once

namespace sparse::runtime {
class BuiltinRegistry;
}

namespace sparse::kafka {

// Once per registry: adding a name twice is a programmer error (builtin_registry.hpp).
void RegisterKafkaBuiltins(runtime::BuiltinRegistry& registry);

}  // namespace sparse::kafka
