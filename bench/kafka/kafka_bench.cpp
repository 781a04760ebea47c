// Kafka spout throughput: N records consumed through the Kafka spout into a counting sink (a C++
// built-in bolt that acks every tuple), against librdkafka consuming the same records alone.
// Both read the same topic, from the earliest offset, over loopback TCP: of an embedded broker
// in this process (`--broker embedded`, the default), or of a real Apache Kafka broker started
// with scripts/kafka-server.sh (`--broker real`: one JVM, stopped at the end; needs Java >= 17
// and Maven), or of a broker already running at `--bootstrap HOST:PORT` (e.g. one from
// `scripts/kafka-server.sh start`, to profile this process alone). A benchmark, not a test: it
// prints numbers and asserts nothing.
//
//   kafka_bench [--broker embedded|real | --bootstrap HOST:PORT] [--records N] [--partitions P]
//   [--value-bytes B]
//               [--runs R] [--property KEY=VALUE]...
//               [--only spout|raw|defaults|batched|generator] [--timeline]
//
// The librdkafka consumer runs three ways. "raw", the comparison: a plain consumer loop
// (rd_kafka_consumer_poll, one message at a time, each destroyed once read, as most consumer
// applications do), at its best: the spout's fetch.wait.max.ms, and queued.min.messages 1,000,000
// so that librdkafka 2.0's fetch stall (kafka/fetch_nudge.hpp), which a plain loop has no nudge
// against, does not hold it back. "defaults": the same with librdkafka's own defaults. "batched":
// the same loop with the spout's two data-path habits (rd_kafka_consume_batch_queue, and messages
// destroyed on another thread by kafka::MessageReaper), the ceiling for any consumer here.
// --property sets a librdkafka consumer property for the spout and every consumer.
//
// Results and the command that produced them go to docs/benchmarks.md ("Kafka").
#include <sys/resource.h>
#include <unistd.h>
#include <algorithm>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "broker_helpers.hpp"
#include "kafka/embedded_broker.hpp"
#include "kafka/kafka_spout.hpp"
#include "kafka/message_reaper.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/register.hpp"
#include "real_broker.hpp"
#include "runtime/builtin.hpp"
#include "runtime/builtin_registry.hpp"
#include "runtime/local_cluster.hpp"
#include "runtime/plan.hpp"
#include "runtime/topology_loader.hpp"
#include "runtime/validate.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using sparse::kafka::ClientPtr;
using sparse::kafka::ConfPtr;

struct Args {
  bool real_broker = false;     // --broker real
  std::string bootstrap;        // --bootstrap: a broker that runs already
  std::string topic = "bench";  // "bench-<pid>" on a broker that outlives this run
  // The embedded broker keeps at most 5 MiB per partition (older records are dropped, as by
  // retention): keep records * (value_bytes + ~30) / partitions under that.
  long records = 400000;
  int partitions = 16;
  int value_bytes = 64;
  int runs = 3;
  std::string only;  // "spout", "raw", "defaults", "batched", "generator": run just that
  std::vector<std::pair<std::string, std::string>> properties;  // --property, for every consumer
};

// The counting sink: acks every tuple; asks the cluster to stop once it saw `target`.
sparse::runtime::LocalCluster* g_cluster = nullptr;
long g_target = 0;
long g_count = 0;
Clock::time_point g_first_at;
volatile std::size_t g_bytes_seen = 0;
Clock::time_point g_done_at;
bool g_timeline = false;                 // --timeline: print when each 5% of records arrived
std::vector<Clock::time_point> g_marks;  // one per 5%

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
    if (t.tick) return;
    if (++g_count == 1) g_first_at = Clock::now();
    if (g_timeline && g_count % std::max<long>(1, g_target / 20) == 0) {
      g_marks.push_back(Clock::now());
    }
    if (g_count == g_target) {
      g_done_at = Clock::now();
      g_cluster->RequestStop("all records counted");
    }
  }

 private:
  sparse::runtime::BuiltinCollector* out_ = nullptr;
};

