// sparse C++ component adapter — running a component: int main() { return sparse::run<MyBolt>(); }
//
// run() performs the handshake (writes the pid file into pidDir, answers {"pid": N}), calls
// initialize(conf, context), then serves the host until it closes stdin. The host's format, JSON
// or MessagePack, is detected from the handshake and used both ways (detail/wire.hpp).
// Exit codes: 0 when the host closed the input (the normal end), 1 when the component could not
// start (constructor, handshake or initialize failed) or the connection failed (read/write error,
// oversized message, input that cannot be framed). The reason goes to stderr.
#pragma once

#include <sparse/batching_bolt.hpp>
#include <sparse/bolt.hpp>
#include <sparse/component.hpp>
#include <sparse/detail/bolt_inbox.hpp>
#include <sparse/detail/decoder.hpp>
#include <sparse/detail/wire.hpp>
#include <sparse/protocol.hpp>
#include <sparse/spout.hpp>
#include <sparse/tuple.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <deque>
#include <exception>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace sparse {

struct RunOptions {
  /// Protocol input and output. The defaults are the process's stdin and stdout.
  int input_fd = STDIN_FILENO;
  int output_fd = STDOUT_FILENO;
  /// When the protocol runs on fds 0/1, move it to private close-on-exec descriptors and point
  /// fd 1 at stderr and fd 0 at /dev/null, so that user code printing to std::cout (or a child
  /// process it starts) cannot corrupt the protocol.
  bool protect_standard_streams = true;
  /// Bolts: tuples read ahead of processing are bounded by count and by bytes; beyond that the
  /// reader stops reading and the pipe pushes back on the host.
  std::size_t max_queued_tuples = 10000;
  std::size_t max_queued_bytes = std::size_t{64} << 20;
  /// Largest message accepted from the host.
  std::size_t max_message_bytes = std::size_t{256} << 20;
  /// Bolts: output produced while tuples are waiting is gathered into one write, but never held
  /// longer than this after a tuple's processing returned, nor beyond output_flush_bytes.
  std::chrono::microseconds max_output_delay{1000};
  std::size_t output_flush_bytes = 64 * 1024;
};

namespace detail {

inline void print_failure(const std::string& what) {
  std::cerr << "sparse: " << what << std::endl;
}

// Moves fd to a private close-on-exec descriptor >= 3 and points it at `replacement` (an open fd)
// or /dev/null (replacement < 0). Returns the new descriptor, or -1.
inline int move_aside(int fd, int replacement) {
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  if (moved < 0) return -1;
  int source = replacement;
  if (source < 0) source = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (source >= 0) {
    ::dup2(source, fd);
    if (replacement < 0) ::close(source);
  }
  return moved;
}

/// Idempotent: once moved, the options no longer name fds 0 and 1.
inline void protect_standard_streams(RunOptions& options) {
  if (!options.protect_standard_streams) return;
  if (options.output_fd == STDOUT_FILENO) {
    const int moved = move_aside(STDOUT_FILENO, STDERR_FILENO);
    if (moved >= 0) options.output_fd = moved;
    // Text printed before run() is still in stdio buffers: it now goes to stderr.
    std::cout.flush();
    std::fflush(stdout);
  }
  if (options.input_fd == STDIN_FILENO) {
    const int moved = move_aside(STDIN_FILENO, -1);
    if (moved >= 0) options.input_fd = moved;
  }
}

struct Handshake {
  json conf;
  json context;
  std::string pid_dir;
};

/// Reads the host's first message. Returns false if input ends before it.
inline bool read_handshake(FrameReader& reader, Handshake& handshake) {
  std::string_view text;
  if (reader.next(text) != FrameReader::Result::message) return false;
  json message = parse_message(reader.wire(), text);
  if (!message.is_object()) {
    throw ProtocolError(std::string("the handshake is not a ") + wire_name(reader.wire()) +
                        " map: " + excerpt(message));
  }
  auto field = [&](const char* name) -> json {
    auto it = message.find(name);
    return it == message.end() ? json() : std::move(*it);
  };
  json pid_dir = field("pidDir");
  if (!pid_dir.is_string()) {
    throw ProtocolError("the handshake has no \"pidDir\" string: " + excerpt(message, 200));
  }
  handshake.pid_dir = pid_dir.get<std::string>();
  handshake.conf = field("conf");
  handshake.context = field("context");
  if (handshake.conf.is_null()) handshake.conf = json::object();
  if (handshake.context.is_null()) handshake.context = json::object();
  return true;
}

/// Creates the empty file <pidDir>/<pid> (the supervisor's record of its children) and replies
/// {"pid": N}. A pid file that cannot be created is reported on stderr, not fatal.
inline void announce_pid(Output& output, const std::string& pid_dir) {
  const long pid = static_cast<long>(::getpid());
  std::string path = pid_dir;
  if (!path.empty() && path.back() != '/') path += '/';
  path += std::to_string(pid);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::close(fd);
  } else {
    print_failure("cannot create the pid file " + path + ": " + std::strerror(errno));
  }
  output.send_now([&](auto& e) { message::pid(e, pid); });
}

