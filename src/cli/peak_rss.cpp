#include "cli/peak_rss.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <string>

namespace sparse::cli {

std::optional<long> VmHwmKb(std::string_view status) {
  constexpr std::string_view kKey = "VmHWM:";
  for (std::size_t at = 0; at < status.size();) {
    const std::size_t eol = std::min(status.find('\n', at), status.size());
    std::string_view line = status.substr(at, eol - at);
    at = eol + 1;
    if (line.substr(0, kKey.size()) != kKey) continue;
    line.remove_prefix(kKey.size());
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    long kb = 0;
    const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), kb);
    if (ec != std::errc() || kb < 0) return std::nullopt;
    if (std::string_view(end, static_cast<std::size_t>(line.data() + line.size() - end)) != " kB") {
      return std::nullopt;
    }
    return kb;
  }
  return std::nullopt;
}

long PeakRssKb() {
  std::ifstream in("/proc/self/status");
  const std::string status((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (const auto kb = VmHwmKb(status)) return *kb;
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  return self.ru_maxrss;
}

}  // namespace sparse::cli
