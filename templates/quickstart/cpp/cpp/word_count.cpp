// Counts words; emits [word, count] for each, and logs the most common words on every tick.
#include <sparse/sparse.hpp>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

class WordCount : public sparse::Bolt {
 public:
  void process(const sparse::Tuple& tuple) override {
    const auto word = tuple.get<std::string>(0);
    const long long count = ++counts_[word];
    ++total_;
    // Anchored to `tuple`, which is acked when process() returns.
    emit({word, count}, sparse::BoltEmit().without_task_ids());
  }

  void process_tick(int /*freq_secs*/) override {
    std::vector<std::pair<std::string, long long>> top(counts_.begin(), counts_.end());
    std::sort(top.begin(), top.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string line = std::to_string(total_) + " words counted; top:";
    for (std::size_t i = 0; i < top.size() && i < 5; ++i) {
      line += (i ? ", " : " ") + top[i].first + "=" + std::to_string(top[i].second);
    }
    log(line);
  }

 private:
  std::unordered_map<std::string, long long> counts_;
  long long total_ = 0;
};

int main() {
  return sparse::run<WordCount>();
}
