// Keeps a component from flooding the user with the same error: a broker that is down makes
// librdkafka report the same failure many times a second. The first occurrence of a kind of
// message is let through, then at most one every `every`, with the count of those held back.
// Every occurrence is still counted by the caller's metrics.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <unordered_map>

namespace sparse::kafka {

class ReportThrottle {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ReportThrottle(std::chrono::milliseconds every = std::chrono::seconds(10))
      : every_(every) {}

  // The text to report now for `message` of kind `key`, or nullopt to stay quiet.
  std::optional<std::string> Admit(const std::string& key, const std::string& message,
                                   Clock::time_point now = Clock::now()) {
    Entry& e = entries_[key];
    if (e.last != Clock::time_point{} && now - e.last < every_) {
      ++e.suppressed;
      return std::nullopt;
    }
    std::string text = message;
    if (e.suppressed > 0) {
      text += " (" + std::to_string(e.suppressed) + " similar message(s) suppressed)";
    }
    e.last = now;
    e.suppressed = 0;
    return text;
  }

 private:
  struct Entry {
    Clock::time_point last{};
    std::uint64_t suppressed = 0;
  };
  std::chrono::milliseconds every_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace sparse::kafka
