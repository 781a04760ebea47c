#include "support/wait_for.hpp"

#include <thread>

namespace sparse::test {

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout,
             const Poll& poll) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done()) return true;
    if (poll.give_up && poll.give_up()) break;
    std::this_thread::sleep_for(poll.every);
  }
  return done();
}

}  // namespace sparse::test