// The runtime's own ceiling: a built-in spout that makes up the same tuples (with message ids,
// so they are tracked and acked like the Kafka spout's) without any Kafka.
class GeneratorSpout final : public sparse::runtime::BuiltinComponent {
 public:
  std::optional<std::string> Open(const nlohmann::json&, int, int, int,
                                  sparse::runtime::BuiltinCollector& out,
                                  boost::asio::io_context&) override {
    out_ = &out;
    return std::nullopt;
  }
  void NextTuple() override {
    for (int i = 0; i < 64 && next_ < g_target; ++i, ++next_) {
      std::string values = "[\"key" + std::to_string(next_) + "\",\"" + value_ + "\"]";
      out_->Emit("default", std::move(values), "[0," + std::to_string(next_) + "]", {},
                 std::nullopt);
    }
  }
  std::string value_ = std::string(100, 'x');

 private:
  sparse::runtime::BuiltinCollector* out_ = nullptr;
  long next_ = 0;
};

void Produce(const std::string& bootstrap, const Args& args) {
  ConfPtr conf(rd_kafka_conf_new());
  sparse::kafka::SetProperty(conf.get(), "bootstrap.servers", bootstrap);
  sparse::kafka::SetProperty(conf.get(), "linger.ms", "20");
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
          p.get(), RD_KAFKA_V_TOPIC(args.topic.c_str()),
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
  if (rd_kafka_flush(p.get(), 60000)) {
    std::cerr << "could not produce the records\n";
    std::exit(1);
  }
}

struct Timing {
  double total_secs = 0;     // from start (client created / topology started) to the last record
  double steady_secs = 0;    // from the first record to the last
  double cpu_secs = 0;       // CPU time of the whole process (all threads) meanwhile
  double loop_cpu_secs = 0;  // of the calling thread (the runtime's event loop)
};

