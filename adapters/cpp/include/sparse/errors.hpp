// sparse C++ component adapter — the exceptions of the connection to the host.
#pragma once

#include <stdexcept>

namespace sparse {

/// The host sent something the adapter cannot use (neither JSON nor MessagePack, wrong shape,
/// oversized, nested too deeply).
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The host closed the connection (EOF on input, or a broken output pipe) while the component was
/// waiting for or writing to it. Run loops treat it as the end of the component, not as an error.
class Disconnected : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace sparse
