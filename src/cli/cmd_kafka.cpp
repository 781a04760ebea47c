// `sparse kafka serve | produce | consume`.
//
// serve starts librdkafka's mock cluster (a real Kafka-protocol broker, in memory) in this
// process, prints its bootstrap address on stdout and runs until Ctrl-C. produce and consume
// are small clients for any Kafka cluster (embedded or real): lines in, lines out.
#include "cli/cmd_kafka.hpp"

#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/run_observability.hpp"
#include "kafka/bootstrap_proxy.hpp"
#include "kafka/embedded_broker.hpp"
#include "kafka/rdkafka_handles.hpp"
#include "kafka/record_codec.hpp"

namespace sparse::cli {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;
constexpr int kReachTimeoutMs = 5000;

volatile std::sig_atomic_t g_stop = 0;
void OnSignal(int) {
  g_stop = 1;
}

void InstallStopSignals() {
  g_stop = 0;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

struct ServeArgs {
  int brokers = 1;
  int partitions = 4;
  std::vector<std::string> topics;
  int port = 9092;
  std::string address_file;
};

// "name" or "name:partitions".
bool ParseTopicSpec(const std::string& spec, int default_partitions, std::string& name,
                    int& partitions) {
  const auto colon = spec.rfind(':');
  name = spec.substr(0, colon);
  partitions = default_partitions;
  if (colon != std::string::npos) {
    try {
      partitions = std::stoi(spec.substr(colon + 1));
    } catch (...) {
      return false;
    }
  }
  return !name.empty() && partitions > 0;
}

int Serve(const ServeArgs& args) {
  std::string error;
  auto broker = kafka::EmbeddedBroker::Start(args.brokers, error);
  if (!broker) {
    std::cerr << "sparse kafka serve: " << error << "\n";
    return ExitCode(base::Errc::kIo);
  }
  for (const auto& spec : args.topics) {
    std::string name;
    int partitions = 0;
    if (!ParseTopicSpec(spec, args.partitions, name, partitions)) {
      std::cerr << "sparse kafka serve: --topic expects NAME or NAME:PARTITIONS, got `" << spec
                << "`\n";
      return ExitCode(base::Errc::kUsage);
    }
    if (auto err = broker->CreateTopic(name, partitions)) {
      std::cerr << "sparse kafka serve: " << *err << "\n";
      return ExitCode(base::Errc::kIo);
    }
    std::cerr << "created topic " << name << " (" << partitions << " partitions)\n";
  }
  std::unique_ptr<kafka::BootstrapProxy> proxy;
  std::string address = broker->bootstrap();
  if (args.port > 0) {
    proxy = kafka::BootstrapProxy::Start("127.0.0.1", args.port, broker->bootstrap(), error);
    if (!proxy) {
      std::cerr << "sparse kafka serve: " << error
                << " (is a Kafka broker already running there? use --port 0 for a free port)\n";
      return ExitCode(base::Errc::kIo);
    }
    address = proxy->address();
  }
  if (!args.address_file.empty()) {
    std::ofstream(args.address_file) << address << "\n";
  }
  InstallStopSignals();
  std::cout << address << std::endl;
  std::cerr << "embedded Kafka broker (in memory, " << args.brokers << " broker(s)) at " << address
            << "; other topics are created on first produce with 4 partitions. Ctrl-C stops it "
               "(its data is lost).\n";
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::cerr << "stopping the embedded broker\n";
  proxy.reset();
  broker.reset();
  return kExitOk;
}

struct ClientArgs {
  std::string bootstrap;  // empty: a running topology's embedded broker, else localhost:9092
  std::string topic;
  std::vector<std::string> properties;  // key=value
  // produce
  std::string key_separator;
  int partition = -1;
  // consume
  bool from_beginning = false;
  std::int64_t max = 0;
  double idle_secs = 5;
  std::string group;
  bool json = false;
};

std::optional<std::string> ApplyKeyValues(rd_kafka_conf_t* conf,
                                          const std::vector<std::string>& props) {
  for (const auto& kv : props) {
    const auto eq = kv.find('=');
    if (eq == std::string::npos) return "-X expects key=value, got `" + kv + "`";
    if (auto err = kafka::SetProperty(conf, kv.substr(0, eq), kv.substr(eq + 1))) {
      return "-X " + kv.substr(0, eq) + ": " + *err;
    }
  }
  return std::nullopt;
}

void QuietLogs(rd_kafka_conf_t* conf) {
  // Connection trouble is reported once through the error callback instead of every retry.
  rd_kafka_conf_set_log_cb(conf, [](const rd_kafka_t*, int, const char*, const char*) {});
  rd_kafka_conf_set_error_cb(conf, [](rd_kafka_t*, int err, const char* reason, void*) {
    static Clock::time_point last{};
    const auto now = Clock::now();
    if (now - last < std::chrono::seconds(5)) return;
    last = now;
    std::cerr << "kafka: " << rd_kafka_err2name(static_cast<rd_kafka_resp_err_t>(err)) << ": "
              << reason << " (retrying)\n";
  });
}

// Without -b: the embedded broker of a `sparse run` in this folder or a parent (its run-state
// file has the address), else localhost:9092 (where `sparse kafka serve` listens).
std::string BootstrapFor(const ClientArgs& args, const char* command) {
  if (!args.bootstrap.empty()) return args.bootstrap;
  if (auto run = FindRun(fs::current_path()); run && !run->state.kafka.empty()) {
    std::cerr << "sparse kafka " << command << ": the embedded broker of the running topology `"
              << run->state.topology << "` at " << run->state.kafka << "\n";
    return run->state.kafka;
  }
  return "localhost:9092";
}

// Asks the brokers for their list (no topics) so that an unreachable cluster is an error in
// seconds rather than a wait as long as librdkafka's own timeouts.
std::optional<std::string> Reachable(rd_kafka_t* rk, const std::string& bootstrap) {
  const rd_kafka_metadata_t* raw = nullptr;
  const auto err = rd_kafka_metadata(rk, 0, nullptr, &raw, kReachTimeoutMs);
  kafka::MetadataPtr md(raw);
  if (!err) return std::nullopt;
  return "cannot reach Kafka at " + bootstrap + " within " +
         std::to_string(kReachTimeoutMs / 1000) + " s: " + rd_kafka_err2str(err) +
         ". Is a broker running there? (`sparse kafka serve` runs one; a `sparse run` of a "
         "topology with kafka.bootstrap.servers: embedded runs one for its run)";
}

int Produce(const ClientArgs& in) {
  ClientArgs args = in;
  args.bootstrap = BootstrapFor(in, "produce");
  kafka::ConfPtr conf(rd_kafka_conf_new());
  kafka::SetProperty(conf.get(), "bootstrap.servers", args.bootstrap);
  kafka::SetProperty(conf.get(), "enable.idempotence", "true");
  kafka::SetProperty(conf.get(), "linger.ms", "5");
  // A record not delivered within 10 s (the broker went away) fails the command.
  kafka::SetProperty(conf.get(), "message.timeout.ms", "10000");
  if (auto err = ApplyKeyValues(conf.get(), args.properties)) {
    std::cerr << "sparse kafka produce: " << *err << "\n";
    return ExitCode(base::Errc::kInvalidInput);
  }
  QuietLogs(conf.get());
  static std::uint64_t failed = 0;
  failed = 0;
  rd_kafka_conf_set_dr_msg_cb(conf.get(), [](rd_kafka_t*, const rd_kafka_message_t* m, void*) {
    if (m->err) {
      if (failed++ == 0) std::cerr << "delivery failed: " << rd_kafka_err2str(m->err) << "\n";
    }
  });
  std::string error;
  auto producer = kafka::NewClient(RD_KAFKA_PRODUCER, std::move(conf), error);
  if (!producer) {
    std::cerr << "sparse kafka produce: " << error << "\n";
    return ExitCode(base::Errc::kInvalidInput);
  }
  if (auto err = Reachable(producer.get(), args.bootstrap)) {
    std::cerr << "sparse kafka produce: " << *err << "\n";
    return ExitCode(base::Errc::kRemote);
  }
  std::uint64_t lines = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    std::string key;
    std::string value = line;
    bool has_key = false;
    if (!args.key_separator.empty()) {
      const auto at = line.find(args.key_separator);
      if (at != std::string::npos) {
        key = line.substr(0, at);
        value = line.substr(at + args.key_separator.size());
        has_key = true;
      }
    }
    for (;;) {
      kafka::OutRecord record;
      record.topic = args.topic.c_str();
      if (args.partition >= 0) record.partition = args.partition;
      if (has_key) record.key = key;
      record.value = value;
      const auto err = kafka::Produce(producer.get(), record);
      if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_poll(producer.get(), 100);
        continue;
      }
      if (err) {
        std::cerr << "sparse kafka produce: " << rd_kafka_err2str(err) << "\n";
        return ExitCode(base::Errc::kRemote);
      }
      break;
    }
    ++lines;
    rd_kafka_poll(producer.get(), 0);
  }
  const auto err = rd_kafka_flush(producer.get(), 30000);
  if (err || failed > 0) {
    std::cerr << "sparse kafka produce: "
              << (failed + static_cast<std::uint64_t>(rd_kafka_outq_len(producer.get()))) << " of "
              << lines << " record(s) not delivered to " << args.bootstrap << "\n";
    return ExitCode(base::Errc::kRemote);
  }
  std::cerr << "produced " << lines << " record(s) to " << args.topic << "\n";
  return kExitOk;
}

