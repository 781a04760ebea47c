#include "storm/nimbus_client.hpp"

#include <netdb.h>
#include <sys/socket.h>

#include <thrift/TApplicationException.h>
#include <thrift/TOutput.h>
#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/protocol/TProtocolException.h>
#include <thrift/transport/TBufferTransports.h>
#include <thrift/transport/TSocket.h>
#include <thrift/transport/TTransportException.h>
#include <thrift/transport/TVirtualTransport.h>
#include <algorithm>
#include <cctype>
#include <mutex>

#include "sparse/storm/gen/Nimbus.h"

namespace sparse::storm {

namespace th = apache::thrift;

// ---------------------------------------------------------------------------------------------
// Addresses and errors.

std::string NimbusAddress::ToString() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

NimbusAddress ParseNimbusAddress(std::string_view text) {
  NimbusAddress a;
  std::string_view host = text;
  std::string_view port;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) {
      throw std::invalid_argument("`" + std::string(text) + "`: missing `]` after an IPv6 address");
    }
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (!rest.empty()) {
      if (rest.front() != ':') {
        throw std::invalid_argument("`" + std::string(text) + "`: expected `:PORT` after `]`");
      }
      port = rest.substr(1);
    }
  } else if (const auto colon = text.rfind(':'); colon != std::string_view::npos) {
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      throw std::invalid_argument("`" + std::string(text) +
                                  "`: write an IPv6 address as [ADDRESS]:PORT");
    }
  }
  if (host.empty()) {
    throw std::invalid_argument("`" + std::string(text) +
                                "`: no host (expected HOST or HOST:PORT)");
  }
  a.host = std::string(host);
  if (!text.empty() && text.back() == ':') {
    throw std::invalid_argument("`" + std::string(text) + "`: empty port");
  }
  if (!port.empty()) {
    int value = 0;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c)) || value > 65535) {
        value = -1;
        break;
      }
      value = value * 10 + (c - '0');
    }
    if (value < 1 || value > 65535) {
      throw std::invalid_argument("`" + std::string(text) + "`: port `" + std::string(port) +
                                  "` is not a number from 1 to 65535");
    }
    a.port = value;
  }
  return a;
}

std::string_view NimbusErrorKindName(NimbusErrorKind kind) {
  switch (kind) {
    case NimbusErrorKind::kUnreachable:
      return "unreachable";
    case NimbusErrorKind::kTimeout:
      return "timeout";
    case NimbusErrorKind::kSasl:
      return "sasl";
    case NimbusErrorKind::kNotLeader:
      return "not-leader";
    case NimbusErrorKind::kAlreadyAlive:
      return "already-alive";
    case NimbusErrorKind::kNotAlive:
      return "not-alive";
    case NimbusErrorKind::kInvalidTopology:
      return "invalid-topology";
    case NimbusErrorKind::kAuthorization:
      return "authorization";
    case NimbusErrorKind::kServerError:
      return "server-error";
    case NimbusErrorKind::kProtocol:
      return "protocol";
  }
  return "?";
}

base::Errc ErrcOf(NimbusErrorKind kind) {
  switch (kind) {
    case NimbusErrorKind::kInvalidTopology:
      return base::Errc::kInvalidTopology;
    case NimbusErrorKind::kUnreachable:
    case NimbusErrorKind::kTimeout:
    case NimbusErrorKind::kSasl:
    case NimbusErrorKind::kNotLeader:
    case NimbusErrorKind::kAlreadyAlive:
    case NimbusErrorKind::kNotAlive:
    case NimbusErrorKind::kAuthorization:
    case NimbusErrorKind::kServerError:
    case NimbusErrorKind::kProtocol:
      return base::Errc::kRemote;
  }
  return base::Errc::kRemote;
}

