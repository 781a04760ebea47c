#include "runtime/component_logs.hpp"

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>

namespace sparse::runtime {

std::string_view LevelName(int level) {
  switch (level) {
    case 0:
      return "TRACE";
    case 1:
      return "DEBUG";
    case 2:
      return "INFO";
    case 3:
      return "WARN";
    default:
      return "ERROR";
  }
}

ComponentLogs::ComponentLogs(std::filesystem::path dir, std::uint64_t max_bytes, int backups)
    : dir_(std::move(dir)),
      max_bytes_(std::max<std::uint64_t>(max_bytes, 1024)),
      backups_(backups) {
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
  }
}

void ComponentLogs::Write(const std::string& component, int task, std::string_view level,
                          std::string_view msg) {
  if (dir_.empty()) return;
  File& f = Open(component);
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  char msbuf[8];
  std::snprintf(msbuf, sizeof msbuf, ".%03d", static_cast<int>(ms));
  std::string line = std::string(buf) + msbuf + " task=" + std::to_string(task) + ' ';
  line.append(level);
  line.push_back(' ');
  line.append(msg);
  Append(component, f, line);
}

void ComponentLogs::BeginRun(const std::vector<std::string>& components,
                             std::string_view topology) {
  if (dir_.empty()) return;
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
  const std::string line = std::string("===== ") + buf + " run of `" + std::string(topology) +
                           "` started (sparse pid " + std::to_string(::getpid()) + ") =====";
  for (const auto& c : components) Append(c, Open(c), line);
}

ComponentLogs::File& ComponentLogs::Open(const std::string& component) {
  auto& f = files_[component];
  if (!f.out) {
    const auto path = dir_ / (component + ".log");
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    f.bytes = ec ? 0 : size;
    f.out = std::make_unique<std::ofstream>(path, std::ios::app);
  }
  return f;
}

void ComponentLogs::Append(const std::string& component, File& file, const std::string& line) {
  if (file.bytes > 0 && file.bytes + line.size() + 1 > max_bytes_) Rotate(component, file);
  *file.out << line << '\n';
  file.bytes += line.size() + 1;
}

void ComponentLogs::Rotate(const std::string& component, File& file) {
  file.out->close();
  const auto base = dir_ / (component + ".log");
  auto numbered = [&](int n) { return base.string() + "." + std::to_string(n); };
  std::error_code ec;
  if (backups_ <= 0) {
    std::filesystem::remove(base, ec);
  } else {
    std::filesystem::remove(numbered(backups_), ec);
    for (int n = backups_ - 1; n >= 1; --n)
      std::filesystem::rename(numbered(n), numbered(n + 1), ec);
    std::filesystem::rename(base, numbered(1), ec);
  }
  file.out = std::make_unique<std::ofstream>(base, std::ios::trunc);
  file.bytes = 0;
}

void ComponentLogs::Flush() {
  for (auto& [_, f] : files_) f.out->flush();
}

}  // namespace sparse::runtime
