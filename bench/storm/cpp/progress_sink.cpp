// The C++ pipeline's last bolt for bench/storm/run.py: counts words as the adapter's word_count
// example does (without emitting), and reports how many tuples it has seen in the format of
// bench/storm/progress.py: `WALL_CLOCK_SECONDS COUNT` lines appended to
// `<bench.dir>/sink-<pid>.txt` on the first tuple and then at most every 0.1 s.
#include <unistd.h>
#include <sparse/sparse.hpp>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>

namespace {

class ProgressSink : public sparse::Bolt {
 public:
  void initialize(const sparse::json& conf, const sparse::json& context) override {
    (void)context;
    const std::string dir = conf.value("bench.dir", std::string());
    if (!dir.empty()) {
      out_ = std::fopen((dir + "/sink-" + std::to_string(::getpid()) + ".txt").c_str(), "a");
    }
  }

  void process(const sparse::Tuple& tuple) override {
    ++counts_[tuple.get<std::string>(0)];
    ++seen_;
    if (out_ == nullptr) return;
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    if (now - last_ >= 0.1) {
      last_ = now;
      std::fprintf(out_, "%.4f %lld\n", now, static_cast<long long>(seen_));
      std::fflush(out_);
    }
  }

 private:
  std::unordered_map<std::string, std::int64_t> counts_;
  std::int64_t seen_ = 0;
  double last_ = 0;
  std::FILE* out_ = nullptr;
};

}  // namespace

int main() {
  return sparse::run<ProgressSink>();
}
