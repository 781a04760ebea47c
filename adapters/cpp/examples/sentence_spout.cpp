// Example spout: emits sentences from a fixed list, reliably (the message id is an integer
// sequence number), and replays a sentence when its tuple tree fails.
#include <sparse/sparse.hpp>

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>

namespace {

class SentenceSpout : public sparse::Spout {
 public:
  void initialize(const sparse::json& conf, const sparse::json& context) override {
    (void)context;
    // Optional bound for tests and demos: stop emitting after this many sentences.
    limit_ = conf.value("sentence_spout.limit", std::int64_t{-1});
  }

  void next_tuple() override {
    std::string sentence;
    if (!replay_.empty()) {
      sentence = in_flight_[replay_.front()];
      emit_sentence(replay_.front(), sentence);
      replay_.pop_front();
      return;
    }
    if (limit_ >= 0 && next_id_ >= limit_) return;
    sentence = kSentences[static_cast<std::size_t>(next_id_) % kSentenceCount];
    in_flight_[next_id_] = sentence;
    emit_sentence(next_id_, sentence);
    ++next_id_;
  }

  void ack(const sparse::json& id) override { in_flight_.erase(id.get<std::int64_t>()); }

  void fail(const sparse::json& id) override {
    const auto seq = id.get<std::int64_t>();
    if (in_flight_.count(seq) != 0) replay_.push_back(seq);
  }

 private:
  void emit_sentence(std::int64_t id, const std::string& sentence) {
    emit({sentence}, sparse::SpoutEmit().with_id(id).without_task_ids());
  }

  static constexpr std::size_t kSentenceCount = 5;
  static constexpr const char* kSentences[kSentenceCount] = {
      "the cow jumped over the moon",   "an apple a day keeps the doctor away",
      "four score and seven years ago", "snow white and the seven dwarfs",
      "i am at two with nature",
  };

  std::int64_t limit_ = -1;
  std::int64_t next_id_ = 0;
  std::unordered_map<std::int64_t, std::string> in_flight_;
  std::deque<std::int64_t> replay_;
};

}  // namespace

int main() {
  return sparse::run<SentenceSpout>();
}
