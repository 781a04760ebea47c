// How much of one task's output the console shows. Everything a task causes to be printed (its
// log lines, its `error` commands, its stderr) draws on one budget per task: a burst of lines, then
// a steady rate. A message shaped like the last one shown from the same task (the same text once
// numbers and quoted values are masked: the same traceback on other data) is held for a while
// instead of printed again. What is held is counted and reported later as one notice per task.
// The component's log file keeps every line either way: this only decides what reaches a person.
//
// Pure: the time is passed in, so it is tested without a clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sparse::cli {

class ConsoleBudget {
 public:
  using Clock = std::chrono::steady_clock;

  struct Limits {
    double burst = 100;         // lines a quiet task may print at once
    double lines_per_sec = 20;  // lines it earns back per second, up to `burst`
    // A message like the task's last shown one is held for this long, then shown again (so a
    // persistent failure stays visible).
    std::chrono::milliseconds repeat_window{std::chrono::seconds(30)};
    // A task's held messages are reported at most this often.
    std::chrono::milliseconds notice_every{std::chrono::seconds(5)};
  };

  // What was held from one task since its last notice.
  struct Held {
    int task = 0;
    std::uint64_t messages = 0;
    std::uint64_t lines = 0;
    std::uint64_t alike = 0;  // of `messages`, those shaped like the last one shown
  };

  ConsoleBudget() : ConsoleBudget(Limits{}) {}
  explicit ConsoleBudget(Limits limits) : limits_(limits) {}

  // True: print `message` (from `task`) now. False: it is held and counted. A message of several
  // lines costs its line count; one that exceeds what is left is still shown when any budget is
  // left, and the task then owes the rest. `collapse`: hold a message like the last one shown
  // even within the budget (errors and stderr: the same traceback again); log lines, which differ
  // in their values by design (LogInfoBolt, a counter's progress), are held only over budget.
  bool Admit(int task, std::string_view message, Clock::time_point now, bool collapse = true);

  // The tasks whose notice is due (`notice_every` after the first message held since their last
  // notice; every task with held messages when `all`), oldest task id first. Their counts restart.
  std::vector<Held> TakeDue(Clock::time_point now, bool all);

  // The text with digits and the contents of quotes masked, keeping only the first and the last
  // non-empty line: what makes two messages "like" each other.
  static std::string Shape(std::string_view message);

 private:
  struct TaskState {
    bool seen = false;  // a task starts with a full budget
    double tokens = 0;  // may go below zero: a long message leaves a debt
    Clock::time_point refilled{};
    std::string last_shape;
    Clock::time_point last_shape_shown{};
    Held held;
    Clock::time_point first_held{};
  };
  Limits limits_;
  std::map<int, TaskState> tasks_;
};

}  // namespace sparse::cli
