#include "cli/console.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace sparse::cli {

namespace {
constexpr const char* kRed = "31";
constexpr const char* kYellow = "33";
constexpr const char* kDim = "2";
constexpr const char* kBold = "1";
constexpr const char* kCyan = "36";

std::string Count(std::uint64_t n) {
  std::string s = std::to_string(n);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3)
    s.insert(static_cast<std::size_t>(i), ",");
  return s;
}

std::string Fixed(double v, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << v;
  return o.str();
}

// A message indented by four spaces. A long one keeps its first 10 and last 30 lines: a
// traceback's exception is on its last line.
std::string Indented(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    lines.push_back(text.substr(pos, end - pos));
    pos = end + 1;
  }
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string_view::npos) {
    lines.pop_back();
  }
  constexpr std::size_t kHead = 10, kTail = 30;
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines.size() > kHead + kTail + 1 && i == kHead) {
      out += "    ... " + std::to_string(lines.size() - kHead - kTail) + " lines ...\n";
      i = lines.size() - kTail - 1;
      continue;
    }
    out += "    " + std::string(lines[i].substr(0, 2000)) + "\n";
  }
  return out;
}

std::uint64_t Total(const runtime::ClusterSnapshot& s, bool spouts,
                    std::uint64_t runtime::TaskStats::*field) {
  std::uint64_t n = 0;
  for (const auto& c : s.components) {
    if (c.spout == spouts) n += c.totals.*field;
  }
  return n;
}
}  // namespace

Style Style::ForStderr() {
  Style s;
  s.tty = ::isatty(2) != 0;
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  s.color = s.tty && !(no_color && *no_color) && !(term && std::string(term) == "dumb");
  return s;
}

std::string Style::Paint(std::string_view text, const char* code) const {
  if (!color) return std::string(text);
  return std::string("\033[") + code + "m" + std::string(text) + "\033[0m";
}

ConsoleObserver::ConsoleObserver(std::string topology_name, bool debug, Style style,
                                 ConsoleWriter& out, std::string log_dir)
    : name_(std::move(topology_name)),
      debug_(debug),
      style_(style),
      out_(out),
      log_dir_(std::move(log_dir)) {}

std::string ConsoleObserver::ClearStatus() {
  if (!status_shown_) return {};
  status_shown_ = false;
  return "\r\033[K";
}

std::string ConsoleObserver::DrawStatus() {
  if (!style_.tty || status_.empty()) return {};
  status_shown_ = true;
  return "\r\033[K" + status_;
}

void ConsoleObserver::Line(const std::string& text) {
  out_.Submit(ClearStatus() + text + "\n" + DrawStatus());
}

void ConsoleObserver::OnStarting(int ready, int total) {
  std::string text = "starting " + name_ + ": " + std::to_string(ready) + "/" +
                     std::to_string(total) + " tasks ready";
  if (style_.tty) {
    status_ = text;
    out_.Submit(DrawStatus());
  } else if (ready == 0 || ready == total) {
    Line(text);
  }
}

void ConsoleObserver::OnRunning() {
  status_.clear();
  Line(style_.Paint("running " + name_, kBold) + " (Ctrl-C drains and stops; twice forces)");
}

void ConsoleObserver::TaskLine(const std::string& component, int task, std::string_view message,
                               const std::string& text, bool collapse) {
  if (budget_.Admit(task, message, std::chrono::steady_clock::now(), collapse)) {
    Line(text);
  } else {
    component_of_.emplace(task, component);
  }
}

void ConsoleObserver::Notices(bool all) {
  for (const auto& held : budget_.TakeDue(std::chrono::steady_clock::now(), all)) {
    const std::string& component = component_of_[held.task];
    std::string text = "[" + component + ":" + std::to_string(held.task) + "] ... and ";
    if (held.alike == held.messages) {
      text += Count(held.messages) + " more like this";
    } else {
      text += Count(held.messages) + " more messages (" + Count(held.lines) + " lines)";
      if (held.alike) text += ", " + Count(held.alike) + " of them like the last one shown";
    }
    text += log_dir_.empty() ? " (the component's log file has every line)"
                             : " (every line is in " + log_dir_ + "/" + component + ".log)";
    Line(style_.Paint(text, kDim));
  }
}