/// Handshake. Returns false (and has printed why) if the component must stop: 0 or 1 is then in
/// `exit_code`.
inline bool start(FrameReader& reader, Output& output, Handshake& handshake, int& exit_code) {
  try {
    if (!read_handshake(reader, handshake)) {
      exit_code = 0;  // closed before the handshake: nothing to do
      return false;
    }
    output.set_wire(reader.wire());  // answer in the host's format from now on
    announce_pid(output, handshake.pid_dir);
  } catch (const Disconnected&) {
    exit_code = 0;
    return false;
  } catch (const std::exception& e) {
    print_failure(std::string("handshake failed: ") + e.what());
    exit_code = 1;
    return false;
  }
  return true;
}

/// Attaches the component to its link and calls initialize(). Returns false (and has reported why)
/// if the component must stop.
inline bool initialize(Component& component, Link& link, Handshake& handshake, int& exit_code) {
  ComponentAccess::attach(component, &link, std::move(handshake.conf),
                          std::move(handshake.context));
  std::string failure;
  try {
    component.initialize(component.conf(), component.context());
    return true;
  } catch (const Disconnected&) {
    exit_code = 0;
    ComponentAccess::detach(component);
    return false;
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "an exception that is not a std::exception";
  }
  failure = "initialize() threw: " + failure;
  print_failure(failure);
  try {
    component.report_error(failure);
    link.output().flush();
  } catch (const std::exception&) {
    // The host is gone too; stderr has the reason.
  }
  ComponentAccess::detach(component);
  exit_code = 1;
  return false;
}

inline int run_bolt(BoltBase& bolt, const RunOptions& options) {
  Output output(options.output_fd, options.output_flush_bytes);
  FrameReader reader(options.input_fd, -1, options.max_message_bytes);
  Handshake handshake;
  int exit_code = 0;
  if (!start(reader, output, handshake, exit_code)) return exit_code;

  // From here on the reader thread answers heartbeats, during initialize() too.
  BoltInbox inbox(reader, output, InboxLimits{options.max_queued_tuples, options.max_queued_bytes});
  if (!initialize(bolt, inbox, handshake, exit_code)) return exit_code;
  try {
    output.set_deferred(true);
    Tuple tuple;
    while (inbox.pop(tuple)) {
      BoltAccess::dispatch(bolt, std::move(tuple));
      output.flush_if_older_than(options.max_output_delay);
    }
    output.set_deferred(false);
  } catch (const Disconnected&) {
    exit_code = 0;
  } catch (const std::exception& e) {
    print_failure(e.what());
    exit_code = 1;
  }
  ComponentAccess::detach(bolt);
  if (exit_code == 0) {
    const std::string failure = inbox.failure();
    if (!failure.empty()) {
      print_failure(failure);
      exit_code = 1;
    }
  }
  return exit_code;
}

/// The spout's side of the synchronous protocol: one thread reads commands and task-id replies.
class SpoutLink : public Link {
 public:
  SpoutLink(FrameReader& reader, Output& output) : Link(output), reader_(reader) {}

  /// The next message that is not a task-id reply: false at end of input. A message that does
  /// not parse is returned as an empty `command` with the reason in `bad` (the next one can still
  /// be read); input that cannot be framed throws ProtocolError (nothing after it can).
  bool next_command(json& command, std::string& bad) {
    bad.clear();
    if (!pending_.empty()) {
      command = std::move(pending_.front());
      pending_.pop_front();
      return true;
    }
    std::string_view text;
    if (reader_.next(text) != FrameReader::Result::message) return false;
    try {
      command = parse_message(reader_.wire(), text);
    } catch (const ProtocolError& e) {
      command = json();
      bad = e.what();
    }
    return true;
  }