// --json: the record's timestamp (ms since the epoch, and whether the producer or the broker set
// it) and its headers as an object (a header repeated under one name: an array of its values).
// Dead letters carry their source and error there (sparse.error, sparse.source.*).
void AddTimestampAndHeaders(const rd_kafka_message_t& m, nlohmann::json& j) {
  rd_kafka_timestamp_type_t type = RD_KAFKA_TIMESTAMP_NOT_AVAILABLE;
  const std::int64_t ts = rd_kafka_message_timestamp(&m, &type);
  j["timestamp"] =
      type == RD_KAFKA_TIMESTAMP_NOT_AVAILABLE ? nlohmann::json(nullptr) : nlohmann::json(ts);
  j["timestamp_type"] = type == RD_KAFKA_TIMESTAMP_CREATE_TIME       ? "create"
                        : type == RD_KAFKA_TIMESTAMP_LOG_APPEND_TIME ? "log_append"
                                                                     : "none";
  nlohmann::json headers = nlohmann::json::object();
  rd_kafka_headers_t* hdrs = nullptr;
  if (rd_kafka_message_headers(&m, &hdrs) == RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
    const char* name = nullptr;
    const void* val = nullptr;
    std::size_t size = 0;
    for (std::size_t i = 0;
         rd_kafka_header_get_all(hdrs, i, &name, &val, &size) == RD_KAFKA_RESP_ERR_NO_ERROR; ++i) {
      nlohmann::json v = val ? nlohmann::json(std::string(static_cast<const char*>(val), size))
                             : nlohmann::json(nullptr);
      auto it = headers.find(name);
      if (it == headers.end()) {
        headers[name] = std::move(v);
      } else {
        if (!it->is_array()) *it = nlohmann::json::array({*it});
        it->push_back(std::move(v));
      }
    }
  }
  j["headers"] = std::move(headers);
}

