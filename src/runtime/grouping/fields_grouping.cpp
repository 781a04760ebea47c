// Fields: equal values of the grouping fields always go to the same task (stable hash).
#include "runtime/grouping/grouping.hpp"

namespace sparse::runtime {

namespace {
class FieldsGrouping final : public GroupingStrategy {
 public:
  FieldsGrouping(std::vector<int> tasks, std::vector<int> fields)
      : tasks_(std::move(tasks)), fields_(std::move(fields)) {}
  void Choose(const EmittedTuple& tuple, std::vector<int>& out) override {
    if (tasks_.empty()) return;
    out.push_back(tasks_[HashFields(tuple, fields_) % tasks_.size()]);
  }

 private:
  std::vector<int> tasks_;
  std::vector<int> fields_;
};
}  // namespace

std::unique_ptr<GroupingStrategy> MakeFieldsGrouping(std::vector<int> tasks,
                                                     std::vector<int> fields) {
  return std::make_unique<FieldsGrouping>(std::move(tasks), std::move(fields));
}

}  // namespace sparse::runtime