namespace {

std::string Describe(NimbusErrorKind kind, const NimbusAddress& a, const std::string& call,
                     const std::string& detail) {
  const std::string at = "Nimbus at " + a.ToString();
  switch (kind) {
    case NimbusErrorKind::kUnreachable:
      return "cannot reach Nimbus at " + a.ToString() + ": " + detail +
             " (is Nimbus running there, and is that its nimbus.thrift.port?)";
    case NimbusErrorKind::kTimeout:
      return at + " did not answer " + call + " in time (" + detail + ")";
    case NimbusErrorKind::kSasl:
      return at + " " + detail +
             "; sparse does not support SASL-secured (Kerberos or Digest) clusters yet: use " +
             "Storm's own client for those";
    case NimbusErrorKind::kNotLeader:
      return at + " is not the leader: " + detail;
    case NimbusErrorKind::kAlreadyAlive:
      return at + " refused " + call + ": already alive: " + detail;
    case NimbusErrorKind::kNotAlive:
      return at + " refused " + call + ": not alive: " + detail;
    case NimbusErrorKind::kInvalidTopology:
      return at + " refused the topology as invalid: " + detail;
    case NimbusErrorKind::kAuthorization:
      return at + " refused " + call + ": not authorized: " + detail;
    case NimbusErrorKind::kServerError:
      return at + " failed processing " + call + ": " + detail + " (see the Nimbus log)";
    case NimbusErrorKind::kProtocol:
      return at + ": " + call + " failed: " + detail;
  }
  return at + ": " + detail;
}

}  // namespace

NimbusError::NimbusError(NimbusErrorKind kind, NimbusAddress address, std::string call,
                         std::string detail)
    : base::Error(ErrcOf(kind), Describe(kind, address, call, detail)),
      kind_(kind),
      address_(std::move(address)),
      call_(std::move(call)),
      detail_(std::move(detail)) {}

// ---------------------------------------------------------------------------------------------
// The connection.

namespace {

// Sits between the socket and the framed transport and keeps the first bytes the server sent,
// so a failed first call can be told apart: a SASL server answers a plain Thrift frame with a
// SASL message (status byte BAD=3 or ERROR=4, 4-byte length, text) and closes the connection.
class RecordingTransport : public th::transport::TVirtualTransport<RecordingTransport> {
 public:
  explicit RecordingTransport(std::shared_ptr<th::transport::TSocket> socket)
      : socket_(std::move(socket)) {}

  bool isOpen() const override { return socket_->isOpen(); }
  bool peek() override { return socket_->peek(); }
  void open() override { socket_->open(); }
  void close() override { socket_->close(); }
  void flush() override { socket_->flush(); }
  const std::string getOrigin() const override { return socket_->getOrigin(); }

  uint32_t read(uint8_t* buf, uint32_t len) {
    const uint32_t got = socket_->read(buf, len);
    Record(buf, got);
    return got;
  }
  void write(const uint8_t* buf, uint32_t len) { socket_->write(buf, len); }

  const std::string& first_bytes() const { return first_; }
  std::uint64_t bytes_read() const { return total_; }

  // Reads whatever else the server sent before closing (bounded), to show its message.
  void DrainForDiagnosis() {
    try {
      socket_->setRecvTimeout(1000);
      uint8_t buf[256];
      while (first_.size() < kKeep) {
        const uint32_t got = socket_->read(buf, sizeof buf);
        if (got == 0) break;
        Record(buf, got);
      }
    } catch (const th::TException&) {
    }
  }

 private:
  static constexpr std::size_t kKeep = 512;
  void Record(const uint8_t* buf, uint32_t got) {
    total_ += got;
    const std::size_t keep = std::min<std::size_t>(got, kKeep - std::min(kKeep, first_.size()));
    first_.append(reinterpret_cast<const char*>(buf), keep);
  }

  std::shared_ptr<th::transport::TSocket> socket_;
  std::string first_;
  std::uint64_t total_ = 0;
};

// A SASL negotiation message: status (1..5), 4-byte big-endian length, payload.
std::optional<std::string> SaslMessage(const std::string& bytes) {
  if (bytes.size() < 5) {
    if (!bytes.empty() && (bytes[0] == 3 || bytes[0] == 4)) return std::string();
    return std::nullopt;
  }
  const auto status = static_cast<unsigned char>(bytes[0]);
  if (status < 1 || status > 5) return std::nullopt;
  std::uint32_t len = 0;
  for (std::size_t i = 1; i <= 4; ++i) len = (len << 8) | static_cast<unsigned char>(bytes[i]);
  if (len > 65536) return std::nullopt;
  std::string text;
  for (std::size_t i = 5; i < bytes.size() && i < 5 + len; ++i) {
    const char c = bytes[i];
    text.push_back(std::isprint(static_cast<unsigned char>(c)) ? c : '?');
  }
  return text;
}

}  // namespace

