#include "runtime/nearest_name.hpp"

#include <algorithm>

namespace sparse::runtime {

namespace {

// Levenshtein distance, given up (limit + 1) once it must exceed `limit`.
std::size_t Distance(std::string_view a, std::string_view b, std::size_t limit) {
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::optional<std::string> NearestName(std::string_view name,
                                       const std::vector<std::string>& known) {
  const std::size_t limit = std::max<std::size_t>(2, name.size() / 8);
  std::optional<std::string> best;
  std::size_t best_distance = limit + 1;
  for (const auto& k : known) {
    const std::size_t d = Distance(name, k, limit);
    if (d < best_distance) {
      best = k;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace sparse::runtime