int Consume(const ClientArgs& in) {
  ClientArgs args = in;
  args.bootstrap = BootstrapFor(in, "consume");
  kafka::ConfPtr conf(rd_kafka_conf_new());
  kafka::SetProperty(conf.get(), "bootstrap.servers", args.bootstrap);
  const bool group = !args.group.empty();
  kafka::SetProperty(conf.get(), "group.id", group ? args.group : "sparse-kafka-consume");
  kafka::SetProperty(conf.get(), "enable.auto.commit", group ? "true" : "false");
  kafka::SetProperty(conf.get(), "auto.offset.reset", args.from_beginning ? "earliest" : "latest");
  if (auto err = ApplyKeyValues(conf.get(), args.properties)) {
    std::cerr << "sparse kafka consume: " << *err << "\n";
    return ExitCode(base::Errc::kInvalidInput);
  }
  QuietLogs(conf.get());
  std::string error;
  auto consumer = kafka::NewClient(RD_KAFKA_CONSUMER, std::move(conf), error);
  if (!consumer) {
    std::cerr << "sparse kafka consume: " << error << "\n";
    return ExitCode(base::Errc::kInvalidInput);
  }
  if (auto err = Reachable(consumer.get(), args.bootstrap)) {
    std::cerr << "sparse kafka consume: " << *err << "\n";
    return ExitCode(base::Errc::kRemote);
  }
  rd_kafka_poll_set_consumer(consumer.get());
  if (group) {
    auto topics = kafka::NewPartitionList(1);
    rd_kafka_topic_partition_list_add(topics.get(), args.topic.c_str(), RD_KAFKA_PARTITION_UA);
    if (const auto err = rd_kafka_subscribe(consumer.get(), topics.get())) {
      std::cerr << "sparse kafka consume: cannot subscribe: " << rd_kafka_err2str(err) << "\n";
      return ExitCode(base::Errc::kIo);
    }
  } else {
    // No group: read every partition directly (no group join to wait for).
    kafka::TopicPtr topic(rd_kafka_topic_new(consumer.get(), args.topic.c_str(), nullptr));
    const rd_kafka_metadata_t* raw = nullptr;
    const auto err = rd_kafka_metadata(consumer.get(), 0, topic.get(), &raw, 10000);
    kafka::MetadataPtr md(raw);
    if (err || md->topic_cnt != 1 || md->topics[0].err) {
      std::cerr << "sparse kafka consume: cannot read topic `" << args.topic << "` from "
                << args.bootstrap << ": " << rd_kafka_err2str(err ? err : md->topics[0].err)
                << "\n";
      return ExitCode(base::Errc::kRemote);
    }
    auto parts = kafka::NewPartitionList(md->topics[0].partition_cnt);
    for (int p = 0; p < md->topics[0].partition_cnt; ++p) {
      rd_kafka_topic_partition_list_add(parts.get(), args.topic.c_str(), p)->offset =
          args.from_beginning ? RD_KAFKA_OFFSET_BEGINNING : RD_KAFKA_OFFSET_END;
    }
    rd_kafka_assign(consumer.get(), parts.get());
  }
  InstallStopSignals();
  std::int64_t count = 0;
  auto last = Clock::now();
  while (!g_stop && (args.max <= 0 || count < args.max)) {
    kafka::MessagePtr m(rd_kafka_consumer_poll(consumer.get(), 200));
    if (!m) {
      if (args.idle_secs > 0 &&
          Clock::now() - last > std::chrono::duration<double>(args.idle_secs)) {
        break;
      }
      continue;
    }
    if (m->err) {
      if (m->err != RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        std::cerr << "kafka: " << rd_kafka_message_errstr(m.get()) << "\n";
      }
      continue;
    }
    last = Clock::now();
    ++count;
    const std::string_view value(static_cast<const char*>(m->payload), m->payload ? m->len : 0);
    if (args.json) {
      nlohmann::json j{{"topic", rd_kafka_topic_name(m->rkt)},
                       {"partition", m->partition},
                       {"offset", m->offset}};
      j["key"] = m->key ? nlohmann::json(std::string(static_cast<const char*>(m->key), m->key_len))
                        : nlohmann::json(nullptr);
      j["value"] = m->payload ? nlohmann::json(std::string(value)) : nlohmann::json(nullptr);
      AddTimestampAndHeaders(*m, j);
      std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      std::cout << value << "\n";
    }
  }
  std::cout.flush();
  rd_kafka_consumer_close(consumer.get());
  std::cerr << "consumed " << count << " record(s) from " << args.topic << "\n";
  return kExitOk;
}

}  // namespace