struct NimbusClient::Impl {
  NimbusAddress address;
  std::shared_ptr<th::transport::TSocket> socket;
  std::shared_ptr<RecordingTransport> recorder;
  std::shared_ptr<th::transport::TTransport> framed;
  std::unique_ptr<gen::NimbusClient> client;
  ClientOptions options;
  int calls = 0;
  bool broken = false;

  NimbusError Error(NimbusErrorKind kind, const std::string& call, std::string detail) const {
    return NimbusError(kind, address, call, std::move(detail));
  }

  // What a transport or protocol failure of `call` most likely means.
  NimbusError Diagnose(const std::string& call, const std::string& what, bool timed_out) {
    const bool first = calls == 1;
    if (first && recorder->bytes_read() > 0 && SaslMessage(recorder->first_bytes())) {
      recorder->DrainForDiagnosis();
      const std::string text = SaslMessage(recorder->first_bytes()).value_or("");
      return Error(NimbusErrorKind::kSasl, call,
                   "requires SASL authentication: it answered " + call + " with a SASL message" +
                       (text.empty() ? "" : ": \"" + text + "\""));
    }
    if (timed_out) {
      return Error(NimbusErrorKind::kTimeout, call,
                   "no reply after " + std::to_string(options.recv_timeout.count() / 1000) + " s");
    }
    if (first && recorder->bytes_read() == 0) {
      return Error(NimbusErrorKind::kSasl, call,
                   "closed the connection without answering " + call +
                       ": the cluster probably requires SASL authentication (or this is not "
                       "Nimbus's Thrift port)");
    }
    if (first) {
      return Error(NimbusErrorKind::kProtocol, call,
                   "the reply is not Nimbus Thrift (framed, binary protocol): " + what +
                       "; is this Nimbus's Thrift port?");
    }
    return Error(NimbusErrorKind::kProtocol, call, "the connection failed: " + what);
  }

  template <typename F>
  auto Call(const std::string& call, F&& f) -> decltype(f()) {
    if (broken) {
      throw Error(NimbusErrorKind::kProtocol, call, "the connection was lost by an earlier error");
    }
    ++calls;
    try {
      return f();
    } catch (const gen::AlreadyAliveException& e) {
      throw Error(NimbusErrorKind::kAlreadyAlive, call, e.msg);
    } catch (const gen::NotAliveException& e) {
      throw Error(NimbusErrorKind::kNotAlive, call, e.msg);
    } catch (const gen::InvalidTopologyException& e) {
      throw Error(NimbusErrorKind::kInvalidTopology, call, e.msg);
    } catch (const gen::AuthorizationException& e) {
      throw Error(NimbusErrorKind::kAuthorization, call, e.msg);
    } catch (const th::TApplicationException& e) {
      std::string msg = e.what();
      std::string lower = msg;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (lower.find("not a leader") != std::string::npos ||
          lower.find("not the leader") != std::string::npos) {
        throw Error(NimbusErrorKind::kNotLeader, call, msg);
      }
      if (e.getType() == th::TApplicationException::UNKNOWN_METHOD) {
        throw Error(NimbusErrorKind::kServerError, call, "unknown call (older Storm?): " + msg);
      }
      throw Error(NimbusErrorKind::kServerError, call, msg);
    } catch (const th::transport::TTransportException& e) {
      broken = true;
      NimbusError err =
          Diagnose(call, e.what(), e.getType() == th::transport::TTransportException::TIMED_OUT);
      Close();
      throw err;
    } catch (const th::TException& e) {
      broken = true;
      NimbusError err = Diagnose(call, e.what(), false);
      Close();
      throw err;
    }
  }

  void Close() {
    try {
      if (framed) framed->close();
    } catch (const th::TException&) {
    }
  }
};

NimbusClient::NimbusClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

NimbusClient::~NimbusClient() {
  if (impl_) impl_->Close();
}

