// Upper-cases the first value of each tuple.
#include <sparse/sparse.hpp>

#include <cctype>
#include <string>

class Upper : public sparse::Bolt {
  void process(const sparse::Tuple& t) override {
    auto text = t.get<std::string>(0);
    for (auto& c : text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    emit({text}, sparse::BoltEmit().without_task_ids());
  }
};

int main() {
  return sparse::run<Upper>();
}
