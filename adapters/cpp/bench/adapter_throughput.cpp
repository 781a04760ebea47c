// Throughput of the C++ adapter against a raw-pipe floor, with a JSON host and a MessagePack host.
//
//   sparse_cpp_adapter_bench [tuples] [json|msgpack|both|codec]   (default 1000000 both)
//
// The host side (this process) writes `tuples` tuple messages to a child as fast as the pipe takes
// them (from a writer thread) and counts the acks coming back. Children (this binary again; the
// adapter children detect the host's format from the handshake like any component):
//   floor        reads 64 KiB chunks, finds each message's end (JSON: the `end` line; MessagePack:
//                the adapter's framer), writes a canned ack per message (one write per chunk):
//                the cost of the pipes and framing alone.
//   ack          sparse::Bolt whose process() does nothing (auto-ack).
//   emit+ack     sparse::Bolt that emits one tuple per input (need_task_ids false), then auto-acks.
//   spout-floor  answers each `next` with a canned emit + sync: the floor of a round trip.
//   spout        sparse::Spout: host sends `next`, spout emits one tuple, host waits for `sync`.
// Prints tuples per second, wall-clock microseconds per tuple, and the child's CPU time (user +
// system) per tuple, which shifts less than wall time when other processes load the machine.
//
// `codec` times the message codecs in-process instead (ns per message, best of 5 runs): parsing a
// tuple message and composing an emit and an ack, with the adapter's JSON and MessagePack code and
// with nlohmann's json::parse / from_msgpack / to_msgpack for comparison.
#include <sparse/sparse.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

using sparse::json;
using sparse::detail::Wire;

// One message in `wire`, as a host writes it.
std::string encode(Wire wire, const json& message) {
  std::string out;
  if (wire == Wire::msgpack) {
    sparse::detail::msgpack::append_value(out, message);
  } else {
    out = message.dump() + "\nend\n";
  }
  return out;
}

const json kTupleMessage = {{"id", "-6955786537413359385"},
                            {"comp", "split"},
                            {"stream", "default"},
                            {"task", 3},
                            {"tuple", {"word"}}};

class NoopBolt : public sparse::Bolt {
  void process(const sparse::Tuple&) override {}
};

class EmitBolt : public sparse::Bolt {
  void process(const sparse::Tuple& t) override {
    emit({t[0]}, sparse::BoltEmit().without_task_ids());
  }
};

class CountingSpout : public sparse::Spout {
  long long n_ = 0;
  void next_tuple() override {
    const long long n = n_++;
    emit({n}, sparse::SpoutEmit().with_id(n).without_task_ids());
  }
};

int run_floor() {
  const std::string ack = "{\"command\":\"ack\",\"id\":\"1\"}\nend\n";
  std::vector<char> buffer(64 * 1024);
  std::string out;
  std::size_t carry = 0;  // bytes of a partial "\nend\n" at the end of the previous chunk
  const char* pattern = "\nend\n";
  bool first = true;
  for (;;) {
    const ssize_t got = ::read(0, buffer.data(), buffer.size());
    if (got <= 0) return 0;
    out.clear();
    for (ssize_t i = 0; i < got; ++i) {
      carry = buffer[std::size_t(i)] == pattern[carry] ? carry + 1
              : buffer[std::size_t(i)] == '\n'         ? 1
                                                       : 0;
      if (carry == 5) {
        carry = 1;
        out += first ? "{\"pid\":1}\nend\n" : ack;
        first = false;
      }
    }
    if (!out.empty() && ::write(1, out.data(), out.size()) < 0) return 1;
  }
}

// The MessagePack floor: the adapter's framer finds the messages, canned acks answer them.
int run_floor_msgpack() {
  const std::string pid = encode(Wire::msgpack, {{"pid", 1}});
  const std::string ack = encode(Wire::msgpack, {{"command", "ack"}, {"id", "1"}});
  sparse::detail::FrameDecoder decoder(std::size_t{256} << 20, Wire::msgpack);
  std::string out;
  std::string_view message;
  bool first = true;
  for (;;) {
    char* area = decoder.write_area(64 * 1024);
    const ssize_t got = ::read(0, area, decoder.write_capacity());
    if (got <= 0) return 0;
    decoder.commit(std::size_t(got));
    out.clear();
    while (decoder.next(message)) {
      out += first ? pid : ack;
      first = false;
    }
    if (!out.empty() && ::write(1, out.data(), out.size()) < 0) return 1;
  }
}

