#include "runtime/component_logs.hpp"

#include <chrono>
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

ComponentLogs::ComponentLogs(std::filesystem::path dir) : dir_(std::move(dir)) {
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
  }
}

void ComponentLogs::Write(const std::string& component, int task, std::string_view level,
                          std::string_view msg) {
  if (dir_.empty()) return;
  auto& f = files_[component];
  if (!f) {
    f = std::make_unique<std::ofstream>(dir_ / (component + ".log"), std::ios::app);
  }
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
  *f << buf << msbuf << " task=" << task << ' ' << level << ' ' << msg << '\n';
}

void ComponentLogs::Flush() {
  for (auto& [_, f] : files_) f->flush();
}

}  // namespace sparse::runtime