double CpuSeconds(int who = RUSAGE_SELF) {
  rusage u{};
  getrusage(who, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

void SetOrDie(rd_kafka_conf_t* conf, const std::string& key, const std::string& value) {
  if (auto err = sparse::kafka::SetProperty(conf, key, value)) {
    std::cerr << key << ": " << *err << "\n";
    std::exit(2);
  }
}

enum class ConsumerMode { kSpoutSettings, kDefaults, kBatched };

// librdkafka alone: assign every partition from the beginning, poll until N records (see the top
// of the file for the modes).
Timing RawConsumer(const std::string& bootstrap, const Args& args, ConsumerMode mode) {
  ConfPtr conf(rd_kafka_conf_new());
  SetOrDie(conf.get(), "bootstrap.servers", bootstrap);
  SetOrDie(conf.get(), "group.id", "bench-raw");
  SetOrDie(conf.get(), "enable.auto.commit", "false");
  if (mode != ConsumerMode::kDefaults) {
    SetOrDie(conf.get(), "queued.min.messages", "1000000");
    SetOrDie(conf.get(), "fetch.wait.max.ms", sparse::kafka::kSpoutFetchWaitMaxMs);
  }
  for (const auto& [k, v] : args.properties) SetOrDie(conf.get(), k, v);
  std::string error;
  const auto start = Clock::now();
  const double cpu0 = CpuSeconds();
  ClientPtr c = sparse::kafka::NewClient(RD_KAFKA_CONSUMER, std::move(conf), error);
  {
    // Learn the partitions' leader first, as the spout does before it assigns: assigned blind,
    // librdkafka waits for its own metadata refresh before the first fetch.
    const rd_kafka_metadata_t* md = nullptr;
    sparse::kafka::TopicPtr topic(rd_kafka_topic_new(c.get(), args.topic.c_str(), nullptr));
    if (rd_kafka_metadata(c.get(), 0, topic.get(), &md, 10000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
      rd_kafka_metadata_destroy(md);
    }
  }
  auto list = sparse::kafka::NewPartitionList(args.partitions);
  for (int i = 0; i < args.partitions; ++i) {
    rd_kafka_topic_partition_list_add(list.get(), args.topic.c_str(), i)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  }
  rd_kafka_assign(c.get(), list.get());
  long n = 0;
  std::size_t bytes = 0;
  Clock::time_point first;
  auto last_progress = Clock::now();
  if (mode == ConsumerMode::kBatched) {
    sparse::kafka::QueuePtr queue(rd_kafka_queue_get_consumer(c.get()));
    std::vector<rd_kafka_message_t*> batch(1000);
    sparse::kafka::MessageReaper reaper;
    while (n < args.records) {
      const ssize_t got =
          rd_kafka_consume_batch_queue(queue.get(), 100, batch.data(), batch.size());
      for (ssize_t i = 0; i < got; ++i) {
        rd_kafka_message_t* m = batch[static_cast<std::size_t>(i)];
        if (!m->err) {
          if (++n == 1) first = Clock::now();
          bytes += m->len;
        }
        reaper.Release(m);
      }
      reaper.Flush();
      if (got > 0) {
        last_progress = Clock::now();
      } else if (Clock::now() - last_progress > std::chrono::seconds(30)) {
        std::fprintf(stderr, "batched consumer: no record for 30 s after %ld of %ld\n", n,
                     args.records);
        std::exit(1);
      }
    }
  }
  while (n < args.records) {
    sparse::kafka::MessagePtr m(rd_kafka_consumer_poll(c.get(), 100));
    if (m && !m->err) {
      if (++n == 1) first = Clock::now();
      bytes += m->len;  // touch the record, as a consumer would
      last_progress = Clock::now();
    } else if (Clock::now() - last_progress > std::chrono::seconds(30)) {
      std::fprintf(stderr, "librdkafka consumer: no record for 30 s after %ld of %ld%s%s\n", n,
                   args.records, m ? ": " : "", m ? rd_kafka_message_errstr(m.get()) : "");
      std::exit(1);
    }
  }
  const auto end = Clock::now();
  rd_kafka_consumer_close(c.get());
  g_bytes_seen = bytes;
  return {std::chrono::duration<double>(end - start).count(),
          std::chrono::duration<double>(end - first).count(), CpuSeconds() - cpu0};
}

// The topology: kafka_spout -> count sink, at-least-once (acking on, offsets committed); or,
// with `generator`, the same tuples from a built-in spout without Kafka.
Timing SpoutTopology(const sparse::runtime::BuiltinRegistry& builtins, const std::string& bootstrap,
                     const Args& args, int run, bool generator) {
  std::string yaml = R"(name: bench
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
      topics: [)" + args.topic +
                     R"(]
      group_id: bench-)" +
                     std::to_string(run) +
                     R"(
      start: earliest
      max_uncommitted_offsets: 1000000
      properties: {}
bolts:
  - id: count
    builtin: bench_count_sink
    inputs:
      - {from: kafka, grouping: shuffle}
)";
  nlohmann::json props = nlohmann::json::object();
  for (const auto& [k, v] : args.properties) props[k] = v;
  yaml.replace(yaml.find("properties: {}"), 14, "properties: " + props.dump());
  if (generator) {
    const auto at = yaml.find("  - id: kafka");
    const auto end = yaml.find("bolts:");
    yaml.replace(at, end - at, "  - id: kafka\n    builtin: bench_generator\n");
  }
  auto topology = sparse::runtime::LoadTopologyFromString(yaml, "bench.yaml", builtins);
  sparse::runtime::ValidateOrThrow(topology, builtins);
  const auto plan = sparse::runtime::MakePlan(topology, nlohmann::json::object());
  sparse::runtime::ClusterOptions options;
  options.handle_signals = false;
  options.status_every = std::chrono::milliseconds(60000);
  options.drain_timeout = std::chrono::milliseconds(5000);
  sparse::runtime::LocalCluster cluster(plan, builtins, options, nullptr);
  g_cluster = &cluster;
  g_target = args.records;
  g_count = 0;
  g_marks.clear();
  const auto start = Clock::now();
  const double cpu0 = CpuSeconds();
  const double loop0 = CpuSeconds(RUSAGE_THREAD);
  cluster.Run();
  const double loop_cpu = CpuSeconds(RUSAGE_THREAD) - loop0;
  g_cluster = nullptr;
  if (g_timeline) {
    std::cerr << (generator ? "generator" : "spout") << " timeline (ms from start at each 5%):";
    std::cerr << " first " << std::chrono::duration<double, std::milli>(g_first_at - start).count();
    for (const auto& m : g_marks) {
      std::cerr << " "
                << static_cast<long>(std::chrono::duration<double, std::milli>(m - start).count());
    }
    std::cerr << "\n";
  }
  if (g_count < args.records) {
    std::cerr << "spout run counted only " << g_count << " records\n";
    std::exit(1);
  }
  return {std::chrono::duration<double>(g_done_at - start).count(),
          std::chrono::duration<double>(g_done_at - g_first_at).count(), CpuSeconds() - cpu0,
          loop_cpu};
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--timeline") {
      g_timeline = true;
      --i;  // takes no value
      continue;
    }
    const std::string text = i + 1 < argc ? argv[i + 1] : "";
    const long v = std::atol(text.c_str());
    if (flag == "--property" && text.find('=') != std::string::npos) {
      args.properties.emplace_back(text.substr(0, text.find('=')), text.substr(text.find('=') + 1));
    } else if (flag == "--only") {
      args.only = text;
    } else if (flag == "--broker" && (text == "embedded" || text == "real")) {
      args.real_broker = text == "real";
    } else if (flag == "--bootstrap" && !text.empty()) {
      args.bootstrap = text;
    } else if (flag == "--records") {
      args.records = v;
    } else if (flag == "--partitions") {
      args.partitions = static_cast<int>(v);
    } else if (flag == "--value-bytes") {
      args.value_bytes = static_cast<int>(v);
    } else if (flag == "--runs") {
      args.runs = static_cast<int>(v);
    } else {
      std::cerr << "usage: kafka_bench [--broker embedded|real | --bootstrap HOST:PORT] "
                   "[--records N] [--partitions P] "
                   "[--value-bytes B] [--runs R] [--property KEY=VALUE]... "
                   "[--only spout|raw|defaults|batched|generator] [--timeline]\n";
      return 2;
    }
  }
  sparse::runtime::BuiltinRegistry builtins;
  sparse::runtime::RegisterStandardBuiltins(builtins);
  sparse::kafka::RegisterKafkaBuiltins(builtins);
  builtins.Add({"bench_count_sink",
                sparse::runtime::ComponentKind::kBolt,
                {},
                [](const nlohmann::json&, std::string&) {
                  return std::vector<sparse::runtime::StreamDef>{};
                },
                [](const nlohmann::json&) { return std::make_unique<CountSink>(); },
                {}});
  builtins.Add({"bench_generator",
                sparse::runtime::ComponentKind::kSpout,
                {},
                [](const nlohmann::json&, std::string&) {
                  sparse::runtime::StreamDef s;
                  s.id = "default";
                  s.fields = {"key", "value"};
                  return std::vector<sparse::runtime::StreamDef>{s};
                },
                [](const nlohmann::json&) { return std::make_unique<GeneratorSpout>(); },
                {}});

  std::string error, bootstrap;
  std::unique_ptr<sparse::kafka::EmbeddedBroker> embedded;
  std::unique_ptr<sparse::kafka::testing::RealKafkaBroker> real;
  if (!args.bootstrap.empty()) {
    bootstrap = args.bootstrap;
    args.topic = "bench-" + std::to_string(getpid());
    sparse::kafka::testing::CreateTopic(bootstrap, args.topic, args.partitions);
  } else if (args.real_broker) {
    real = sparse::kafka::testing::RealKafkaBroker::Start(error);
    if (!real) {
      std::cerr << error << "\n";
      return 1;
    }
    bootstrap = real->bootstrap();
    sparse::kafka::testing::CreateTopic(bootstrap, args.topic, args.partitions);
  } else {
    embedded = sparse::kafka::EmbeddedBroker::Start(1, error);
    if (!embedded) {
      std::cerr << error << "\n";
      return 1;
    }
    bootstrap = embedded->bootstrap();
    embedded->CreateTopic(args.topic, args.partitions);
  }
  std::cerr << "producing " << args.records << " records of " << args.value_bytes << " bytes over "
            << args.partitions << " partitions...\n";
  Produce(bootstrap, args);

  std::vector<Timing> raw, raw_defaults, batched, spout, gen;
  for (int r = 0; r < args.runs; ++r) {
    auto want = [&](const char* what) { return args.only.empty() || args.only == what; };
    using Mode = ConsumerMode;
    raw.push_back(want("raw") ? RawConsumer(bootstrap, args, Mode::kSpoutSettings)
                              : Timing{1, 1, 0, 0});
    raw_defaults.push_back(want("defaults") ? RawConsumer(bootstrap, args, Mode::kDefaults)
                                            : Timing{1, 1, 0, 0});
    batched.push_back(want("batched") ? RawConsumer(bootstrap, args, Mode::kBatched)
                                      : Timing{1, 1, 0, 0});
    spout.push_back(want("spout") ? SpoutTopology(builtins, bootstrap, args, r, false)
                                  : Timing{1, 1, 0, 0});
    gen.push_back(want("generator") ? SpoutTopology(builtins, bootstrap, args, r, true)
                                    : Timing{1, 1, 0, 0});
    std::cerr << "run " << r + 1 << ": librdkafka " << raw.back().total_secs << " s (cpu "
              << raw.back().cpu_secs << "), librdkafka defaults " << raw_defaults.back().total_secs
              << " s, batched " << batched.back().total_secs << " s, spout "
              << spout.back().total_secs << " s (cpu " << spout.back().cpu_secs << ", loop "
              << spout.back().loop_cpu_secs << "), generator " << gen.back().total_secs
              << " s (cpu " << gen.back().cpu_secs << ", loop " << gen.back().loop_cpu_secs
              << ")\n";
  }
  auto rate = [&](const std::vector<Timing>& v, double Timing::*field) {
    double best = 1e300;
    for (const auto& t : v) best = std::min(best, t.*field);
    return static_cast<double>(args.records) / best;
  };
  std::printf("records=%ld partitions=%d value_bytes=%d runs=%d (best run; records/s)\n",
              args.records, args.partitions, args.value_bytes, args.runs);
  std::printf("%-38s %12s %12s\n", "", "start->last", "first->last");
  auto row = [&](const char* name, const std::vector<Timing>& v) {
    std::printf("%-38s %12.0f %12.0f\n", name, rate(v, &Timing::total_secs),
                rate(v, &Timing::steady_secs));
  };
  row("librdkafka consumer alone", raw);
  row("  the same, librdkafka's defaults", raw_defaults);
  row("  the same, batched, freed off-thread", batched);
  row("kafka_spout -> count sink", spout);
  row("runtime alone: generator -> count sink", gen);
  std::printf("%-38s %12.2f %12.2f\n", "ratio kafka_spout / librdkafka",
              rate(spout, &Timing::total_secs) / rate(raw, &Timing::total_secs),
              rate(spout, &Timing::steady_secs) / rate(raw, &Timing::steady_secs));
  std::printf("%-38s %12.2f %12.2f\n", "ratio kafka_spout / batched consumer",
              rate(spout, &Timing::total_secs) / rate(batched, &Timing::total_secs),
              rate(spout, &Timing::steady_secs) / rate(batched, &Timing::steady_secs));
  return 0;
}