void ConsoleObserver::OnLog(const std::string& component, int task, int level,
                            std::string_view msg) {
  if (level < 2 && !debug_) return;
  std::string prefix = "[" + component + ":" + std::to_string(task) + "] ";
  std::string text(msg);
  if (level >= 4) {
    text = style_.Paint(prefix, kCyan) + style_.Paint(text, kRed);
  } else if (level == 3) {
    text = style_.Paint(prefix, kCyan) + style_.Paint(text, kYellow);
  } else if (level < 2) {
    text = style_.Paint(prefix + text, kDim);
  } else {
    text = style_.Paint(prefix, kCyan) + text;
  }
  TaskLine(component, task, msg, text, /*collapse=*/false);
}

void ConsoleObserver::OnStderr(const std::string& component, int task, std::string_view line) {
  TaskLine(component, task, line,
           style_.Paint("[" + component + ":" + std::to_string(task) + " stderr] ", kDim) +
               std::string(line.substr(0, 2000)));
}

void ConsoleObserver::OnComponentError(const std::string& component, int task,
                                       std::string_view msg) {
  TaskLine(component, task, msg,
           style_.Paint("error in " + component + ":" + std::to_string(task) + ": ", kRed) +
               std::string(msg));
}

void ConsoleObserver::OnTaskFailure(const runtime::FailureReport& r,
                                    std::optional<std::chrono::milliseconds> restart_in) {
  std::string text =
      style_.Paint("component " + r.component + " task " + std::to_string(r.task) +
                       (r.pid > 0 ? " (pid " + std::to_string(r.pid) + ")" : "") + " failed: ",
                   kRed) +
      r.reason;
  if (!r.offending.empty()) text += "\n  offending message: " + r.offending;
  if (!r.stderr_tail.empty()) {
    text += "\n  last lines of its stderr:";
    std::istringstream in(r.stderr_tail);
    for (std::string l; std::getline(in, l);) text += "\n    " + l;
  }
  if (restart_in) text += "\n  restarting it in " + std::to_string(restart_in->count()) + " ms";
  Line(text);
}

void ConsoleObserver::OnStatus(const runtime::ClusterSnapshot& s) {
  prev_ = last_;
  last_ = s;
  Notices(s.state != "running" && s.state != "starting");
  if (s.state != "running" && s.state != "draining") return;
  const double dt = s.uptime_secs - prev_.uptime_secs;
  const std::uint64_t emitted = Total(s, true, &runtime::TaskStats::emitted);
  const std::uint64_t prev_emitted = Total(prev_, true, &runtime::TaskStats::emitted);
  const std::uint64_t executed = Total(s, false, &runtime::TaskStats::executed);
  const std::uint64_t failed =
      Total(s, true, &runtime::TaskStats::failed) + Total(s, false, &runtime::TaskStats::failed);
  const std::uint64_t errors =
      Total(s, true, &runtime::TaskStats::errors) + Total(s, false, &runtime::TaskStats::errors);
  const double rate = dt > 0 ? static_cast<double>(emitted - prev_emitted) / dt : 0;
  std::string text = Fixed(s.uptime_secs, 0) + "s " + s.state + "  spouts emitted " +
                     Count(emitted) + " (" + Count(static_cast<std::uint64_t>(rate)) +
                     "/s)  bolts executed " + Count(executed) + "  failed " + Count(failed) +
                     "  errors " + Count(errors) + "  pending " + Count(s.pending_trees) +
                     (s.backpressure ? "  [backpressure]" : "");
  if (style_.tty) {
    status_ = text;
    out_.Submit(DrawStatus());
  } else {
    auto now = std::chrono::steady_clock::now();
    if (now - last_plain_ >= std::chrono::seconds(5)) {
      last_plain_ = now;
      Line(text);
    }
  }
}

void ConsoleObserver::OnStopping(const std::string& reason) {
  status_.clear();
  Notices(true);
  Line("stopping " + name_ + ": " + reason);
}

