// Emits words from a fixed text, forever, each with a message id; a word whose tuple tree fails
// or times out is emitted again.
#include <sparse/sparse.hpp>

#include <deque>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

class WordSpout : public sparse::Spout {
 public:
  void initialize(const sparse::json& /*conf*/, const sparse::json& /*context*/) override {
    std::istringstream text(
        "the quick brown fox jumps over the lazy dog and the dog sleeps while the fox runs "
        "through the brown field where the quick river meets the lazy afternoon");
    for (std::string w; text >> w;) words_.push_back(w);
  }

  void next_tuple() override {
    long long id;
    std::string word;
    if (!replay_.empty()) {
      id = replay_.front();
      replay_.pop_front();
      word = pending_.at(id);
    } else {
      id = next_id_++;
      word = words_[static_cast<std::size_t>(id) % words_.size()];
      pending_[id] = word;
    }
    emit({word}, sparse::SpoutEmit().with_id(id).without_task_ids());
  }

  void ack(const sparse::json& id) override { pending_.erase(id.get<long long>()); }
  void fail(const sparse::json& id) override { replay_.push_back(id.get<long long>()); }

 private:
  std::vector<std::string> words_;
  std::unordered_map<long long, std::string> pending_;
  std::deque<long long> replay_;
  long long next_id_ = 0;
};

int main() {
  return sparse::run<WordSpout>();
}
