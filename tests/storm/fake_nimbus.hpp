// Test doubles for Storm's Nimbus, generated from the same IDL as the client (storm.thrift):
// FakeNimbus is a real Thrift server (framed transport, strict binary protocol) on a loopback
// port chosen by the OS, running on its own threads inside the test process. It keeps a small
// cluster state (topologies, uploads) and records every call with its arguments.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "sparse/storm/gen/storm_types.h"
#include "storm/nimbus_client.hpp"

namespace sparse::storm::testing {

struct Upload {
  std::string location;
  std::string bytes;
  std::vector<std::size_t> chunk_sizes;
  bool finished = false;
};

struct Submission {
  std::string name;
  std::string location;
  std::string json_conf;
  gen::StormTopology topology;
  gen::SubmitOptions options;
};

// How the fake refuses submitTopologyWithOpts.
enum class Refusal { kNone, kAlreadyAlive, kInvalidTopology, kAuthorization, kNotLeader };

class FakeNimbus {
 public:
  FakeNimbus();   // listening when the constructor returns
  ~FakeNimbus();  // stops the server and joins its threads
  FakeNimbus(const FakeNimbus&) = delete;
  FakeNimbus& operator=(const FakeNimbus&) = delete;

  int port() const { return port_; }
  NimbusAddress address() const { return {"127.0.0.1", port_}; }

  // What getLeader answers (default: this server itself, as 127.0.0.1).
  void SetLeader(const std::string& host, int port);
  // How many Nimbus nodes getClusterInfo lists (default 1).
  void SetNimbusCount(int n);
  void RefuseSubmit(Refusal how, const std::string& msg);
  // getClusterInfo throws AuthorizationException(msg).
  void RefuseClusterInfo(const std::string& msg);
  void AddTopology(const std::string& name, const std::string& status = "ACTIVE");
  // After killTopologyWithOpts, this many getClusterInfo replies still list the topology
  // (status KILLED) before it is gone (default 2).
  void SetKillLinger(int replies);

  std::vector<std::string> calls() const;  // method names, in order
  std::vector<Upload> uploads() const;
  std::vector<Submission> submissions() const;
  std::vector<std::pair<std::string, gen::KillOptions>> kills() const;
  std::vector<std::string> activated() const;
  std::vector<std::string> deactivated() const;
  std::vector<std::pair<std::string, gen::RebalanceOptions>> rebalances() const;
  // gen::ClusterSummary as the last getClusterInfo answered it.
  std::vector<gen::TopologySummary> topologies() const;

  struct State;

 private:
  std::shared_ptr<State> state_;
  std::shared_ptr<void> server_;  // apache::thrift::server::TThreadedServer
  std::thread thread_;
  int port_ = 0;
};

// Answers like a SASL-secured Nimbus: reads what the client sends, then (with `reply`) writes a
// SASL ERROR message, and closes the connection. Serves until destroyed.
class FakeSaslServer {
 public:
  explicit FakeSaslServer(bool reply);
  ~FakeSaslServer();
  int port() const { return port_; }

 private:
  int listen_fd_ = -1;
  int port_ = 0;
  bool reply_;
  std::thread thread_;
};

// A loopback port on which nothing listens (bound, then closed).
int UnusedPort();

}  // namespace sparse::storm::testing
