// Global: the whole stream goes to the subscriber's task with the lowest id (as in Storm).
#include <algorithm>

#include "runtime/grouping/grouping.hpp"

namespace sparse::runtime {

namespace {
class GlobalGrouping final : public GroupingStrategy {
 public:
  explicit GlobalGrouping(int task) : task_(task) {}
  void Choose(const EmittedTuple&, std::vector<int>& out) override { out.push_back(task_); }

 private:
  int task_;
};
}  // namespace

std::unique_ptr<GroupingStrategy> MakeGlobalGrouping(std::vector<int> tasks) {
  if (tasks.empty()) return MakeAllGrouping({});
  return std::make_unique<GlobalGrouping>(*std::min_element(tasks.begin(), tasks.end()));
}

}  // namespace sparse::runtime
