#include "fake_nimbus.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thrift/TApplicationException.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/server/TServer.h>
#include <thrift/server/TThreadedServer.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TServerSocket.h>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>

#include "sparse/storm/gen/Nimbus.h"

namespace sparse::storm::testing {

namespace th = apache::thrift;

struct FakeNimbus::State {
  mutable std::mutex mu;
  std::string leader_host = "127.0.0.1";
  int leader_port = 0;
  int nimbus_count = 1;
  Refusal refusal = Refusal::kNone;
  std::string refusal_msg;
  std::string cluster_info_refusal;
  int kill_linger = 2;
  std::vector<gen::TopologySummary> topologies;
  std::map<std::string, int> lingering;  // killed name -> replies left that still list it
  int next_upload = 1;
  int next_id = 1;

  std::vector<std::string> calls;
  std::vector<Upload> uploads;
  std::vector<Submission> submissions;
  std::vector<std::pair<std::string, gen::KillOptions>> kills;
  std::vector<std::string> activated;
  std::vector<std::string> deactivated;
  std::vector<std::pair<std::string, gen::RebalanceOptions>> rebalances;

  gen::TopologySummary* Find(const std::string& name) {
    for (auto& t : topologies) {
      if (t.name == name) return &t;
    }
    return nullptr;
  }
  void Add(const std::string& name, const std::string& status) {
    gen::TopologySummary t;
    t.__set_id(name + "-" + std::to_string(next_id++) + "-1700000000");
    t.__set_name(name);
    t.__set_status(status);
    t.__set_num_workers(2);
    t.__set_num_executors(5);
    t.__set_num_tasks(7);
    t.__set_uptime_secs(3725);
    t.__set_owner("storm");
    topologies.push_back(t);
  }
};

namespace {

template <typename E>
[[noreturn]] void Throw(const std::string& msg) {
  E e;
  e.__set_msg(msg);
  throw e;
}

class Handler : public gen::NimbusIf {
 public:
  explicit Handler(std::shared_ptr<FakeNimbus::State> s) : s_(std::move(s)) {}

  void submitTopologyWithOpts(const std::string& name, const std::string& location,
                              const std::string& json_conf, const gen::StormTopology& topology,
                              const gen::SubmitOptions& options) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("submitTopologyWithOpts");
    s_->submissions.push_back({name, location, json_conf, topology, options});
    switch (s_->refusal) {
      case Refusal::kNone:
        break;
      case Refusal::kAlreadyAlive:
        Throw<gen::AlreadyAliveException>(s_->refusal_msg);
      case Refusal::kInvalidTopology:
        Throw<gen::InvalidTopologyException>(s_->refusal_msg);
      case Refusal::kAuthorization:
        Throw<gen::AuthorizationException>(s_->refusal_msg);
      case Refusal::kNotLeader:
        // What a Java Nimbus's RuntimeException becomes on the wire.
        throw th::TApplicationException(th::TApplicationException::INTERNAL_ERROR, s_->refusal_msg);
    }
    const bool active = options.initial_status == gen::TopologyInitialStatus::ACTIVE;
    s_->Add(name, active ? "ACTIVE" : "INACTIVE");
  }

  void killTopologyWithOpts(const std::string& name, const gen::KillOptions& options) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("killTopologyWithOpts");
    s_->kills.emplace_back(name, options);
    auto* t = s_->Find(name);
    if (!t) Throw<gen::NotAliveException>(name + " is not alive");
    t->__set_status("KILLED");
    s_->lingering[name] = s_->kill_linger;
  }

