// Kafka spout throughput: N records consumed through the Kafka spout into a counting sink (a C++
// built-in bolt that acks every tuple), against librdkafka consuming the same records alone.
// Both read the same topic of an embedded broker in this process, from the earliest offset,
// over loopback TCP. A benchmark, not a test: it prints numbers and asserts nothing.
//
//   kafka_bench [--records N] [--partitions P] [--value-bytes B] [--runs R]
//
// Results and the command that produced them go to docs/benchmarks.md ("Kafka").
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "kafka/embedded_broker.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/register.hpp"
#include "runtime/builtin.hpp"
#include "runtime/local_cluster.hpp"
#include "runtime/plan.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using sparse::kafka::ClientPtr;
using sparse::kafka::ConfPtr;

struct Args {
  long records = 500000;
  int partitions = 4;
  int value_bytes = 100;
  int runs = 3;
};

// The counting sink: acks every tuple; asks the cluster to stop once it saw `target`.
sparse::runtime::LocalCluster* g_cluster = nullptr;
long g_target = 0;
long g_count = 0;
volatile std::size_t g_bytes_seen = 0;
Clock::time_point g_done_at;

class CountSink final : public sparse::runtime::BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int, int, int,
                                  sparse::runtime::BuiltinCollector& out,
                                  boost::asio::io_context&) override {
    out_ = &out;
    return std::nullopt;
  }
  void Execute(const sparse::runtime::BuiltinTuple& t) override {
    out_->Ack(t.id);
    if (!t.tick && ++g_count == g_target) {
      g_done_at = Clock::now();
      g_cluster->RequestStop("all records counted");
    }
  }

 private:
  sparse::runtime::BuiltinCollector* out_ = nullptr;
};

