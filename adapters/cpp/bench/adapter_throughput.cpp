// Throughput of the C++ adapter against a raw-pipe floor.
//
//   sparse_cpp_adapter_bench [tuples]        (default 1000000)
//
// The host side (this process) writes `tuples` tuple messages to a child as fast as the pipe takes
// them (from a writer thread) and counts the acks coming back. Children (this binary again):
//   floor      reads 64 KiB chunks, finds each message's `end` line, writes a canned ack per
//   message
//              (one write per chunk): the cost of the pipes and framing alone.
//   ack        sparse::Bolt whose process() does nothing (auto-ack).
//   emit+ack   sparse::Bolt that emits one tuple per input (need_task_ids false), then auto-acks.
//   spout-floor  answers each `next` with a canned emit + sync: the floor of a round trip.
//   spout      sparse::Spout: host sends `next`, spout emits one tuple, host waits for `sync`.
// Prints tuples per second, wall-clock microseconds per tuple, and the child's CPU time (user +
// system) per tuple, which shifts less than wall time when other processes load the machine.
#include <sparse/sparse.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace {

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
  void next_tuple() override { emit({n_}, sparse::SpoutEmit().with_id(n_++).without_task_ids()); }
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

// Answers each `next` with a canned emit and sync, one write: the floor of a spout round trip.
int run_spout_floor() {
  const std::string reply =
      "{\"command\":\"emit\",\"id\":1,\"need_task_ids\":false,\"tuple\":[1]}\nend\n"
      "{\"command\":\"sync\"}\nend\n";
  sparse::detail::FrameReader reader(0);
  std::string_view text;
  if (reader.next(text) != sparse::detail::FrameReader::Result::message) return 1;
  const std::string pid = "{\"pid\":1}\nend\n";
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
void read_messages(int fd, long long count) {
  sparse::detail::FrameReader reader(fd);
  std::string_view text;
  for (long long i = 0; i < count; ++i) {
    if (reader.next(text) != sparse::detail::FrameReader::Result::message) std::abort();
  }
}

const char* kHandshake = "{\"pidDir\":\"/tmp\",\"conf\":{},\"context\":{}}\nend\n";

Measurement bench_bolt(const char* self, const char* mode, long long tuples,
                       int replies_per_tuple) {
  const double cpu_before = children_cpu_seconds();
  Child child = spawn(self, mode);
  write_all(child.to, kHandshake);
  read_messages(child.from, 1);  // pid
  // A realistic tuple: a Storm-style 64-bit id and one short word.
  std::string batch;
  const int per_batch = 1000;
  for (int i = 0; i < per_batch; ++i) {
    batch +=
        "{\"id\":\"-6955786537413359385\",\"comp\":\"split\",\"stream\":\"default\",\"task\":3,"
        "\"tuple\":[\"word\"]}\nend\n";
  }
  const auto start = std::chrono::steady_clock::now();
  std::thread writer([&] {
    for (long long sent = 0; sent < tuples; sent += per_batch) write_all(child.to, batch);
  });
  read_messages(child.from, tuples * replies_per_tuple);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  writer.join();
  ::close(child.to);
  int status = 0;
  ::waitpid(child.pid, &status, 0);
  ::close(child.from);
  return {std::chrono::duration<double>(elapsed).count(), children_cpu_seconds() - cpu_before};
}

Measurement bench_spout(const char* self, const char* mode, long long rounds) {
  const double cpu_before = children_cpu_seconds();
  Child child = spawn(self, mode);
  write_all(child.to, kHandshake);
  read_messages(child.from, 1);
  sparse::detail::FrameReader reader(child.from);
  const std::string next = "{\"command\":\"next\",\"id\":\"\"}\nend\n";
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

void report(const char* name, long long tuples, Measurement m) {
  std::printf(
      "%-12s %9lld tuples %7.3f s %9.0f tuples/s %6.2f us/tuple wall %6.2f us/tuple child CPU\n",
      name, tuples, m.wall_seconds, double(tuples) / m.wall_seconds,
      m.wall_seconds * 1e6 / double(tuples), m.child_cpu_seconds * 1e6 / double(tuples));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "floor") == 0) return run_floor();
  if (argc == 2 && std::strcmp(argv[1], "ack") == 0) return sparse::run<NoopBolt>();
  if (argc == 2 && std::strcmp(argv[1], "emit") == 0) return sparse::run<EmitBolt>();
  if (argc == 2 && std::strcmp(argv[1], "spout") == 0) return sparse::run<CountingSpout>();
  if (argc == 2 && std::strcmp(argv[1], "spout-floor") == 0) return run_spout_floor();
  const long long tuples = argc > 1 ? std::atoll(argv[1]) / 1000 * 1000 : 1000000;
  const char* self = "/proc/self/exe";
  char path[4096];
  const ssize_t n = ::readlink(self, path, sizeof path - 1);
  if (n <= 0) return 1;
  path[n] = '\0';
  report("floor", tuples, bench_bolt(path, "floor", tuples, 1));
  report("ack", tuples, bench_bolt(path, "ack", tuples, 1));
  report("emit+ack", tuples, bench_bolt(path, "emit", tuples, 2));
  report("spout-floor", tuples / 10, bench_spout(path, "spout-floor", tuples / 10));
  report("spout", tuples / 10, bench_spout(path, "spout", tuples / 10));
  return 0;
}
