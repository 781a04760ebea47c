// The process exit codes of `sparse`, decided here and nowhere else: every command returns
// kExitOk or ExitCode(kind), and every error that ends a command reaches ReportFailure (the one
// catch in app.cpp), which prints it and maps its kind.
#pragma once

#include <exception>
#include <string_view>

#include "base/error.hpp"

namespace sparse::runtime {
enum class RunStatus : int;  // local_cluster.hpp
}  // namespace sparse::runtime

namespace sparse::cli {

inline constexpr int kExitOk = 0;

// The exit code of a failure of kind `errc` (an exhaustive switch: a new kind must choose).
int ExitCode(base::Errc errc);

// A local run's ending: kExitOk for a stop that was asked for, else its failure's code.
int ExitCode(runtime::RunStatus status);

// The "Exit codes:" section of `sparse --help`, written beside the switch it documents.
std::string_view ExitCodesHelp();

// Prints `e` on stderr as `sparse: error: ...` (an invalid topology as its diagnostics, one per
// line) and returns its exit code: base::Error's kind, anything else an internal error.
int ReportFailure(const std::exception& e);

}  // namespace sparse::cli