void RegisterKafkaCommands(CLI::App& app, Action& action) {
  CLI::App* kafka = app.add_subcommand("kafka", "An embedded Kafka broker, and small clients");
  kafka->require_subcommand(1);
  kafka->footer(R"(Examples:
  sparse kafka serve --topic clicks:4 --topic counts      broker at localhost:9092 until Ctrl-C
  seq 1 100 | sparse kafka produce -t clicks              one record per line
  sparse kafka consume -t counts --from-beginning --max 10
  sparse run topologies/pipeline.yaml -o kafka.bootstrap.servers=broker1:9092   a real cluster)");

  auto serve = std::make_shared<ServeArgs>();
  CLI::App* s = kafka->add_subcommand(
      "serve",
      "Run an embedded Kafka-protocol broker (in memory) until Ctrl-C; prints its "
      "bootstrap address");
  s->add_option("--brokers", serve->brokers, "Number of brokers")->check(CLI::Range(1, 16));
  s->add_option("--partitions", serve->partitions, "Partitions of each --topic without :N")
      ->check(CLI::Range(1, 10000));
  s->add_option("--topic", serve->topics, "Topic to create: NAME or NAME:PARTITIONS (repeatable)");
  s->add_option("--port", serve->port,
                "Fixed bootstrap port on 127.0.0.1 (default 9092); 0: only the broker's own "
                "random port")
      ->check(CLI::Range(0, 65535));
  s->add_option("--address-file", serve->address_file, "Also write the address to this file");
  s->callback([serve, &action] { action = [serve] { return Serve(*serve); }; });

  auto produce = std::make_shared<ClientArgs>();
  CLI::App* p = kafka->add_subcommand("produce", "Write stdin to a topic, one record per line");
  p->add_option("-b,--bootstrap-servers", produce->bootstrap,
                "Kafka bootstrap servers (default: the embedded broker of a `sparse run` in this "
                "project, else localhost:9092)");
  p->add_option("-t,--topic", produce->topic, "Topic")->required();
  p->add_option("-k,--key-separator", produce->key_separator,
                "Split each line into KEY SEP VALUE at the first SEP");
  p->add_option("-p,--partition", produce->partition, "Partition (default: by key)");
  p->add_option("-X", produce->properties, "librdkafka property key=value (repeatable)");
  p->callback([produce, &action] { action = [produce] { return Produce(*produce); }; });

  auto consume = std::make_shared<ClientArgs>();
  CLI::App* c = kafka->add_subcommand("consume", "Print a topic's records on stdout");
  c->add_option("-b,--bootstrap-servers", consume->bootstrap,
                "Kafka bootstrap servers (default: the embedded broker of a `sparse run` in this "
                "project, else localhost:9092)");
  c->add_option("-t,--topic", consume->topic, "Topic")->required();
  c->add_flag("--from-beginning", consume->from_beginning, "Start at the earliest offset");
  c->add_option("-n,--max", consume->max, "Stop after this many records");
  c->add_option("--idle", consume->idle_secs,
                "Stop after this many seconds without a record (0: never)")
      ->capture_default_str();
  c->add_option("-g,--group", consume->group, "Consumer group (commits offsets)");
  c->add_flag("--json", consume->json,
              "One JSON object per record: topic, partition, offset, key, value, timestamp, "
              "timestamp_type, headers");
  c->add_option("-X", consume->properties, "librdkafka property key=value (repeatable)");
  c->callback([consume, &action] { action = [consume] { return Consume(*consume); }; });
}

}  // namespace sparse::cli
