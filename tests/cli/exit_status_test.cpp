// Exit codes are decided in one place: each failure kind's code, a run's ending, and what
// ReportFailure makes of the errors commands throw.
#include "cli/exit_status.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "runtime/local_cluster.hpp"
#include "runtime/topology_loader.hpp"
#include "storm/jar.hpp"
#include "storm/nimbus_client.hpp"

namespace sparse::cli {
namespace {

using base::Errc;

TEST(ExitStatus, EachKindHasTheDocumentedCode) {
  struct Case {
    Errc errc;
    int code;
  };
  const Case cases[] = {
      {Errc::kUsage, 1},           {Errc::kNotFound, 1},     {Errc::kIo, 1},
      {Errc::kInvalidInput, 1},    {Errc::kBuildFailed, 1},  {Errc::kInternal, 1},
      {Errc::kInvalidTopology, 2}, {Errc::kStartFailed, 3},  {Errc::kCrashLoop, 4},
      {Errc::kRemote, 5},          {Errc::kInterrupted, 130}};
  for (const auto& c : cases) EXPECT_EQ(ExitCode(c.errc), c.code) << base::ErrcName(c.errc);
  // Every code the table maps to is documented in `sparse --help`.
  for (const auto& c : cases) {
    EXPECT_NE(ExitCodesHelp().find("\n  " + std::to_string(c.code) + " "), std::string::npos)
        << c.code;
  }
}

TEST(ExitStatus, ARunsEnding) {
  EXPECT_EQ(ExitCode(runtime::RunStatus::kOk), 0);
  EXPECT_EQ(ExitCode(runtime::RunStatus::kStartFailed), 3);
  EXPECT_EQ(ExitCode(runtime::RunStatus::kFailed), 4);
  EXPECT_EQ(ExitCode(runtime::RunStatus::kForced), 130);
}

TEST(ExitStatus, ReportFailureMapsWhatCommandsThrow) {
  testing::internal::CaptureStderr();
  EXPECT_EQ(ReportFailure(base::Error(Errc::kRemote, "Kafka unreachable")), 5);
  EXPECT_EQ(ReportFailure(runtime::TopologyError({{{"t.yaml", 3}, "no spout"}})), 2);
  EXPECT_EQ(ReportFailure(storm::JarError("x.jar: not a jar")), 1);
  const storm::NimbusAddress nimbus{"localhost", 6627};
  EXPECT_EQ(ReportFailure(storm::NimbusError(storm::NimbusErrorKind::kInvalidTopology, nimbus,
                                             "submitTopology", "bad")),
            2);
  EXPECT_EQ(ReportFailure(storm::NimbusError(storm::NimbusErrorKind::kAlreadyAlive, nimbus,
                                             "submitTopology", "taken")),
            5);
  EXPECT_EQ(ReportFailure(std::logic_error("a bug")), 1);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Kafka unreachable"), std::string::npos) << err;
  EXPECT_NE(err.find("t.yaml:3: no spout"), std::string::npos) << err;
  EXPECT_NE(err.find("a bug"), std::string::npos) << err;
}

}  // namespace
}  // namespace sparse::cli
