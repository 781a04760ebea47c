// How `sparse run` talks to a person: progress while starting, a live one-line status on a TTY
// (plain periodic lines otherwise), component logs and errors as they happen, failure reports,
// and the end-of-run table. Messages go to stderr; the final table goes to stdout.
#pragma once

#include <chrono>
#include <map>
#include <ostream>
#include <string>

#include "cli/console_budget.hpp"
#include "cli/console_writer.hpp"
#include "runtime/local_cluster.hpp"

namespace sparse::cli {

struct Style {
  bool tty = false;
  bool color = false;
  static Style ForStderr();
  std::string Paint(std::string_view text, const char* code) const;
};

class ConsoleObserver final : public runtime::ClusterObserver {
 public:
  // Everything is written through `out`, so that a console that does not keep up never blocks
  // the runtime's loop. `log_dir`: where the component logs are, named in budget notices.
  ConsoleObserver(std::string topology_name, bool debug, Style style, ConsoleWriter& out,
                  std::string log_dir = {});

  void OnStarting(int ready, int total) override;
  void OnRunning() override;
  void OnLog(const std::string& component, int task, int level, std::string_view msg) override;
  void OnStderr(const std::string& component, int task, std::string_view line) override;
  void OnComponentError(const std::string& component, int task, std::string_view msg) override;
  void OnTaskFailure(const runtime::FailureReport& report,
                     std::optional<std::chrono::milliseconds> restart_in) override;
  void OnStatus(const runtime::ClusterSnapshot& snapshot) override;
  void OnStopping(const std::string& reason) override;
  void OnFatal(const std::string& message) override;

  const runtime::ClusterSnapshot& last() const { return last_; }

 private:
  void Line(const std::string& text);  // prints a message line, keeping the status line intact
  // Prints a message of `task` if its console budget allows; `message` is what makes it alike.
  void TaskLine(const std::string& component, int task, std::string_view message,
                const std::string& text, bool collapse = true);
  // Prints the notices of held messages that are due (all of them when `all`).
  void Notices(bool all);
  std::string ClearStatus();
  std::string DrawStatus();

  std::string name_;
  bool debug_;
  Style style_;
  ConsoleWriter& out_;
  std::string status_;
  bool status_shown_ = false;
  runtime::ClusterSnapshot last_;
  runtime::ClusterSnapshot prev_;
  std::chrono::steady_clock::time_point last_plain_{};
  std::string log_dir_;
  ConsoleBudget budget_;
  std::map<int, std::string> component_of_;  // of the tasks that have held messages
};

// The end-of-run table: one row per component, then each component's counts of lost work and
// its whole last error (long ones keep their first and last lines, where the exception is).
void PrintSummary(std::ostream& out, const runtime::ClusterSnapshot& snapshot);
// The same numbers as JSON (also what `sparse stats --json` prints).
std::string SnapshotJson(const runtime::ClusterSnapshot& snapshot, const std::string& topology);

}  // namespace sparse::cli
