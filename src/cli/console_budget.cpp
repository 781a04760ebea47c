#include "cli/console_budget.hpp"

#include <algorithm>

namespace sparse::cli {

namespace {

std::size_t LineCount(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
}

// Masks what varies between two occurrences of the same problem: numbers (line numbers, ids,
// counts) and quoted values (the data a tuple carried).
std::string Mask(std::string_view line) {
  std::string out;
  out.reserve(line.size());
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote) {
        quote = 0;
        out += c;
      }
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      out += c;
      out += '_';
    } else if (c >= '0' && c <= '9') {
      if (out.empty() || out.back() != '#') out += '#';
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string ConsoleBudget::Shape(std::string_view message) {
  std::string_view first, last;
  std::size_t pos = 0;
  while (pos <= message.size()) {
    std::size_t end = message.find('\n', pos);
    if (end == std::string_view::npos) end = message.size();
    std::string_view line = message.substr(pos, end - pos);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
      if (first.empty()) first = line;
      last = line;
    }
    pos = end + 1;
  }
  if (first.data() == last.data()) return Mask(first);
  return Mask(first) + "\n" + Mask(last);
}

bool ConsoleBudget::Admit(int task, std::string_view message, Clock::time_point now,
                          bool collapse) {
  TaskState& s = tasks_[task];
  if (!s.seen) {
    s.seen = true;
    s.tokens = limits_.burst;
  } else if (now > s.refilled) {
    const double secs = std::chrono::duration<double>(now - s.refilled).count();
    s.tokens = std::min(limits_.burst, s.tokens + secs * limits_.lines_per_sec);
  }
  s.refilled = std::max(s.refilled, now);

  std::string shape = Shape(message);
  const bool alike = !s.last_shape.empty() && shape == s.last_shape &&
                     now - s.last_shape_shown < limits_.repeat_window;
  if ((!alike || !collapse) && s.tokens >= 1) {
    s.tokens -= static_cast<double>(LineCount(message));
    s.last_shape = std::move(shape);
    s.last_shape_shown = now;
    return true;
  }
  if (s.held.messages == 0) s.first_held = now;
  s.held.task = task;
  s.held.messages++;
  s.held.lines += LineCount(message);
  if (alike) s.held.alike++;
  return false;
}

std::vector<ConsoleBudget::Held> ConsoleBudget::TakeDue(Clock::time_point now, bool all) {
  std::vector<Held> due;
  for (auto& [task, s] : tasks_) {
    if (s.held.messages == 0) continue;
    if (!all && now - s.first_held < limits_.notice_every) continue;
    due.push_back(s.held);
    s.held = Held{};
  }
  return due;
}

}  // namespace sparse::cli
