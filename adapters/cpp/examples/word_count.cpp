// Example bolt: counts words and emits [word, count] after each one. Logs the number of distinct
// words on every tick tuple (set topology.tick.tuple.freq.secs to see it).
#include <sparse/sparse.hpp>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace {

class WordCount : public sparse::Bolt {
 public:
  void process(const sparse::Tuple& tuple) override {
    const auto word = tuple.get<std::string>(0);
    const std::int64_t count = ++counts_[word];
    emit({word, count}, sparse::BoltEmit().without_task_ids());
  }

  void process_tick(int freq_secs) override {
    log("counted " + std::to_string(counts_.size()) + " distinct words (tick every " +
        std::to_string(freq_secs) + "s)");
  }

 private:
  std::unordered_map<std::string, std::int64_t> counts_;
};

}  // namespace

int main() {
  return sparse::run<WordCount>();
}
