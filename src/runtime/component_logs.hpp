// One log file per component (`<dir>/<component>.log`), holding its `log` messages, errors,
// stderr lines and failure reports with the task id, so a run can be read (or tailed) afterwards.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace sparse::runtime {

class ComponentLogs {
 public:
  // An empty dir disables file logging.
  explicit ComponentLogs(std::filesystem::path dir);
  void Write(const std::string& component, int task, std::string_view level, std::string_view msg);
  void Flush();
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::map<std::string, std::unique_ptr<std::ofstream>> files_;
};

std::string_view LevelName(int level);

}  // namespace sparse::runtime
