// Topology configuration: Storm's keys with Storm's defaults, plus sparse's own (`sparse.*`).
//
// Precedence, lowest first: defaults, the topology's `config`, the component's `config`, then
// command-line overrides (`-o key=value`, value parsed as YAML), which win everywhere.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

namespace sparse::runtime {

namespace keys {
inline constexpr const char* kMessageTimeoutSecs = "topology.message.timeout.secs";
inline constexpr const char* kMaxSpoutPending = "topology.max.spout.pending";
inline constexpr const char* kSubprocessTimeoutSecs = "topology.subprocess.timeout.secs";
inline constexpr const char* kWorkerTimeoutSecs = "supervisor.worker.timeout.secs";
inline constexpr const char* kShellBoltMaxPending = "topology.shellbolt.max.pending";
inline constexpr const char* kTickTupleFreqSecs = "topology.tick.tuple.freq.secs";
inline constexpr const char* kDebug = "topology.debug";
inline constexpr const char* kAckerExecutors = "topology.acker.executors";
inline constexpr const char* kWorkers = "topology.workers";
inline constexpr const char* kSleepSpoutWaitMs = "topology.sleep.spout.wait.strategy.time.ms";
inline constexpr const char* kSerializer = "topology.multilang.serializer";
inline constexpr const char* kTopologyName = "topology.name";
inline constexpr const char* kEnvironment = "topology.environment";
// sparse's own.
inline constexpr const char* kHandshakeTimeoutSecs = "sparse.handshake.timeout.secs";
inline constexpr const char* kHeartbeatSecs = "sparse.heartbeat.secs";
inline constexpr const char* kSpoutMaxUnsynced = "sparse.spout.max.unsynced.commands";
inline constexpr const char* kSpoutMaxUnsyncedNexts = "sparse.spout.max.unsynced.nexts";
inline constexpr const char* kMaxMessageBytes = "sparse.max.message.bytes";
inline constexpr const char* kShutdownGraceSecs = "sparse.shutdown.grace.secs";
inline constexpr const char* kDrainSecs = "sparse.drain.secs";
inline constexpr const char* kQueueHighWatermark = "sparse.queue.high.watermark";
inline constexpr const char* kQueueLowWatermark = "sparse.queue.low.watermark";
// The same watermarks in bytes of tuple values held for a task: 1,000 tuples of 512 KB are 500 MB.
inline constexpr const char* kQueueHighWatermarkBytes = "sparse.queue.high.watermark.bytes";
inline constexpr const char* kQueueLowWatermarkBytes = "sparse.queue.low.watermark.bytes";
inline constexpr const char* kRestartMax = "sparse.restart.max";
inline constexpr const char* kRestartWindowSecs = "sparse.restart.window.secs";
inline constexpr const char* kRestartBackoffMs = "sparse.restart.backoff.ms";
inline constexpr const char* kRestartBackoffMaxMs = "sparse.restart.backoff.max.ms";
// A component's log file is rotated at this size, keeping this many older files (NAME.log.1...).
inline constexpr const char* kLogMaxBytes = "sparse.log.max.bytes";
inline constexpr const char* kLogBackups = "sparse.log.backups";
// At most this many tasks in one local run: every task is a process, and a typo such as
// `parallelism: 100000` must be an error, not an hour of spawning.
inline constexpr const char* kMaxTasks = "sparse.max.tasks";
}  // namespace keys

// Storm's defaults for the keys above (unset keys such as max.spout.pending are null).
const nlohmann::json& DefaultConfig();

// Splits "key=value" and parses value as YAML. Returns nullopt when there is no '=' or no key.
std::optional<std::pair<std::string, nlohmann::json>> ParseOverride(const std::string& text);

// Read-only typed view over one effective configuration.
class ConfigView {
 public:
  explicit ConfigView(const nlohmann::json* conf) : conf_(conf) {}
  std::optional<std::int64_t> Int(const char* key) const;
  std::optional<double> Number(const char* key) const;
  bool Bool(const char* key, bool fallback = false) const;
  std::chrono::milliseconds Seconds(const char* key, double fallback) const;
  std::optional<std::string> String(const char* key) const;

  // Storm: topology.subprocess.timeout.secs, else supervisor.worker.timeout.secs.
  std::chrono::milliseconds SubprocessTimeout() const;
  // Acking is on unless topology.acker.executors is explicitly 0.
  bool AckingEnabled() const;

 private:
  const nlohmann::json* conf_;
};

// Merges `over` into `base` (top-level keys; null in `over` is a value, as in Storm).
void MergeConfig(nlohmann::json& base, const nlohmann::json& over);

}  // namespace sparse::runtime
