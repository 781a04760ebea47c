#include "runtime/config.hpp"

#include "runtime/yaml_json.hpp"

namespace sparse::runtime {

const nlohmann::json& DefaultConfig() {
  static const nlohmann::json defaults = {
      {keys::kMessageTimeoutSecs, 30},
      {keys::kMaxSpoutPending, nullptr},
      {keys::kSubprocessTimeoutSecs, nullptr},
      {keys::kWorkerTimeoutSecs, 30},
      {keys::kShellBoltMaxPending, 100},
      {keys::kTickTupleFreqSecs, nullptr},
      {keys::kDebug, false},
      {keys::kAckerExecutors, nullptr},
      {keys::kWorkers, 1},
      {keys::kSleepSpoutWaitMs, 1},
      {keys::kSerializer, "org.apache.storm.multilang.JsonSerializer"},
      {keys::kHandshakeTimeoutSecs, 30},
      {keys::kHeartbeatSecs, 1},
      {keys::kSpoutMaxUnsynced, 64},
      {keys::kSpoutMaxUnsyncedNexts, 8},
      {keys::kMaxMessageBytes, 64 * 1024 * 1024},
      {keys::kShutdownGraceSecs, 5},
      {keys::kDrainSecs, nullptr},
      {keys::kQueueHighWatermark, 1000},
      {keys::kQueueLowWatermark, 500},
      {keys::kQueueHighWatermarkBytes, 64 * 1024 * 1024},
      {keys::kQueueLowWatermarkBytes, 32 * 1024 * 1024},
      {keys::kRestartMax, 5},
      {keys::kRestartWindowSecs, 60},
      {keys::kRestartBackoffMs, 100},
      {keys::kRestartBackoffMaxMs, 5000},
      {keys::kLogMaxBytes, 64 * 1024 * 1024},
      {keys::kLogBackups, 3},
      {keys::kMaxTasks, 1024},
  };
  return defaults;
}

std::optional<std::pair<std::string, nlohmann::json>> ParseOverride(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return std::make_pair(text.substr(0, eq), ParseYamlValue(text.substr(eq + 1)));
}

void MergeConfig(nlohmann::json& base, const nlohmann::json& over) {
  if (!over.is_object()) return;
  for (auto it = over.begin(); it != over.end(); ++it) base[it.key()] = it.value();
}

std::optional<std::int64_t> ConfigView::Int(const char* key) const {
  auto it = conf_->find(key);
  if (it == conf_->end() || it->is_null()) return std::nullopt;
  if (it->is_number_integer()) return it->get<std::int64_t>();
  if (it->is_number()) return static_cast<std::int64_t>(it->get<double>());
  if (it->is_string()) {
    try {
      return std::stoll(it->get<std::string>());
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<double> ConfigView::Number(const char* key) const {
  auto it = conf_->find(key);
  if (it == conf_->end() || it->is_null()) return std::nullopt;
  if (it->is_number()) return it->get<double>();
  if (it->is_string()) {
    try {
      return std::stod(it->get<std::string>());
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool ConfigView::Bool(const char* key, bool fallback) const {
  auto it = conf_->find(key);
  if (it == conf_->end() || it->is_null()) return fallback;
  if (it->is_boolean()) return it->get<bool>();
  if (it->is_number()) return it->get<double>() != 0;
  if (it->is_string()) return it->get<std::string>() == "true";
  return fallback;
}

std::chrono::milliseconds ConfigView::Seconds(const char* key, double fallback) const {
  double s = Number(key).value_or(fallback);
  return std::chrono::milliseconds(static_cast<std::int64_t>(s * 1000.0));
}

std::optional<std::string> ConfigView::String(const char* key) const {
  auto it = conf_->find(key);
  if (it == conf_->end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::chrono::milliseconds ConfigView::SubprocessTimeout() const {
  if (Number(keys::kSubprocessTimeoutSecs)) return Seconds(keys::kSubprocessTimeoutSecs, 30);
  return Seconds(keys::kWorkerTimeoutSecs, 30);
}

bool ConfigView::AckingEnabled() const {
  auto n = Int(keys::kAckerExecutors);
  return !n || *n != 0;
}

}  // namespace sparse::runtime
