// Waiting in a test for something another process does: poll a condition until it holds. The
// timeout only decides how long a broken run is waited for, never whether a working one passes.
#pragma once

#include <chrono>
#include <functional>

namespace sparse::test {

struct Poll {
  std::chrono::milliseconds every{100};  // the pause between two looks
  // When set and true, stop waiting early (say, the process that should make `done` true
  // ended); `done` gets one last look.
  std::function<bool()> give_up;
};

// Looks at `done` every `poll.every` until it holds or `timeout` passed (then one last look).
// Returns whether it held.
bool WaitFor(const std::function<bool()>& done,
             std::chrono::milliseconds timeout = std::chrono::seconds(30), const Poll& poll = {});

}  // namespace sparse::test
