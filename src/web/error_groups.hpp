// Repeated errors, grouped: a bolt that fails the same way on every tuple shows as one row with
// a count, the first and last time, and its first line, instead of a page of tracebacks.
//
// Two errors are "the same" when they come from the same component and their first lines are
// equal once every run of digits is replaced by `#` (so "tuple 17 failed" and "tuple 18 failed"
// are one group; the line shown is the newest occurrence's). The whole text of the newest
// occurrence is kept for the traceback on demand. Counts cover the whole run; the number of
// groups is bounded, the group seen least recently is forgotten first.
//
// Pure and not thread-safe: used on the cluster's event loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>

namespace sparse::web {

struct ErrorGroup {
  std::string component;
  std::string key;         // the first line with digits replaced by `#`
  std::string first_line;  // of the newest occurrence
  std::string last_text;   // the newest occurrence, whole (traceback included)
  std::uint64_t count = 0;
  std::int64_t first_ms = 0;  // wall clock, ms since the epoch
  std::int64_t last_ms = 0;
  std::set<int> tasks;  // the tasks that reported it
};

// The first line of an error text (without a trailing '\r'), skipping leading blank lines.
std::string FirstLine(std::string_view text);

class ErrorGroups {
 public:
  explicit ErrorGroups(std::size_t max_groups = 200) : max_groups_(max_groups) {}

  void Add(const std::string& component, int task, std::string_view text, std::int64_t time_ms);

  // Most recently seen first.
  const std::list<ErrorGroup>& groups() const { return groups_; }
  std::uint64_t forgotten() const { return forgotten_; }  // groups dropped for the bound

 private:
  std::size_t max_groups_;
  std::uint64_t forgotten_ = 0;
  std::list<ErrorGroup> groups_;
  std::unordered_map<std::string, std::list<ErrorGroup>::iterator> index_;  // component\0key
};

}  // namespace sparse::web
