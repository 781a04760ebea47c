// Partial key ("power of two choices"): each key hashes to two candidate tasks and goes to the
// one that has received fewer tuples from this source, which splits hot keys over two tasks.
#include "runtime/grouping/grouping.hpp"

namespace sparse::runtime {

namespace {
class PartialKeyGrouping final : public GroupingStrategy {
 public:
  PartialKeyGrouping(std::vector<int> tasks, std::vector<int> fields)
      : tasks_(std::move(tasks)), fields_(std::move(fields)), load_(tasks_.size(), 0) {}
  void Choose(const EmittedTuple& tuple, std::vector<int>& out) override {
    if (tasks_.empty()) return;
    const std::uint64_t key = HashKey(tuple, fields_);
    const std::size_t a = SeedHash(key, 0) % tasks_.size();
    const std::size_t b = SeedHash(key, 1) % tasks_.size();
    std::size_t pick = load_[b] < load_[a] ? b : a;
    ++load_[pick];
    out.push_back(tasks_[pick]);
  }

 private:
  std::vector<int> tasks_;
  std::vector<int> fields_;
  std::vector<std::uint64_t> load_;
};
}  // namespace

std::unique_ptr<GroupingStrategy> MakePartialKeyGrouping(std::vector<int> tasks,
                                                         std::vector<int> fields) {
  return std::make_unique<PartialKeyGrouping>(std::move(tasks), std::move(fields));
}

}  // namespace sparse::runtime