std::unique_ptr<NimbusClient> NimbusClient::Connect(const NimbusAddress& address,
                                                    const ClientOptions& options) {
  // Thrift prints its own diagnostics to stderr; every failure here becomes a NimbusError with
  // a better message, so those lines would only be noise.
  static std::once_flag quiet;
  std::call_once(quiet, [] { apache::thrift::GlobalOutput.setOutputFunction([](const char*) {}); });
  auto impl = std::make_unique<Impl>();
  impl->address = address;
  impl->options = options;
  impl->socket = std::make_shared<th::transport::TSocket>(address.host, address.port);
  impl->socket->setConnTimeout(static_cast<int>(options.connect_timeout.count()));
  impl->socket->setRecvTimeout(static_cast<int>(options.recv_timeout.count()));
  impl->socket->setSendTimeout(static_cast<int>(options.recv_timeout.count()));
  impl->recorder = std::make_shared<RecordingTransport>(impl->socket);
  impl->framed = std::make_shared<th::transport::TFramedTransport>(impl->recorder);
  // Strict: write the versioned message header, and require it in replies.
  auto protocol = std::make_shared<th::protocol::TBinaryProtocol>(impl->framed, 0, 0, true, true);
  impl->client = std::make_unique<gen::NimbusClient>(protocol);
  try {
    impl->framed->open();
  } catch (const th::TException& e) {
    throw NimbusError(NimbusErrorKind::kUnreachable, address, "connect", e.what());
  }
  return std::unique_ptr<NimbusClient>(new NimbusClient(std::move(impl)));
}

const NimbusAddress& NimbusClient::address() const {
  return impl_->address;
}

std::string NimbusClient::peer_ip() const {
  try {
    return impl_->socket->getPeerAddress();
  } catch (const th::TException&) {
    return {};
  }
}

gen::NimbusSummary NimbusClient::GetLeader() {
  return impl_->Call("getLeader", [&] {
    gen::NimbusSummary out;
    impl_->client->getLeader(out);
    return out;
  });
}

gen::ClusterSummary NimbusClient::GetClusterInfo() {
  return impl_->Call("getClusterInfo", [&] {
    gen::ClusterSummary out;
    impl_->client->getClusterInfo(out);
    return out;
  });
}

gen::TopologyInfo NimbusClient::GetTopologyInfo(const std::string& id) {
  return impl_->Call("getTopologyInfo", [&] {
    gen::TopologyInfo out;
    impl_->client->getTopologyInfo(out, id);
    return out;
  });
}

gen::TopologyPageInfo NimbusClient::GetTopologyPageInfo(const std::string& id,
                                                        const std::string& window) {
  return impl_->Call("getTopologyPageInfo", [&] {
    gen::TopologyPageInfo out;
    impl_->client->getTopologyPageInfo(out, id, window, false);
    return out;
  });
}

std::optional<bool> NimbusClient::IsTopologyNameAllowed(const std::string& name) {
  try {
    return impl_->Call("isTopologyNameAllowed",
                       [&] { return impl_->client->isTopologyNameAllowed(name); });
  } catch (const NimbusError& e) {
    if (e.kind() == NimbusErrorKind::kServerError && e.detail().rfind("unknown call", 0) == 0) {
      return std::nullopt;
    }
    throw;
  }
}

std::string NimbusClient::UploadJar(std::string_view jar,
                                    const std::function<void(std::size_t, std::size_t)>& progress,
                                    std::size_t chunk_bytes) {
  chunk_bytes = std::max<std::size_t>(chunk_bytes, 1);
  const std::string location = impl_->Call("beginFileUpload", [&] {
    std::string out;
    impl_->client->beginFileUpload(out);
    return out;
  });
  std::size_t sent = 0;
  while (sent < jar.size()) {
    const std::size_t n = std::min(chunk_bytes, jar.size() - sent);
    const std::string chunk(jar.substr(sent, n));
    impl_->Call("uploadChunk", [&] { impl_->client->uploadChunk(location, chunk); });
    sent += n;
    if (progress) progress(sent, jar.size());
  }
  impl_->Call("finishFileUpload", [&] { impl_->client->finishFileUpload(location); });
  return location;
}

void NimbusClient::SubmitTopology(const std::string& name, const std::string& jar_location,
                                  const std::string& json_conf, const gen::StormTopology& topology,
                                  bool active) {
  gen::SubmitOptions options;
  options.__set_initial_status(active ? gen::TopologyInitialStatus::ACTIVE
                                      : gen::TopologyInitialStatus::INACTIVE);
  impl_->Call("submitTopologyWithOpts", [&] {
    impl_->client->submitTopologyWithOpts(name, jar_location, json_conf, topology, options);
  });
}

void NimbusClient::KillTopology(const std::string& name, std::optional<int> wait_secs) {
  gen::KillOptions options;
  if (wait_secs) options.__set_wait_secs(*wait_secs);
  impl_->Call("killTopologyWithOpts", [&] { impl_->client->killTopologyWithOpts(name, options); });
}

