// Makes the Kafka built-ins known to the runtime: `builtin: kafka_spout` and
// `builtin: kafka_bolt` in a topology. Call once at start-up, before topologies are loaded.
#pragma once

namespace sparse::kafka {

void RegisterKafkaBuiltins();  // idempotent

}  // namespace sparse::kafka