  void activate(const std::string& name) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("activate");
    s_->activated.push_back(name);
    if (!s_->Find(name)) Throw<gen::NotAliveException>(name + " is not alive");
  }

  void deactivate(const std::string& name) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("deactivate");
    s_->deactivated.push_back(name);
    if (!s_->Find(name)) Throw<gen::NotAliveException>(name + " is not alive");
  }

  void rebalance(const std::string& name, const gen::RebalanceOptions& options) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("rebalance");
    s_->rebalances.emplace_back(name, options);
    if (!s_->Find(name)) Throw<gen::NotAliveException>(name + " is not alive");
  }

  void beginFileUpload(std::string& out) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("beginFileUpload");
    out = "/storm/nimbus/inbox/stormjar-" + std::to_string(s_->next_upload++) + ".jar";
    s_->uploads.push_back({out, {}, {}, false});
  }

  void uploadChunk(const std::string& location, const std::string& chunk) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("uploadChunk");
    for (auto& u : s_->uploads) {
      if (u.location == location && !u.finished) {
        u.bytes += chunk;
        u.chunk_sizes.push_back(chunk.size());
        return;
      }
    }
    throw th::TApplicationException("uploadChunk to an unknown location " + location);
  }

  void finishFileUpload(const std::string& location) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("finishFileUpload");
    for (auto& u : s_->uploads) {
      if (u.location == location) u.finished = true;
    }
  }

  void getClusterInfo(gen::ClusterSummary& out) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("getClusterInfo");
    if (!s_->cluster_info_refusal.empty()) {
      Throw<gen::AuthorizationException>(s_->cluster_info_refusal);
    }
    out.__set_topologies(s_->topologies);
    std::vector<gen::NimbusSummary> nimbuses;
    for (int i = 0; i < s_->nimbus_count; ++i) {
      gen::NimbusSummary n;
      n.__set_host("nimbus-" + std::to_string(i));
      n.__set_port(6627);
      n.__set_isLeader(i == 0);
      nimbuses.push_back(n);
    }
    out.__set_nimbuses(nimbuses);
    // Two supervisors of four slots; each topology holds one slot on each (getTopologyInfo).
    std::vector<gen::SupervisorSummary> supervisors;
    for (const char* host : {"worker-a", "worker-b"}) {
      gen::SupervisorSummary sup;
      sup.__set_host(host);
      sup.__set_supervisor_id(std::string("sup-") + host);
      sup.__set_uptime_secs(86400);
      sup.__set_num_workers(4);
      sup.__set_num_used_workers(static_cast<int>(s_->topologies.size()));
      supervisors.push_back(sup);
    }
    out.__set_supervisors(supervisors);
    // Killed topologies stay listed for a few replies, then are gone.
    for (auto it = s_->lingering.begin(); it != s_->lingering.end();) {
      if (--it->second <= 0) {
        std::erase_if(s_->topologies,
                      [&](const gen::TopologySummary& t) { return t.name == it->first; });
        it = s_->lingering.erase(it);
      } else {
        ++it;
      }
    }
  }

  void getLeader(gen::NimbusSummary& out) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("getLeader");
    out.__set_host(s_->leader_host);
    out.__set_port(s_->leader_port);
    out.__set_uptime_secs(100);
    out.__set_isLeader(true);
    out.__set_version("2.6.0");
  }

  // A topology's executors: words and two of count's on worker-a, the rest on worker-b, at
  // port 6699 + the topology's position; worker-a's up 1h2m5s, worker-b's 61 s.
  void getTopologyInfo(gen::TopologyInfo& out, const std::string& id) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("getTopologyInfo");
    for (std::size_t i = 0; i < s_->topologies.size(); ++i) {
      const auto& t = s_->topologies[i];
      if (t.id != id) continue;
      out.__set_id(t.id);
      out.__set_name(t.name);
      out.__set_status(t.status);
      out.__set_uptime_secs(3725);
      const int port = 6700 + static_cast<int>(i);
      std::vector<gen::ExecutorSummary> executors;
      auto add = [&](int task, const std::string& component, const std::string& host, int uptime) {
        gen::ExecutorSummary e;
        gen::ExecutorInfo info;
        info.__set_task_start(task);
        info.__set_task_end(task);
        e.__set_executor_info(info);
        e.__set_component_id(component);
        e.__set_host(host);
        e.__set_port(port);
        e.__set_uptime_secs(uptime);
        executors.push_back(e);
      };
      add(1, "words", "worker-a", 3725);
      add(2, "count", "worker-a", 3724);
      add(3, "count", "worker-b", 61);
      add(4, "__acker", "worker-b", 60);
      out.__set_executors(executors);
      return;
    }
    Throw<gen::NotAliveException>(id + " is not alive");
  }

  // The page of a known topology carries no component numbers: the real cluster's are tested
  // (real/cluster_test.cpp) and the conversion in page_stats_test.cpp.
  void getTopologyPageInfo(gen::TopologyPageInfo& out, const std::string& id,
                           const std::string& window, bool /*is_include_sys*/) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("getTopologyPageInfo " + window);
    for (const auto& t : s_->topologies) {
      if (t.id != id) continue;
      out.__set_id(t.id);
      out.__set_name(t.name);
      out.__set_status(t.status);
      return;
    }
    Throw<gen::NotAliveException>(id + " is not alive");
  }

  bool isTopologyNameAllowed(const std::string& name) override {
    std::lock_guard lock(s_->mu);
    s_->calls.push_back("isTopologyNameAllowed");
    return s_->Find(name) == nullptr;
  }

 private:
  std::shared_ptr<FakeNimbus::State> s_;
};

class ReadySignal : public th::server::TServerEventHandler {
 public:
  void preServe() override {
    std::lock_guard lock(mu_);
    ready_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return ready_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool ready_ = false;
};

}  // namespace

