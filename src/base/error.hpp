// The one error type for failures that end an operation and reach a person (a command's
// refusal, a malformed file, a refused Nimbus call): a kind from a closed list (`Errc`) and a
// message that names what is wrong — the file and line, the component, the field.
//
// Conventions (docs/architecture.md, "Errors"):
//   - A failure that ends a command throws `base::Error` (or a subclass that adds details, such
//     as storm::NimbusError or runtime::TopologyError). The CLI catches it in one place and maps
//     its kind to the process exit code in one exhaustive switch (cli/exit_status.hpp).
//   - A failure the caller is expected to handle on a hot path or per input (a child's bad
//     message, a Kafka record) is a return value, not an exception, and is counted and reported
//     where it happens; it never ends the runtime.
//   - A broken invariant (a bug, never bad input) is SPARSE_INVARIANT (base/invariant.hpp).
//
// Errc is a std::error_code enum with its own category, so a kind can travel as an error_code
// where an API already uses them.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace sparse::base {

enum class Errc {
  kUsage = 1,        // the command line asks for something that cannot be done as written
  kNotFound,         // a named thing (project, topology, run, component, file) does not exist
  kIo,               // a file, folder, socket or local service could not be used
  kInvalidInput,     // a file given to sparse (jar, archive, requirements, JSON) is malformed
  kInvalidTopology,  // the topology or the project's configuration is invalid
  kBuildFailed,      // building the project's components or packaging its Python packages failed
  kStartFailed,      // a component, its build or its environment could not start
  kCrashLoop,        // a component kept failing, or the runtime could not go on
  kRemote,           // Nimbus or another remote service refused or could not be reached
  kInterrupted,      // stopped by a second Ctrl-C without draining
  kInternal,         // a bug in sparse
};

// A stable lower-case name for logs and JSON ("invalid_topology").
std::string_view ErrcName(Errc errc);

const std::error_category& ErrorCategory();

inline std::error_code make_error_code(Errc errc) {
  return {static_cast<int>(errc), ErrorCategory()};
}

class Error : public std::runtime_error {
 public:
  Error(Errc errc, const std::string& message) : std::runtime_error(message), errc_(errc) {}
  Errc errc() const { return errc_; }
  std::error_code code() const { return make_error_code(errc_); }

 private:
  Errc errc_;
};

inline std::string_view ErrcName(Errc errc) {
  switch (errc) {
    case Errc::kUsage:
      return "usage";
    case Errc::kNotFound:
      return "not_found";
    case Errc::kIo:
      return "io";
    case Errc::kInvalidInput:
      return "invalid_input";
    case Errc::kInvalidTopology:
      return "invalid_topology";
    case Errc::kBuildFailed:
      return "build_failed";
    case Errc::kStartFailed:
      return "start_failed";
    case Errc::kCrashLoop:
      return "crash_loop";
    case Errc::kRemote:
      return "remote";
    case Errc::kInterrupted:
      return "interrupted";
    case Errc::kInternal:
      return "internal";
  }
  return "unknown";  // a value outside the enum: only from a cast, see ErrorCategory
}

namespace detail {
class ErrorCategoryImpl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sparse"; }
  std::string message(int value) const override {
    return std::string(ErrcName(static_cast<Errc>(value)));
  }
};
}  // namespace detail

// An inline function's static is one object across the program, so comparing categories works
// even though this library is header-only.
inline const std::error_category& ErrorCategory() {
  static const detail::ErrorCategoryImpl category;
  return category;
}

}  // namespace sparse::base

template <>
struct std::is_error_code_enum<sparse::base::Errc> : std::true_type {};
