// All: every task of the subscriber gets a copy.
#include "runtime/grouping/grouping.hpp"

namespace sparse::runtime {

namespace {
class AllGrouping final : public GroupingStrategy {
 public:
  explicit AllGrouping(std::vector<int> tasks) : tasks_(std::move(tasks)) {}
  void Choose(const EmittedTuple&, std::vector<int>& out) override {
    out.insert(out.end(), tasks_.begin(), tasks_.end());
  }

 private:
  std::vector<int> tasks_;
};
}  // namespace

std::unique_ptr<GroupingStrategy> MakeAllGrouping(std::vector<int> tasks) {
  return std::make_unique<AllGrouping>(std::move(tasks));
}

}  // namespace sparse::runtime