// Answers each `next` with a canned emit and sync, one write: the floor of a spout round trip.
int run_spout_floor() {
  sparse::detail::FrameReader reader(0);
  std::string_view text;
  if (reader.next(text) != sparse::detail::FrameReader::Result::message) return 1;
  const Wire wire = reader.wire();
  const std::string reply =
      encode(wire, {{"command", "emit"}, {"id", 1}, {"need_task_ids", false}, {"tuple", {1}}}) +
      encode(wire, {{"command", "sync"}});
  const std::string pid = encode(wire, {{"pid", 1}});
  if (::write(1, pid.data(), pid.size()) < 0) return 1;
  while (reader.next(text) == sparse::detail::FrameReader::Result::message) {
    if (::write(1, reply.data(), reply.size()) < 0) return 1;
  }
  return 0;
}

// CPU seconds (user + system) used so far by reaped children.
double children_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct Measurement {
  double wall_seconds;
  double child_cpu_seconds;
};

struct Child {
  pid_t pid;
  int to;
  int from;
};

Child spawn(const char* self, const char* mode) {
  int in[2], out[2];
  if (::pipe(in) != 0 || ::pipe(out) != 0) std::abort();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    for (int fd : {in[0], in[1], out[0], out[1]}) ::close(fd);
    ::execl(self, self, mode, static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  return Child{pid, in[1], out[0]};
}

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t wrote = ::write(fd, data.data(), data.size());
    if (wrote <= 0) std::abort();
    data.remove_prefix(std::size_t(wrote));
  }
}

// Reads until `count` messages arrived; returns them counted.
void read_messages(int fd, long long count, Wire wire) {
  sparse::detail::FrameReader reader(fd, -1, std::size_t{256} << 20, wire);
  std::string_view text;
  for (long long i = 0; i < count; ++i) {
    if (reader.next(text) != sparse::detail::FrameReader::Result::message) std::abort();
  }
}

std::string handshake(Wire wire) {
  return encode(wire, {{"pidDir", "/tmp"}, {"conf", json::object()}, {"context", json::object()}});
}

Measurement bench_bolt(const char* self, const char* mode, long long tuples, int replies_per_tuple,
                       Wire wire) {
  const double cpu_before = children_cpu_seconds();
  Child child = spawn(self, mode);
  write_all(child.to, handshake(wire));
  read_messages(child.from, 1, wire);  // pid
  // A realistic tuple: a Storm-style 64-bit id and one short word.
  std::string batch;
  const int per_batch = 1000;
  const std::string message = encode(wire, kTupleMessage);
  for (int i = 0; i < per_batch; ++i) batch += message;
  const auto start = std::chrono::steady_clock::now();
  std::thread writer([&] {
    for (long long sent = 0; sent < tuples; sent += per_batch) write_all(child.to, batch);
  });
  read_messages(child.from, tuples * replies_per_tuple, wire);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  writer.join();
  ::close(child.to);
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  ::close(child.from);
  return {std::chrono::duration<double>(elapsed).count(), children_cpu_seconds() - cpu_before};
}

Measurement bench_spout(const char* self, const char* mode, long long rounds, Wire wire) {
  const double cpu_before = children_cpu_seconds();
  Child child = spawn(self, mode);
  write_all(child.to, handshake(wire));
  read_messages(child.from, 1, wire);
  sparse::detail::FrameReader reader(child.from, -1, std::size_t{256} << 20, wire);
  const std::string next = encode(wire, {{"command", "next"}, {"id", ""}});
  std::string_view text;
  const auto start = std::chrono::steady_clock::now();
  for (long long i = 0; i < rounds; ++i) {
    write_all(child.to, next);
    for (int m = 0; m < 2; ++m) {  // emit, sync
      if (reader.next(text) != sparse::detail::FrameReader::Result::message) std::abort();
    }
  }
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ::close(child.to);
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  ::close(child.from);
  return {std::chrono::duration<double>(elapsed).count(), children_cpu_seconds() - cpu_before};
}

