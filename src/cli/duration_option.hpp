// The one check of every "seconds" option of the CLI (`run -t`, `--stop-when-idle`, `--wait`):
// a finite number in a range that a steady_clock duration holds. `inf`, `nan`, `1e300` and
// negative values are usage errors (exit 2) naming the option, never an overflowed deadline.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <string>

namespace sparse::cli {

// About three years: longer than any local run, far from what a millisecond count overflows.
inline constexpr double kMaxOptionSeconds = 1e8;

inline CLI::Validator Seconds(bool zero_allowed) {
  return CLI::Validator(
      [zero_allowed](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (end == text.c_str() || *end != '\0' || !std::isfinite(v)) {
          return "expects a number of seconds, got `" + text + "`";
        }
        if (v < 0 || (!zero_allowed && v == 0) || v > kMaxOptionSeconds) {
          return std::string("expects seconds ") + (zero_allowed ? "from 0" : "above 0") +
                 " up to " + std::to_string(static_cast<long long>(kMaxOptionSeconds)) + ", got `" +
                 text + "`";
        }
        return {};
      },
      zero_allowed ? "SECONDS>=0" : "SECONDS>0");
}

}  // namespace sparse::cli
