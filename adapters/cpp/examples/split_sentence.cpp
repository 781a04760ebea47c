// Example bolt: splits a sentence into words and emits one tuple per word. Emits are anchored to
// the sentence (auto_anchor) and the sentence is acked after process() returns (auto_ack).
#include <sparse/sparse.hpp>

#include <sstream>
#include <string>

namespace {

class SplitSentence : public sparse::Bolt {
 public:
  void process(const sparse::Tuple& tuple) override {
    std::istringstream words(tuple.get<std::string>(0));
    std::string word;
    while (words >> word) emit({word}, sparse::BoltEmit().without_task_ids());
  }
};

}  // namespace

int main() {
  return sparse::run<SplitSentence>();
}