void report(const char* name, Wire wire, long long tuples, Measurement m) {
  std::printf(
      "%-12s %-8s %9lld tuples %7.3f s %9.0f tuples/s %6.2f us/tuple wall %6.2f us/tuple child "
      "CPU\n",
      name, wire == Wire::msgpack ? "msgpack" : "json", tuples, m.wall_seconds,
      double(tuples) / m.wall_seconds, m.wall_seconds * 1e6 / double(tuples),
      m.child_cpu_seconds * 1e6 / double(tuples));
  std::fflush(stdout);
}

// --- codec: in-process timings ---------------------------------------------------------------

volatile std::size_t g_sink;  // keeps results alive

// Best of 5 runs of `iterations` calls of `body`, in ns per call.
template <class Body>
double time_ns(long long iterations, Body&& body) {
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    for (long long i = 0; i < iterations; ++i) body();
    const auto elapsed = std::chrono::steady_clock::now() - start;
    best = std::min(best,
                    std::chrono::duration<double, std::nano>(elapsed).count() / double(iterations));
  }
  return best;
}

void report_codec(const char* what, double json_adapter, double msgpack_adapter,
                  double json_nlohmann, double msgpack_nlohmann) {
  std::printf("%-34s", what);
  for (double ns : {json_adapter, msgpack_adapter, json_nlohmann, msgpack_nlohmann}) {
    if (ns > 0) {
      std::printf(" %8.0f", ns);
    } else {
      std::printf(" %8s", "-");
    }
  }
  std::printf("\n");
}

// Builds a Tuple from a whole parsed message, as a parser without envelope support has to.
sparse::Tuple tuple_from(json message) {
  auto take = [&](const char* name) { return std::move(message[name]); };
  json comp = take("comp");
  json stream = take("stream");
  json task = take("task");
  return sparse::Tuple(take("id"), comp.is_string() ? comp.get<std::string>() : "",
                       stream.is_string() ? stream.get<std::string>() : "default",
                       task.is_number_integer() ? task.get<std::int64_t>() : 0, take("tuple"));
}

