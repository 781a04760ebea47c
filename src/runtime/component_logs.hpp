// One log file per component (`<dir>/<component>.log`), holding its `log` messages, errors,
// stderr lines and failure reports with the task id, so a run can be read (or tailed) afterwards.
// A file never grows past `max_bytes`: it is rotated to NAME.log.1 (older ones shift to .2 ...,
// at most `backups` are kept), so a child flooding stderr cannot fill the disk. Component ids
// are validated (validate.hpp) before they name a file here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sparse::runtime {

class ComponentLogs {
 public:
  static constexpr std::uint64_t kDefaultMaxBytes = 64ull << 20;
  static constexpr int kDefaultBackups = 3;

  // An empty dir disables file logging.
  explicit ComponentLogs(std::filesystem::path dir, std::uint64_t max_bytes = kDefaultMaxBytes,
                         int backups = kDefaultBackups);
  void Write(const std::string& component, int task, std::string_view level, std::string_view msg);
  // Writes a separator line into every component's log at the start of a run, so one run's lines
  // are told from the last one's (also for a component that never logs in this run).
  void BeginRun(const std::vector<std::string>& components, std::string_view topology);
  void Flush();
  const std::filesystem::path& dir() const { return dir_; }

 private:
  struct File {
    std::unique_ptr<std::ofstream> out;
    std::uint64_t bytes = 0;  // the file's size, including what it held before this run
  };
  void Rotate(const std::string& component, File& file);
  File& Open(const std::string& component);
  void Append(const std::string& component, File& file, const std::string& line);  // with '\n'

  std::filesystem::path dir_;
  std::uint64_t max_bytes_;
  int backups_;
  std::map<std::string, File> files_;
};

std::string_view LevelName(int level);

}  // namespace sparse::runtime
