// Compiles every public header on its own and together under strict warnings (see CMakeLists).
#include <sparse/batching_bolt.hpp>
#include <sparse/bolt.hpp>
#include <sparse/component.hpp>
#include <sparse/detail/bolt_inbox.hpp>
#include <sparse/detail/decoder.hpp>
#include <sparse/detail/json_reader.hpp>
#include <sparse/detail/msgpack.hpp>
#include <sparse/detail/utf8.hpp>
#include <sparse/detail/wire.hpp>
#include <sparse/errors.hpp>
#include <sparse/json.hpp>
#include <sparse/protocol.hpp>
#include <sparse/run.hpp>
#include <sparse/sparse.hpp>
#include <sparse/spout.hpp>
#include <sparse/tuple.hpp>

namespace {

class CheckBolt : public sparse::Bolt {
  void process(const sparse::Tuple& t) override { emit({t.get<std::string>(0), t.get<int>(1)}); }
};

class CheckBatcher : public sparse::BatchingBolt {
  void process_batch(const std::string& key, const std::vector<sparse::Tuple>& batch) override {
    emit({key, batch.size()});
  }
};

class CheckSpout : public sparse::Spout {
  void next_tuple() override { emit({1.5, "x"}, sparse::SpoutEmit().with_id(1)); }
};

}  // namespace

// Instantiates the run templates without running anything.
int sparse_adapters_cpp_header_check(int which);
int sparse_adapters_cpp_header_check(int which) {
  switch (which) {
    case 0:
      return sparse::run<CheckBolt>();
    case 1:
      return sparse::run<CheckBatcher>();
    default:
      return sparse::run<CheckSpout>();
  }
}
