// How a report to the user writes a duration: seconds, cut to five characters ("12.34",
// "0.250"), whatever the clock's resolution.
#pragma once

#include <chrono>
#include <string>

namespace sparse::runtime {

inline std::string SecondsText(std::chrono::duration<double> d) {
  return std::to_string(d.count()).substr(0, 5);
}

}  // namespace sparse::runtime
