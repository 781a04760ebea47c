#include "cli/peak_rss.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace sparse::cli {
namespace {

struct Case {
  std::string status;
  std::optional<long> kb;
};

TEST(PeakRss, VmHwmIsReadFromAStatusText) {
  const std::vector<Case> cases = {
      {"Name:\tsparse\nVmPeak:\t  704760 kB\nVmHWM:\t   61092 kB\nVmRSS:\t   58080 kB\n", 61092},
      {"VmHWM:\t0 kB\n", 0},
      {"VmHWM: 12 kB", 12},                          // no final newline
      {"Name:\tsparse\nVmRSS:\t   58080 kB\n", {}},  // no VmHWM (a kernel thread)
      {"", {}},
      {"VmHWM:\t  kB\n", {}},
      {"VmHWM:\t-5 kB\n", {}},
      {"VmHWM:\t12 MB\n", {}},
      {"VmHWM:\t99999999999999999999999 kB\n", {}},
      {"XVmHWM:\t12 kB\n", {}},
  };
  for (const auto& c : cases) EXPECT_EQ(VmHwmKb(c.status), c.kb) << c.status;
}

TEST(PeakRss, ThisProcessHasOne) {
  EXPECT_GT(PeakRssKb(), 0);
}

}  // namespace
}  // namespace sparse::cli
