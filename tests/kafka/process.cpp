#include "process.hpp"

namespace sparse::kafka::testing {

Process::Process(const std::vector<std::string>& argv, const std::filesystem::path& dir,
                 const std::string& name)
    : test::Child({argv, dir, {{"NO_COLOR", "1"}}}, dir / (name + ".out"), dir / (name + ".err")) {}

bool WaitFor(Process& p, const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  test::Poll poll;
  poll.give_up = [&p] { return p.Wait(std::chrono::milliseconds(0)).has_value(); };
  return test::WaitFor(done, timeout, poll);
}

}  // namespace sparse::kafka::testing
