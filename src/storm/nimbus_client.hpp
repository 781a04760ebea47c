// A blocking client for Storm's Nimbus: framed transport, strict binary protocol, the calls of
// storm.thrift. Works with Storm 1.x and 2.x Nimbus servers without SASL.
//
// Every failure is a NimbusError whose kind says what happened (unreachable, refused with one of
// Storm's exceptions, SASL demanded, not the leader, ...) and whose message names the address and
// the call. A client is for one thread; each call blocks for at most the receive timeout. After a
// transport or protocol error the connection is closed and further calls fail.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.hpp"
#include "sparse/storm/gen/storm_types.h"

namespace sparse::storm {

inline constexpr int kDefaultNimbusPort = 6627;
// Storm's own client uploads in chunks of this size, well under nimbus.thrift.max_buffer_size.
inline constexpr std::size_t kUploadChunkBytes = 307200;

struct NimbusAddress {
  std::string host;
  int port = kDefaultNimbusPort;
  std::string ToString() const;  // host:port, [v6]:port
  bool operator==(const NimbusAddress&) const = default;
};

// "host", "host:port" or "[v6 address]:port". Throws std::invalid_argument saying what is wrong.
NimbusAddress ParseNimbusAddress(std::string_view text);

enum class NimbusErrorKind {
  kUnreachable,      // no connection: refused, no route, unknown host, connect timeout
  kTimeout,          // connected, but no reply within the receive timeout
  kSasl,             // the server wants SASL (Kerberos/Digest), which sparse does not speak
  kNotLeader,        // the node is not the leader, or no leader is known
  kAlreadyAlive,     // AlreadyAliveException
  kNotAlive,         // NotAliveException
  kInvalidTopology,  // InvalidTopologyException
  kAuthorization,    // AuthorizationException
  kServerError,      // Nimbus failed processing the call (TApplicationException)
  kProtocol,         // the peer's reply is not Nimbus's Thrift (or the connection broke)
};

std::string_view NimbusErrorKindName(NimbusErrorKind kind);
// The general kind of a Nimbus failure: kInvalidTopology for InvalidTopologyException (the user
// must fix the topology), kRemote for every other (an exhaustive switch).
base::Errc ErrcOf(NimbusErrorKind kind);

class NimbusError : public base::Error {
 public:
  NimbusError(NimbusErrorKind kind, NimbusAddress address, std::string call, std::string detail);
  NimbusErrorKind kind() const { return kind_; }
  const NimbusAddress& address() const { return address_; }
  const std::string& call() const { return call_; }
  // Nimbus's own message for Storm exceptions; the transport's description otherwise.
  const std::string& detail() const { return detail_; }

 private:
  NimbusErrorKind kind_;
  NimbusAddress address_;
  std::string call_;
  std::string detail_;
};

struct ClientOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds recv_timeout{120'000};
};

class NimbusClient {
 public:
  // Opens a connection. Throws NimbusError (kUnreachable) naming the address tried.
  static std::unique_ptr<NimbusClient> Connect(const NimbusAddress& address,
                                               const ClientOptions& options);
  ~NimbusClient();
  NimbusClient(const NimbusClient&) = delete;
  NimbusClient& operator=(const NimbusClient&) = delete;

  const NimbusAddress& address() const;
  // The IP address of the connected peer (for telling whether a leader is this same node).
  std::string peer_ip() const;

  gen::NimbusSummary GetLeader();
  gen::ClusterSummary GetClusterInfo();
  // The topology of that id (TopologySummary::id, not its name): its executors and workers.
  gen::TopologyInfo GetTopologyInfo(const std::string& id);
  // Storm UI's numbers of that topology for `window` (see storm.thrift), its system components
  // (__acker, ...) left out.
  gen::TopologyPageInfo GetTopologyPageInfo(const std::string& id, const std::string& window);
  // nullopt when the server does not know the call (older Storm).
  std::optional<bool> IsTopologyNameAllowed(const std::string& name);

  // beginFileUpload, uploadChunk per `chunk_bytes`, finishFileUpload; returns the location.
  // `progress(sent, total)` is called after each chunk.
  std::string UploadJar(std::string_view jar,
                        const std::function<void(std::size_t, std::size_t)>& progress,
                        std::size_t chunk_bytes = kUploadChunkBytes);
  void SubmitTopology(const std::string& name, const std::string& jar_location,
                      const std::string& json_conf, const gen::StormTopology& topology,
                      bool active);
  void KillTopology(const std::string& name, std::optional<int> wait_secs);
  void Activate(const std::string& name);
  void Deactivate(const std::string& name);
  void Rebalance(const std::string& name, const gen::RebalanceOptions& options);

 private:
  struct Impl;
  explicit NimbusClient(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Connects to the leader: tries the seeds in order, asks the first that answers for the leader
// (getLeader), and reconnects to it unless it is the node already reached. `note` receives
// one-line messages for the user (redirection). Throws NimbusError.
std::unique_ptr<NimbusClient> ConnectToLeader(const std::vector<NimbusAddress>& seeds,
                                              const ClientOptions& options,
                                              const std::function<void(const std::string&)>& note);

}  // namespace sparse::storm