void NimbusClient::Activate(const std::string& name) {
  impl_->Call("activate", [&] { impl_->client->activate(name); });
}

void NimbusClient::Deactivate(const std::string& name) {
  impl_->Call("deactivate", [&] { impl_->client->deactivate(name); });
}

void NimbusClient::Rebalance(const std::string& name, const gen::RebalanceOptions& options) {
  impl_->Call("rebalance", [&] { impl_->client->rebalance(name, options); });
}

// ---------------------------------------------------------------------------------------------
// Finding the leader.

namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The IP addresses `host` resolves to (empty when it does not resolve).
std::vector<std::string> ResolveHost(const std::string& host) {
  std::vector<std::string> out;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0) return out;
  for (addrinfo* p = res; p; p = p->ai_next) {
    char buf[NI_MAXHOST];
    if (::getnameinfo(p->ai_addr, p->ai_addrlen, buf, sizeof buf, nullptr, 0, NI_NUMERICHOST) ==
        0) {
      out.emplace_back(buf);
    }
  }
  ::freeaddrinfo(res);
  return out;
}

bool IsSameNode(const NimbusClient& client, const NimbusAddress& leader) {
  const NimbusAddress& here = client.address();
  if (here.port != leader.port) return false;
  if (Lower(here.host) == Lower(leader.host)) return true;
  const std::string peer = client.peer_ip();
  if (peer.empty()) return false;
  const auto ips = ResolveHost(leader.host);
  return std::find(ips.begin(), ips.end(), peer) != ips.end();
}

}  // namespace

std::unique_ptr<NimbusClient> ConnectToLeader(const std::vector<NimbusAddress>& seeds,
                                              const ClientOptions& options,
                                              const std::function<void(const std::string&)>& note) {
  if (seeds.empty()) throw std::invalid_argument("no Nimbus address to connect to");
  std::string failures;
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    const NimbusAddress& seed = seeds[i];
    std::unique_ptr<NimbusClient> client;
    try {
      client = NimbusClient::Connect(seed, options);
    } catch (const NimbusError& e) {
      if (seeds.size() == 1) throw;
      failures += (failures.empty() ? "" : "; ") + seed.ToString() + ": " + e.detail();
      continue;
    }
    gen::NimbusSummary leader;
    try {
      leader = client->GetLeader();
    } catch (const NimbusError& e) {
      if (e.kind() != NimbusErrorKind::kServerError) throw;
      if (e.detail().rfind("unknown call", 0) == 0) {
        // Storm before 1.0 has no getLeader, and a single Nimbus: the seed is the one.
        if (note) note("Nimbus at " + seed.ToString() + " predates getLeader; using it");
        return client;
      }
      throw NimbusError(NimbusErrorKind::kNotLeader, seed, "getLeader",
                        "it cannot name a leader (" + e.detail() +
                            "); is a Nimbus leader elected? (see the Nimbus log)");
    }
    if (!leader.__isset.host || leader.host.empty()) {
      throw NimbusError(NimbusErrorKind::kNotLeader, seed, "getLeader",
                        "it reports no leader; is a Nimbus leader elected?");
    }
    const NimbusAddress target{leader.host, leader.__isset.port && leader.port > 0
                                                ? static_cast<int>(leader.port)
                                                : seed.port};
    if (IsSameNode(*client, target)) return client;
    if (note) {
      note("Nimbus at " + seed.ToString() + " is not the leader; using the leader at " +
           target.ToString());
    }
    try {
      return NimbusClient::Connect(target, options);
    } catch (const NimbusError& e) {
      if (e.kind() != NimbusErrorKind::kUnreachable) throw;
      // A leader may advertise a name that does not resolve from here (containers). With a
      // single Nimbus in the cluster, the node reached is that leader.
      const gen::ClusterSummary info = client->GetClusterInfo();
      if (info.__isset.nimbuses && info.nimbuses.size() == 1) {
        if (note) {
          note("the leader's address " + target.ToString() +
               " cannot be reached from here; it is the only Nimbus, so using " + seed.ToString());
        }
        return client;
      }
      throw NimbusError(
          NimbusErrorKind::kNotLeader, seed, "getLeader",
          "the leader it names, " + target.ToString() + ", cannot be reached: " + e.detail());
    }
  }
  throw NimbusError(NimbusErrorKind::kUnreachable, seeds.front(), "connect",
                    "no Nimbus seed answered (" + failures + ")");
}

}  // namespace sparse::storm