void ConsoleObserver::OnFatal(const std::string& message) {
  status_.clear();
  Notices(true);
  Line(style_.Paint("sparse: ", kRed) + message);
}

void PrintSummary(std::ostream& out, const runtime::ClusterSnapshot& s) {
  struct Col {
    std::string title;
    bool left = false;
  };
  const std::vector<Col> cols = {{"component", true}, {"type", true}, {"tasks"},    {"emitted"},
                                 {"transferred"},     {"executed"},   {"acked"},    {"failed"},
                                 {"timed out"},       {"errors"},     {"restarts"}, {"latency ms"},
                                 {"capacity"}};
  std::vector<std::vector<std::string>> rows;
  for (const auto& c : s.components) {
    const auto& t = c.totals;
    const double latency = c.spout ? t.complete_latency.Average() : t.process_latency.Average();
    rows.push_back({c.id, c.spout ? "spout" : "bolt", std::to_string(c.tasks), Count(t.emitted),
                    Count(t.transferred), c.spout ? "-" : Count(t.executed), Count(t.acked),
                    Count(t.failed), c.spout ? Count(t.timed_out) : "-", Count(t.errors),
                    Count(t.restarts), Fixed(latency, 2), c.spout ? "-" : Fixed(c.capacity, 3)});
  }
  std::vector<std::size_t> width(cols.size());
  for (std::size_t i = 0; i < cols.size(); ++i) {
    width[i] = cols[i].title.size();
    for (const auto& r : rows) width[i] = std::max(width[i], r[i].size());
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i) out << "  ";
      if (cols[i].left) {
        out << std::left << std::setw(static_cast<int>(width[i])) << cells[i];
      } else {
        out << std::right << std::setw(static_cast<int>(width[i])) << cells[i];
      }
    }
    out << std::right << "\n";
  };
  std::vector<std::string> titles;
  for (const auto& c : cols) titles.push_back(c.title);
  print_row(titles);
  for (const auto& r : rows) print_row(r);
  for (const auto& c : s.components) {
    if (c.totals.dropped || c.totals.expired_inputs || c.totals.abandoned) {
      out << c.id << ": " << c.totals.dropped << " dropped, " << c.totals.expired_inputs
          << " inputs expired un-acked, " << c.totals.abandoned
          << " trees abandoned with a dead spout task\n";
    }
    if (!c.last_error.empty()) out << c.id << ": last error:\n" << Indented(c.last_error);
  }
}

std::string SnapshotJson(const runtime::ClusterSnapshot& s, const std::string& topology) {
  using nlohmann::json;
  json comps = json::array();
  for (const auto& c : s.components) {
    const auto& t = c.totals;
    json j{{"id", c.id},
           {"type", c.spout ? "spout" : "bolt"},
           {"tasks", c.tasks},
           {"emitted", t.emitted},
           {"transferred", t.transferred},
           {"executed", t.executed},
           {"acked", t.acked},
           {"failed", t.failed},
           {"timed_out", t.timed_out},
           {"errors", t.errors},
           {"restarts", t.restarts},
           {"dropped", t.dropped},
           {"expired_inputs", t.expired_inputs},
           {"abandoned", t.abandoned},
           {"logs", t.logs},
           {"queue_depth", t.queue_depth},
           {"pending", t.pending},
           {"backpressure_ms", t.backpressure_ms},
           {"complete_latency_ms", t.complete_latency.Average()},
           {"process_latency_ms", t.process_latency.Average()},
           {"execute_latency_ms", t.execute_latency.Average()},
           {"capacity", c.capacity},
           {"last_error", c.last_error},
           {"last_error_age_secs", c.last_error_age_secs},
           {"gauges", t.gauges}};
    comps.push_back(std::move(j));
  }
  json root{{"topology", topology},           {"state", s.state},
            {"uptime_secs", s.uptime_secs},   {"pending_trees", s.pending_trees},
            {"tasks_ready", s.tasks_ready},   {"tasks_total", s.tasks_total},
            {"backpressure", s.backpressure}, {"components", comps}};
  return root.dump(2);
}

}  // namespace sparse::cli