int run_codec(long long iterations) {
  const std::string json_text = kTupleMessage.dump();
  const std::string msgpack_bytes = encode(Wire::msgpack, kTupleMessage);
  const std::vector<std::uint8_t> msgpack_vector(msgpack_bytes.begin(), msgpack_bytes.end());
  std::printf("tuple message: %zu bytes JSON (+ 5 for the end line), %zu bytes MessagePack\n",
              json_text.size(), msgpack_bytes.size());
  std::printf("%-34s %8s %8s %8s %8s   (ns per message, best of 5)\n", "", "JSON", "msgpack",
              "nl.JSON", "nl.mpack");

  sparse::Tuple tuple;
  json reply;
  report_codec("parse a tuple message",
               time_ns(iterations,
                       [&] {
                         sparse::detail::parse_bolt_message(Wire::json, json_text, tuple, reply);
                         g_sink = tuple.size();
                       }),
               time_ns(iterations,
                       [&] {
                         sparse::detail::parse_bolt_message(Wire::msgpack, msgpack_bytes, tuple,
                                                            reply);
                         g_sink = tuple.size();
                       }),
               time_ns(iterations,
                       [&] {
                         tuple = tuple_from(json::parse(json_text));
                         g_sink = tuple.size();
                       }),
               time_ns(iterations, [&] {
                 tuple = tuple_from(json::from_msgpack(msgpack_vector));
                 g_sink = tuple.size();
               }));

  // Framing 1000 back-to-back messages, per message.
  auto frame_all = [&](Wire wire, const std::string& one) {
    std::string stream;
    for (int i = 0; i < 1000; ++i) stream += one;
    return time_ns(iterations / 1000 + 1,
                   [&, wire] {
                     sparse::detail::FrameDecoder decoder(std::size_t{256} << 20, wire);
                     std::memcpy(decoder.write_area(stream.size()), stream.data(), stream.size());
                     decoder.commit(stream.size());
                     std::string_view message;
                     std::size_t count = 0;
                     while (decoder.next(message)) ++count;
                     g_sink = count;
                   }) /
           1000;
  };
  report_codec("find message ends (framing)", frame_all(Wire::json, json_text + "\nend\n"),
               frame_all(Wire::msgpack, msgpack_bytes), 0, 0);

  const json values = json::array({"word"});
  const json anchor = "-6955786537413359385";
  std::string out;
  auto compose_emit = [&](auto& e) {
    e.begin_map(2 + sparse::detail::emit_tail_entries("", 0, false));
    e.key("command");
    e.literal("emit");
    e.key("anchors");
    e.begin_array(1);
    e.value(anchor);
    e.end_array();
    sparse::detail::append_emit_tail(e, "", 0, false, values);
  };
  auto encode_with = [&](Wire wire, auto& compose) {
    return time_ns(iterations, [&, wire] {
      out.clear();
      sparse::detail::encode_message(wire, out, compose);
      g_sink = out.size();
    });
  };
  auto nlohmann_emit = [&] {
    return json{{"command", "emit"},
                {"anchors", json::array({anchor})},
                {"need_task_ids", false},
                {"tuple", values}};
  };
  report_codec("compose an anchored emit", encode_with(Wire::json, compose_emit),
               encode_with(Wire::msgpack, compose_emit),
               time_ns(iterations,
                       [&] {
                         out = nlohmann_emit().dump();
                         g_sink = out.size();
                       }),
               time_ns(iterations, [&] { g_sink = json::to_msgpack(nlohmann_emit()).size(); }));
  auto compose_ack = [&](auto& e) { sparse::detail::message::ack(e, anchor); };
  auto nlohmann_ack = [&] { return json{{"command", "ack"}, {"id", anchor}}; };
  report_codec("compose an ack", encode_with(Wire::json, compose_ack),
               encode_with(Wire::msgpack, compose_ack),
               time_ns(iterations,
                       [&] {
                         out = nlohmann_ack().dump();
                         g_sink = out.size();
                       }),
               time_ns(iterations, [&] { g_sink = json::to_msgpack(nlohmann_ack()).size(); }));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "floor") == 0) return run_floor();
  if (argc == 2 && std::strcmp(argv[1], "floor-msgpack") == 0) return run_floor_msgpack();
  if (argc == 2 && std::strcmp(argv[1], "ack") == 0) return sparse::run<NoopBolt>();
  if (argc == 2 && std::strcmp(argv[1], "emit") == 0) return sparse::run<EmitBolt>();
  if (argc == 2 && std::strcmp(argv[1], "spout") == 0) return sparse::run<CountingSpout>();
  if (argc == 2 && std::strcmp(argv[1], "spout-floor") == 0) return run_spout_floor();
  const long long tuples = argc > 1 ? std::atoll(argv[1]) / 1000 * 1000 : 1000000;
  const std::string which = argc > 2 ? argv[2] : "both";
  if (which == "codec") return run_codec(tuples);
  std::vector<Wire> wires;
  if (which == "json" || which == "both") wires.push_back(Wire::json);
  if (which == "msgpack" || which == "both") wires.push_back(Wire::msgpack);
  if (wires.empty() || tuples <= 0) {
    std::fprintf(stderr, "usage: %s [tuples] [json|msgpack|both|codec]\n", argv[0]);
    return 2;
  }
  const char* self = "/proc/self/exe";
  char path[4096];
  const ssize_t n = ::readlink(self, path, sizeof path - 1);
  if (n <= 0) return 1;
  path[n] = '\0';
  for (Wire wire : wires) {
    const bool mp = wire == Wire::msgpack;
    report("floor", wire, tuples,
           bench_bolt(path, mp ? "floor-msgpack" : "floor", tuples, 1, wire));
    report("ack", wire, tuples, bench_bolt(path, "ack", tuples, 1, wire));
    report("emit+ack", wire, tuples, bench_bolt(path, "emit", tuples, 2, wire));
    report("spout-floor", wire, tuples / 10, bench_spout(path, "spout-floor", tuples / 10, wire));
    report("spout", wire, tuples / 10, bench_spout(path, "spout", tuples / 10, wire));
  }
  return 0;
}
