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
#include <string_view>
#include <utility>
#include <vector>

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
// A spout whose next_tuple() reports an error instead of emitting this many times in a row is
// failed like a crashed process (0: never).
inline constexpr const char* kSpoutMaxFailingNexts = "sparse.spout.max.failing.nexts";
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
// Un-acked inputs a built-in bolt holds at once.
inline constexpr const char* kBuiltinMaxPending = "sparse.builtin.max.pending";
}  // namespace keys

// What a key holds. kInt: a whole number (5, 5.0; not "5", not 5.5); kNumber: any number;
// kBool: true/false; kString: a string; kMapping: a mapping.
enum class SettingType { kInt, kNumber, kBool, kString, kMapping };

// One key the runtime reads: its type, range and default, declared once (config.cpp). Call
// sites read through ConfigView and never carry a fallback of their own.
struct Setting {
  const char* key;
  SettingType type;
  nlohmann::json fallback;  // the default; null: unset (a limit that is off, a derived value)
  double min = 0;           // inclusive range, for kInt and kNumber
  double max = 1e18;
};

// Every key above, with Storm's defaults for Storm's keys.
const std::vector<Setting>& Settings();
const Setting* FindSetting(std::string_view key);

// The defaults of Settings() as one configuration (unset keys such as max.spout.pending are null).
const nlohmann::json& DefaultConfig();

// A problem with one key of a configuration mapping. Errors: a known key with the wrong type or
// out of range, an unknown `sparse.*` key (sparse owns that namespace). Warnings: an unknown key
// that looks like a misspelt known one, and an unknown `topology.*` key (Storm has many that a
// local run does not use: they still go to Storm on submit). Other keys (a component's own,
// such as `myapp.threshold`) are the components' business.
struct ConfigIssue {
  std::string key;
  std::string message;  // names the key; says what was expected and what was found
  bool error = true;
};
std::vector<ConfigIssue> CheckConfig(const nlohmann::json& conf);
// Checks that hold between keys, on one merged configuration without the defaults: a low
// watermark that is set must be below its high one (a high one set alone makes the runtime use
// half of it as the low one). Errors only.
std::vector<ConfigIssue> CheckMergedConfig(const nlohmann::json& conf);

// Splits "key=value" and parses value as YAML. Returns nullopt when there is no '=' or no key.
std::optional<std::pair<std::string, nlohmann::json>> ParseOverride(const std::string& text);

// Read-only typed view over one effective configuration, checked with CheckConfig before it is
// read: a key that is absent, null or (in a configuration that skipped the check) of the wrong
// type reads as its default from Settings().
class ConfigView {
 public:
  explicit ConfigView(const nlohmann::json* conf) : conf_(conf) {}
  // Keys whose default is null (a limit that may be off) give nullopt when unset.
  std::optional<std::int64_t> Int(const char* key) const;
  std::optional<double> Number(const char* key) const;
  bool Bool(const char* key) const;
  std::optional<std::chrono::milliseconds> Seconds(const char* key) const;
  std::optional<std::string> String(const char* key) const;
  // For keys with a default (every key whose Setting has a non-null fallback).
  std::int64_t IntValue(const char* key) const { return Int(key).value_or(0); }
  std::chrono::milliseconds SecondsValue(const char* key) const {
    return Seconds(key).value_or(std::chrono::milliseconds(0));
  }

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
