// "Did you mean ...?": the known name nearest to a misspelt one, for config keys, commands and
// flags alike (one rule for what counts as near).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparse::runtime {

// The name in `known` at the smallest edit distance from `name`, if that distance is small
// enough for a typo: at most 2, or an eighth of the name's length for long names. Ties go to the
// first in `known`.
std::optional<std::string> NearestName(std::string_view name,
                                       const std::vector<std::string>& known);

}  // namespace sparse::runtime
