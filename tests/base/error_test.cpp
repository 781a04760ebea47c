// base::Error and its category; SPARSE_INVARIANT.
#include "base/error.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "base/invariant.hpp"

namespace sparse::base {
namespace {

constexpr Errc kEvery[] = {Errc::kUsage,        Errc::kNotFound,        Errc::kIo,
                           Errc::kInvalidInput, Errc::kInvalidTopology, Errc::kBuildFailed,
                           Errc::kStartFailed,  Errc::kCrashLoop,       Errc::kRemote,
                           Errc::kInterrupted,  Errc::kInternal};

TEST(Error, CarriesItsKindAndMessage) {
  const Error e(Errc::kNotFound, "no topology `x` in topologies/");
  EXPECT_EQ(e.errc(), Errc::kNotFound);
  EXPECT_STREQ(e.what(), "no topology `x` in topologies/");
  EXPECT_EQ(e.code(), Errc::kNotFound);  // Errc converts to an error_code of sparse's category
  EXPECT_STREQ(e.code().category().name(), "sparse");
  EXPECT_EQ(e.code().message(), "not_found");
}

TEST(Error, EveryKindHasItsOwnName) {
  std::set<std::string> names;
  for (Errc errc : kEvery) {
    const std::string name(ErrcName(errc));
    EXPECT_NE(name, "unknown") << static_cast<int>(errc);
    names.insert(name);
  }
  EXPECT_EQ(names.size(), std::size(kEvery));
}

TEST(Error, CodesOfOtherCategoriesDoNotCompareEqual) {
  const std::error_code ours = Errc::kIo;
  EXPECT_NE(ours, std::make_error_code(std::errc::io_error));
  EXPECT_EQ(ours.category(), ErrorCategory());
}

TEST(InvariantDeathTest, AbortsNamingThePlaceAndTheCondition) {
  const int tasks = 2;
  EXPECT_DEATH(
      SPARSE_INVARIANT(tasks == 3, "the plan made three tasks"),
      "internal error at .*error_test.cpp:[0-9]+: tasks == 3 \\(the plan made three tasks\\)");
  SPARSE_INVARIANT(tasks == 2, "holds: nothing happens");
}

}  // namespace
}  // namespace sparse::base
