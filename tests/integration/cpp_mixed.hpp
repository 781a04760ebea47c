// The C++ test components of fixtures/cpp/mixed_components.cpp, for the integration tests that
// mix C++ and Python components (the integration_test target defines SPARSE_CPP_MIXED).
#pragma once

#include <string>

namespace sparse::testing {

// The YAML command list that runs the mixed components in `mode` (a quoted YAML string).
inline std::string CppMixed(const std::string& mode) {
  return "[\"" + std::string(SPARSE_CPP_MIXED) + "\", " + mode + "]";
}

}  // namespace sparse::testing
