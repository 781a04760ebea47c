#include "web/error_groups.hpp"

#include <cctype>

namespace sparse::web {

namespace {

// How much of the newest occurrence is kept: a traceback, not a log.
constexpr std::size_t kMaxText = 8000;
constexpr std::size_t kMaxLine = 500;

std::string KeyOf(std::string_view line) {
  std::string key;
  key.reserve(line.size());
  bool in_digits = false;
  for (char c : line) {
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0;
    if (digit && !in_digits) key += '#';
    if (!digit) key += c;
    in_digits = digit;
  }
  return key;
}

}  // namespace

std::string FirstLine(std::string_view text) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) {
      return std::string(line.substr(0, kMaxLine));
    }
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return "";
}

void ErrorGroups::Add(const std::string& component, int task, std::string_view text,
                      std::int64_t time_ms) {
  std::string line = FirstLine(text);
  std::string key = KeyOf(line);
  std::string index_key = component;
  index_key += '\0';
  index_key += key;
  auto found = index_.find(index_key);
  if (found == index_.end()) {
    ErrorGroup g;
    g.component = component;
    g.key = std::move(key);
    g.first_ms = time_ms;
    groups_.push_front(std::move(g));
    found = index_.emplace(std::move(index_key), groups_.begin()).first;
  } else {
    groups_.splice(groups_.begin(), groups_, found->second);  // now the most recently seen
  }
  ErrorGroup& g = groups_.front();
  g.first_line = std::move(line);
  g.last_text = std::string(text.substr(0, kMaxText));
  g.count++;
  g.last_ms = time_ms;
  g.tasks.insert(task);
  while (groups_.size() > max_groups_) {
    const ErrorGroup& oldest = groups_.back();
    std::string k = oldest.component;
    k += '\0';
    k += oldest.key;
    index_.erase(k);
    groups_.pop_back();
    forgotten_++;
  }
}

}  // namespace sparse::web