  std::vector<int> await_task_ids() override {
    output().flush();
    for (;;) {
      std::string_view text;
      if (reader_.next(text) != FrameReader::Result::message) {
        throw Disconnected("sparse: the host closed the connection before sending task ids");
      }
      json message = parse_message(reader_.wire(), text);
      if (message.is_array()) return to_task_ids(message);
      pending_.push_back(std::move(message));  // not expected from Storm; keep it for later
    }
  }

 private:
  FrameReader& reader_;
  std::deque<json> pending_;
};

// Calls the spout callback for `command`. Returns false if the message does not call for a sync
// (a stray task-id reply).
inline bool dispatch_spout_command(Spout& spout, const json& message) {
  if (message.is_array()) {
    spout.report_error("sparse: the host sent task ids nobody waited for: " + excerpt(message));
    return false;
  }
  std::string failure;
  const char* callback = "";
  try {
    const auto command = message.is_object() ? message.find("command") : message.end();
    if (command == message.end() || !command->is_string()) {
      if (message.is_object() && message.value("stream", "") == "__heartbeat") return true;
      spout.report_error("sparse: the host sent a message without a command: " + excerpt(message));
      return true;
    }
    const std::string& name = command->get_ref<const std::string&>();
    static const json no_id;
    const auto id_field = message.find("id");
    const json& id = id_field == message.end() ? no_id : *id_field;
    if (name == "next") {
      callback = "next_tuple()";
      spout.next_tuple();
    } else if (name == "ack") {
      callback = "ack()";
      spout.ack(id);
    } else if (name == "fail") {
      callback = "fail()";
      spout.fail(id);
    } else if (name == "activate") {
      callback = "activate()";
      spout.activate();
    } else if (name == "deactivate") {
      callback = "deactivate()";
      spout.deactivate();
    } else {
      spout.report_error("sparse: the host sent an unknown spout command: " + excerpt(message));
    }
    return true;
  } catch (const Disconnected&) {
    throw;
  } catch (const std::exception& e) {
    failure = e.what();
  } catch (...) {
    failure = "an exception that is not a std::exception";
  }
  spout.report_error(std::string(callback) + " threw: " + failure);
  return true;
}

inline int run_spout(Spout& spout, const RunOptions& options) {
  Output output(options.output_fd, options.output_flush_bytes);
  FrameReader reader(options.input_fd, -1, options.max_message_bytes);
  Handshake handshake;
  int exit_code = 0;
  if (!start(reader, output, handshake, exit_code)) return exit_code;

  SpoutLink link(reader, output);
  if (!initialize(spout, link, handshake, exit_code)) return exit_code;
  try {
    output.set_deferred(true);  // a command's emits leave together with its sync
    json message;
    std::string bad;
    while (link.next_command(message, bad)) {
      if (!bad.empty()) {
        // A garbled command: report it and still answer, so the host is not left waiting.
        print_failure(bad);
        spout.report_error(bad);
        output.send([](auto& e) { message::sync(e); });
      } else if (dispatch_spout_command(spout, message)) {
        output.send([](auto& e) { message::sync(e); });
      }
      output.flush();
    }
  } catch (const Disconnected&) {
    exit_code = 0;
  } catch (const std::exception& e) {
    print_failure(e.what());
    exit_code = 1;
  }
  ComponentAccess::detach(spout);
  return exit_code;
}

}  // namespace detail

/// Runs a bolt (Bolt or BatchingBolt) that the caller constructed.
inline int run(BoltBase& bolt, RunOptions options = RunOptions()) {
  detail::protect_standard_streams(options);
  return detail::run_bolt(bolt, options);
}

/// Runs a spout that the caller constructed.
inline int run(Spout& spout, RunOptions options = RunOptions()) {
  detail::protect_standard_streams(options);
  return detail::run_spout(spout, options);
}

/// Constructs a C (default constructor) and runs it: int main() { return sparse::run<C>(); }
/// The standard streams are protected before C's constructor runs.
template <class C>
int run(RunOptions options = RunOptions()) {
  static_assert(std::is_base_of<BoltBase, C>::value || std::is_base_of<Spout, C>::value,
                "sparse::run<C>: C must derive from sparse::Bolt, sparse::BatchingBolt or "
                "sparse::Spout");
  detail::protect_standard_streams(options);
  std::unique_ptr<C> component;
  try {
    component = std::make_unique<C>();
  } catch (const std::exception& e) {
    detail::print_failure(std::string("the component's constructor threw: ") + e.what());
    return 1;
  }
  return run(*component, options);
}

}  // namespace sparse
