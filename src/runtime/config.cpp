#include "runtime/config.hpp"

#include <algorithm>
#include <cmath>

#include "runtime/nearest_name.hpp"
#include "runtime/yaml_json.hpp"

namespace sparse::runtime {

namespace {

using nlohmann::json;
constexpr double kDay = 86400;

}  // namespace

const std::vector<Setting>& Settings() {
  using T = SettingType;
  // Storm's keys carry Storm's defaults (defaults.yaml); ranges are what makes sense locally.
  static const std::vector<Setting> settings = {
      {keys::kMessageTimeoutSecs, T::kInt, 30, 1, kDay},
      {keys::kMaxSpoutPending, T::kInt, nullptr, 1, 1e9},
      {keys::kSubprocessTimeoutSecs, T::kInt, nullptr, 1, kDay},
      {keys::kWorkerTimeoutSecs, T::kInt, 30, 1, kDay},
      {keys::kShellBoltMaxPending, T::kInt, 100, 1, 1e9},
      {keys::kTickTupleFreqSecs, T::kInt, nullptr, 1, kDay},
      {keys::kDebug, T::kBool, false},
      {keys::kAckerExecutors, T::kInt, nullptr, 0, 1e6},
      {keys::kWorkers, T::kInt, 1, 1, 1e6},
      {keys::kSleepSpoutWaitMs, T::kInt, 1, 0, 60000},
      {keys::kSerializer, T::kString, "org.apache.storm.multilang.JsonSerializer"},
      {keys::kTopologyName, T::kString, nullptr},
      {keys::kEnvironment, T::kMapping, nullptr},
      {keys::kHandshakeTimeoutSecs, T::kNumber, 30, 0.001, kDay},
      {keys::kHeartbeatSecs, T::kNumber, 1, 0.001, 3600},
      {keys::kSpoutMaxUnsynced, T::kInt, 64, 1, 1e6},
      {keys::kSpoutMaxUnsyncedNexts, T::kInt, 32, 1, 1e6},
      {keys::kSpoutMaxFailingNexts, T::kInt, 100, 0, 1e9},
      {keys::kMaxMessageBytes, T::kInt, 64 * 1024 * 1024, 1024, 1ull << 40},
      {keys::kShutdownGraceSecs, T::kNumber, 5, 0, kDay},
      {keys::kDrainSecs, T::kNumber, nullptr, 0, kDay},
      {keys::kQueueHighWatermark, T::kInt, 1000, 1, 1e9},
      {keys::kQueueLowWatermark, T::kInt, 500, 0, 1e9},
      {keys::kQueueHighWatermarkBytes, T::kInt, 64 * 1024 * 1024, 1, 1ull << 40},
      {keys::kQueueLowWatermarkBytes, T::kInt, 32 * 1024 * 1024, 0, 1ull << 40},
      {keys::kBuiltinMaxPending, T::kInt, 10000, 1, 1e9},
      {keys::kRestartMax, T::kInt, 5, 0, 1e9},
      {keys::kRestartWindowSecs, T::kNumber, 60, 0.001, kDay},
      {keys::kRestartBackoffMs, T::kInt, 100, 0, kDay * 1000},
      {keys::kRestartBackoffMaxMs, T::kInt, 5000, 0, kDay * 1000},
      {keys::kLogMaxBytes, T::kInt, 64 * 1024 * 1024, 4096, 1ull << 40},
      {keys::kLogBackups, T::kInt, 3, 0, 1000},
      {keys::kMaxTasks, T::kInt, 1024, 1, 1e6},
  };
  return settings;
}

const Setting* FindSetting(std::string_view key) {
  for (const auto& s : Settings()) {
    if (key == s.key) return &s;
  }
  return nullptr;
}

const json& DefaultConfig() {
  static const json defaults = [] {
    json d = json::object();
    for (const auto& s : Settings()) d[s.key] = s.fallback;
    return d;
  }();
  return defaults;
}

namespace {

std::string_view TypeName(SettingType t) {
  switch (t) {
    case SettingType::kInt:
      return "a whole number";
    case SettingType::kNumber:
      return "a number";
    case SettingType::kBool:
      return "true or false";
    case SettingType::kString:
      return "a string";
    case SettingType::kMapping:
      return "a mapping";
  }
  return "a value";
}

std::string Shown(const json& v) {
  // A YAML string may hold any bytes: shown with U+FFFD for invalid UTF-8 (dump() would throw).
  std::string text = v.dump(-1, ' ', false, json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

bool HasType(const json& v, SettingType t) {
  switch (t) {
    case SettingType::kInt:
      return v.is_number_integer() || (v.is_number_float() && std::isfinite(v.get<double>()) &&
                                       v.get<double>() == std::floor(v.get<double>()));
    case SettingType::kNumber:
      return v.is_number() && std::isfinite(v.get<double>());
    case SettingType::kBool:
      return v.is_boolean();
    case SettingType::kString:
      return v.is_string();
    case SettingType::kMapping:
      return v.is_object();
  }
  return false;
}

std::string Number(double d) {
  if (d == std::floor(d) && std::fabs(d) < 1e15) return std::to_string(static_cast<long long>(d));
  std::string s = std::to_string(d);
  s.erase(s.find_last_not_of('0') + 1);
  return s;
}

// The known key nearest to `key`, if it is near enough to be a likely misspelling.
std::optional<std::string> Nearest(std::string_view key) {
  static const std::vector<std::string> known = [] {
    std::vector<std::string> names;
    for (const auto& s : Settings()) names.emplace_back(s.key);
    return names;
  }();
  return NearestName(key, known);
}

}  // namespace

std::vector<ConfigIssue> CheckConfig(const json& conf) {
  std::vector<ConfigIssue> issues;
  if (!conf.is_object()) return issues;
  for (auto it = conf.begin(); it != conf.end(); ++it) {
    const std::string& key = it.key();
    const json& v = it.value();
    const Setting* s = FindSetting(key);
    if (!s) {
      const auto near = Nearest(key);
      const std::string hint = near ? " (did you mean `" + *near + "`?)" : "";
      if (key.starts_with("sparse.")) {
        issues.push_back({key, "unknown key `" + key + "`" + hint});
      } else if (near) {
        issues.push_back({key, "unknown key `" + key + "`" + hint, false});
      } else if (key.starts_with("topology.")) {
        issues.push_back(
            {key, "`" + key + "` is not used by a local run (it goes to Storm on submit)", false});
      }
      continue;
    }
    if (v.is_null()) {
      if (!s->fallback.is_null()) {
        issues.push_back({key, "`" + key + "` must be " + std::string(TypeName(s->type)) +
                                   ", got null (leave it out for the default, " +
                                   s->fallback.dump() + ")"});
      }
      continue;
    }
    if (!HasType(v, s->type)) {
      issues.push_back(
          {key, "`" + key + "` must be " + std::string(TypeName(s->type)) + ", got " + Shown(v)});
      continue;
    }
    if (s->type == SettingType::kInt || s->type == SettingType::kNumber) {
      const double d = v.get<double>();
      if (d < s->min || d > s->max) {
        issues.push_back({key, "`" + key + "` must be between " + Number(s->min) + " and " +
                                   Number(s->max) + ", got " + Shown(v)});
      }
    }
  }
  return issues;
}

std::vector<ConfigIssue> CheckMergedConfig(const json& conf) {
  std::vector<ConfigIssue> issues;
  const ConfigView view(&conf);
  auto ordered = [&](const char* low, const char* high) {
    if (!conf.contains(low)) return;
    const auto l = view.Int(low), h = view.Int(high);
    if (l && h && *l >= *h) {
      issues.push_back({low, "`" + std::string(low) + "` (" + std::to_string(*l) +
                                 ") must be below `" + high + "` (" + std::to_string(*h) + ")"});
    }
  };
  ordered(keys::kQueueLowWatermark, keys::kQueueHighWatermark);
  ordered(keys::kQueueLowWatermarkBytes, keys::kQueueHighWatermarkBytes);
  return issues;
}

std::optional<std::pair<std::string, json>> ParseOverride(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return std::nullopt;
  return std::make_pair(text.substr(0, eq), ParseYamlValue(text.substr(eq + 1)));
}

void MergeConfig(json& base, const json& over) {
  if (!over.is_object()) return;
  for (auto it = over.begin(); it != over.end(); ++it) base[it.key()] = it.value();
}

namespace {

// The key's value if it has the declared type, else its default (null when it has none).
const json& ValueOf(const json* conf, const char* key) {
  static const json null;
  const Setting* s = FindSetting(key);
  auto it = conf->find(key);
  if (it != conf->end() && !it->is_null() && (!s || HasType(*it, s->type))) return *it;
  return s ? s->fallback : null;
}

}  // namespace

std::optional<std::int64_t> ConfigView::Int(const char* key) const {
  const json& v = ValueOf(conf_, key);
  if (!v.is_number()) return std::nullopt;
  return v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(v.get<double>());
}

std::optional<double> ConfigView::Number(const char* key) const {
  const json& v = ValueOf(conf_, key);
  if (!v.is_number()) return std::nullopt;
  return v.get<double>();
}

bool ConfigView::Bool(const char* key) const {
  const json& v = ValueOf(conf_, key);
  return v.is_boolean() && v.get<bool>();
}

std::optional<std::chrono::milliseconds> ConfigView::Seconds(const char* key) const {
  const auto s = Number(key);
  if (!s) return std::nullopt;
  return std::chrono::milliseconds(static_cast<std::int64_t>(*s * 1000.0));
}

std::optional<std::string> ConfigView::String(const char* key) const {
  const json& v = ValueOf(conf_, key);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::chrono::milliseconds ConfigView::SubprocessTimeout() const {
  if (auto t = Seconds(keys::kSubprocessTimeoutSecs)) return *t;
  return SecondsValue(keys::kWorkerTimeoutSecs);
}

bool ConfigView::AckingEnabled() const {
  auto n = Int(keys::kAckerExecutors);
  return !n || *n != 0;
}

}  // namespace sparse::runtime