void Produce(const std::string& bootstrap, const Args& args) {
  ConfPtr conf(rd_kafka_conf_new());
  sparse::kafka::SetProperty(conf.get(), "bootstrap.servers", bootstrap);
  sparse::kafka::SetProperty(conf.get(), "linger.ms", "20");
  sparse::kafka::SetProperty(conf.get(), "batch.num.messages", "10000");
  std::string error;
  ClientPtr p = sparse::kafka::NewClient(RD_KAFKA_PRODUCER, std::move(conf), error);
  if (!p) {
    std::cerr << error << "\n";
    std::exit(1);
  }
  std::string value(static_cast<std::size_t>(args.value_bytes), 'x');
  for (long i = 0; i < args.records; ++i) {
    const std::string key = "key" + std::to_string(i);
    for (;;) {
      const auto err = rd_kafka_producev(
          p.get(), RD_KAFKA_V_TOPIC("bench"),
          RD_KAFKA_V_PARTITION(static_cast<int32_t>(i % args.partitions)),
          RD_KAFKA_V_KEY(key.data(), key.size()), RD_KAFKA_V_VALUE(value.data(), value.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(p.get(), 10);
        continue;
      }
      break;
    }
  }
  rd_kafka_flush(p.get(), 60000);
}

// librdkafka alone: assign every partition from the beginning, poll until N records.
double RawConsumer(const std::string& bootstrap, const Args& args) {
  ConfPtr conf(rd_kafka_conf_new());
  sparse::kafka::SetProperty(conf.get(), "bootstrap.servers", bootstrap);
  sparse::kafka::SetProperty(conf.get(), "group.id", "bench-raw");
  sparse::kafka::SetProperty(conf.get(), "enable.auto.commit", "false");
  std::string error;
  const auto start = Clock::now();
  ClientPtr c = sparse::kafka::NewClient(RD_KAFKA_CONSUMER, std::move(conf), error);
  auto list = sparse::kafka::NewPartitionList(args.partitions);
  for (int i = 0; i < args.partitions; ++i) {
    rd_kafka_topic_partition_list_add(list.get(), "bench", i)->offset = RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_assign(c.get(), list.get());
  long n = 0;
  std::size_t bytes = 0;
  while (n < args.records) {
    sparse::kafka::MessagePtr m(rd_kafka_consumer_poll(c.get(), 100));
    if (m && !m->err) {
      ++n;
      bytes += m->len;  // touch the record, as a consumer would
    }
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  rd_kafka_consumer_close(c.get());
  g_bytes_seen = bytes;
  return secs;
}

// The topology: kafka_spout -> count sink, at-least-once (acking on, offsets committed).
double SpoutTopology(const std::string& bootstrap, const Args& args, int run) {
  const std::string yaml = R"(name: bench
config:
  topology.max.spout.pending: 20000
  sparse.queue.high.watermark: 20000
  sparse.queue.low.watermark: 10000
spouts:
  - id: kafka
    builtin: kafka_spout
    options:
      bootstrap_servers: )" +
                           bootstrap + R"(
      topics: [bench]
      group_id: bench-)" + std::to_string(run) +
                           R"(
      start: earliest
      max_uncommitted_offsets: 1000000
bolts:
  - id: count
    builtin: bench_count_sink
    inputs:
      - {from: kafka, grouping: shuffle}
)";
  auto topology = sparse::runtime::LoadTopologyFromString(yaml, "bench.yaml");
  sparse::runtime::ValidateOrThrow(topology);
  const auto plan = sparse::runtime::MakePlan(topology, nlohmann::json::object());
  sparse::runtime::ClusterOptions options;
  options.handle_signals = false;
  options.status_every = std::chrono::milliseconds(60000);
  options.drain_timeout = std::chrono::milliseconds(5000);
  sparse::runtime::LocalCluster cluster(plan, options, nullptr);
  g_cluster = &cluster;
  g_target = args.records;
  g_count = 0;
  const auto start = Clock::now();
  cluster.Run();
  g_cluster = nullptr;
  if (g_count < args.records) {
    std::cerr << "spout run counted only " << g_count << " records\n";
    std::exit(1);
  }
  return std::chrono::duration<double>(g_done_at - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const long v = std::atol(argv[i + 1]);
    if (flag == "--records") {
      args.records = v;
    } else if (flag == "--partitions") {
      args.partitions = static_cast<int>(v);
    } else if (flag == "--value-bytes") {
      args.value_bytes = static_cast<int>(v);
    } else if (flag == "--runs") {
      args.runs = static_cast<int>(v);
    } else {
      std::cerr << "usage: kafka_bench [--records N] [--partitions P] [--value-bytes B] "
                   "[--runs R]\n";
      return 2;
    }
  }
  sparse::runtime::RegisterStandardBuiltins();
  sparse::kafka::RegisterKafkaBuiltins();
  sparse::runtime::RegisterBuiltin(
      {"bench_count_sink",
       sparse::runtime::ComponentKind::kBolt,
       {},
       [](const nlohmann::json&, std::string&) {
         return std::vector<sparse::runtime::StreamDef>{};
       },
       [](const nlohmann::json&) { return std::make_unique<CountSink>(); }});

  std::string error;
  auto broker = sparse::kafka::EmbeddedBroker::Start(1, error);
  if (!broker) {
    std::cerr << error << "\n";
    return 1;
  }
  broker->CreateTopic("bench", args.partitions);
  std::cerr << "producing " << args.records << " records of " << args.value_bytes << " bytes over "
            << args.partitions << " partitions...\n";
  Produce(broker->bootstrap(), args);

  std::vector<double> raw, spout;
  for (int r = 0; r < args.runs; ++r) {
    raw.push_back(RawConsumer(broker->bootstrap(), args));
    spout.push_back(SpoutTopology(broker->bootstrap(), args, r));
    std::cerr << "run " << r + 1 << ": librdkafka " << raw.back() << " s, spout " << spout.back()
              << " s\n";
  }
  auto best = [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); };
  const double raw_rate = static_cast<double>(args.records) / best(raw);
  const double spout_rate = static_cast<double>(args.records) / best(spout);
  std::printf("records=%ld partitions=%d value_bytes=%d runs=%d (best run)\n", args.records,
              args.partitions, args.value_bytes, args.runs);
  std::printf("librdkafka consumer alone : %10.0f records/s\n", raw_rate);
  std::printf("kafka_spout -> count sink : %10.0f records/s\n", spout_rate);
  std::printf("ratio                     : %10.2f\n", spout_rate / raw_rate);
  return 0;
}
