// One environment variable of the test process, set for one scope and restored afterwards (its
// earlier value, or its absence), even when an assertion leaves the test early. Only for code
// under test that reads the environment itself; a child's environment is Command::env.
#pragma once

#include <optional>
#include <string>

namespace sparse::test {

class ScopedEnv {
 public:
  ScopedEnv(std::string name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> before_;
};

}  // namespace sparse::test