FakeNimbus::FakeNimbus() : state_(std::make_shared<State>()) {
  auto socket = std::make_shared<th::transport::TServerSocket>("127.0.0.1", 0);
  auto server = std::make_shared<th::server::TThreadedServer>(
      std::make_shared<gen::NimbusProcessor>(std::make_shared<Handler>(state_)), socket,
      std::make_shared<th::transport::TFramedTransportFactory>(),
      std::make_shared<th::protocol::TBinaryProtocolFactory>(0, 0, true, true));
  auto ready = std::make_shared<ReadySignal>();
  server->setServerEventHandler(ready);
  server_ = server;
  thread_ = std::thread([server] { server->serve(); });
  ready->Wait();
  port_ = socket->getPort();
  if (port_ <= 0) throw std::runtime_error("the fake Nimbus did not get a port");
  std::lock_guard lock(state_->mu);
  state_->leader_port = port_;
}

FakeNimbus::~FakeNimbus() {
  std::static_pointer_cast<th::server::TThreadedServer>(server_)->stop();
  thread_.join();
}

void FakeNimbus::SetLeader(const std::string& host, int port) {
  std::lock_guard lock(state_->mu);
  state_->leader_host = host;
  state_->leader_port = port;
}
void FakeNimbus::SetNimbusCount(int n) {
  std::lock_guard lock(state_->mu);
  state_->nimbus_count = n;
}
void FakeNimbus::RefuseSubmit(Refusal how, const std::string& msg) {
  std::lock_guard lock(state_->mu);
  state_->refusal = how;
  state_->refusal_msg = msg;
}
void FakeNimbus::RefuseClusterInfo(const std::string& msg) {
  std::lock_guard lock(state_->mu);
  state_->cluster_info_refusal = msg;
}
void FakeNimbus::AddTopology(const std::string& name, const std::string& status) {
  std::lock_guard lock(state_->mu);
  state_->Add(name, status);
}
void FakeNimbus::SetKillLinger(int replies) {
  std::lock_guard lock(state_->mu);
  state_->kill_linger = replies;
}

#define SPARSE_FAKE_GETTER(type, name) \
  type FakeNimbus::name() const {      \
    std::lock_guard lock(state_->mu);  \
    return state_->name;               \
  }
SPARSE_FAKE_GETTER(std::vector<std::string>, calls)
SPARSE_FAKE_GETTER(std::vector<Upload>, uploads)
SPARSE_FAKE_GETTER(std::vector<Submission>, submissions)
SPARSE_FAKE_GETTER(std::vector<std::string>, activated)
SPARSE_FAKE_GETTER(std::vector<std::string>, deactivated)
SPARSE_FAKE_GETTER(std::vector<gen::TopologySummary>, topologies)
#undef SPARSE_FAKE_GETTER

std::vector<std::pair<std::string, gen::KillOptions>> FakeNimbus::kills() const {
  std::lock_guard lock(state_->mu);
  return state_->kills;
}
std::vector<std::pair<std::string, gen::RebalanceOptions>> FakeNimbus::rebalances() const {
  std::lock_guard lock(state_->mu);
  return state_->rebalances;
}

// ---------------------------------------------------------------------------------------------

namespace {

int ListenLoopback(int& port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd, 8) != 0) {
    throw std::runtime_error("cannot listen on a loopback port");
  }
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

FakeSaslServer::FakeSaslServer(bool reply) : reply_(reply) {
  listen_fd_ = ListenLoopback(port_);
  thread_ = std::thread([this] {
    while (true) {
      const int conn = ::accept(listen_fd_, nullptr, nullptr);
      if (conn < 0) return;  // shut down
      char buf[4096];
      (void)::recv(conn, buf, sizeof buf, 0);  // the client's first frame
      if (reply_) {
        // Java's TSaslTransport: status ERROR (4), 4-byte length, message; then it closes.
        const std::string text = "Invalid status 0";
        std::string msg(1, '\x04');
        const std::uint32_t n = htonl(static_cast<std::uint32_t>(text.size()));
        msg.append(reinterpret_cast<const char*>(&n), 4);
        msg += text;
        (void)::send(conn, msg.data(), msg.size(), MSG_NOSIGNAL);
      }
      ::close(conn);
    }
  });
}

FakeSaslServer::~FakeSaslServer() {
  ::shutdown(listen_fd_, SHUT_RDWR);
  thread_.join();
  ::close(listen_fd_);
}

int UnusedPort() {
  int port = 0;
  const int fd = ListenLoopback(port);
  ::close(fd);
  return port;
}

}  // namespace sparse::storm::testing
