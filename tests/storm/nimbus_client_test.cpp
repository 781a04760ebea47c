// The Nimbus client against the fake Nimbus, and against hand-written replies from servers that
// know more fields than sparse's IDL (Storm 1.x/2.x), that want SASL, or that never answer.
#include "storm/nimbus_client.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thrift/protocol/TBinaryProtocol.h>
#include <thrift/transport/TBufferTransports.h>
#include <atomic>
#include <cstring>
#include <functional>
#include <thread>

#include "fake_nimbus.hpp"

namespace sparse::storm {
namespace {

namespace th = apache::thrift;
using testing::FakeNimbus;

ClientOptions Quick() {
  ClientOptions o;
  o.connect_timeout = std::chrono::milliseconds(5000);
  o.recv_timeout = std::chrono::milliseconds(30000);
  return o;
}

NimbusErrorKind KindOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const NimbusError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "expected a NimbusError";
  return NimbusErrorKind::kProtocol;
}

TEST(NimbusClient, UploadsInChunksUnderTheFrameLimit) {
  FakeNimbus nimbus;
  auto client = NimbusClient::Connect(nimbus.address(), Quick());
  std::string jar(2 * kUploadChunkBytes + 1234, '\0');
  for (std::size_t i = 0; i < jar.size(); ++i) jar[i] = static_cast<char>(i * 131 % 251);
  std::vector<std::pair<std::size_t, std::size_t>> progress;
  const std::string location = client->UploadJar(
      jar, [&](std::size_t sent, std::size_t total) { progress.emplace_back(sent, total); });
  const auto uploads = nimbus.uploads();
  ASSERT_EQ(uploads.size(), 1u);
  EXPECT_EQ(uploads[0].location, location);
  EXPECT_TRUE(uploads[0].finished);
  EXPECT_EQ(uploads[0].bytes, jar);
  EXPECT_EQ(uploads[0].chunk_sizes,
            (std::vector<std::size_t>{kUploadChunkBytes, kUploadChunkBytes, 1234}));
  EXPECT_EQ(progress.back(), std::make_pair(jar.size(), jar.size()));
  EXPECT_EQ(nimbus.calls(),
            (std::vector<std::string>{"beginFileUpload", "uploadChunk", "uploadChunk",
                                      "uploadChunk", "finishFileUpload"}));
}

TEST(NimbusClient, StormExceptionsBecomeKinds) {
  FakeNimbus nimbus;
  auto client = NimbusClient::Connect(nimbus.address(), Quick());
  EXPECT_EQ(KindOf([&] { client->KillTopology("ghost", 1); }), NimbusErrorKind::kNotAlive);
  EXPECT_EQ(KindOf([&] { client->Activate("ghost"); }), NimbusErrorKind::kNotAlive);
  gen::StormTopology t;
  for (auto [how, kind] :
       {std::pair{testing::Refusal::kAlreadyAlive, NimbusErrorKind::kAlreadyAlive},
        std::pair{testing::Refusal::kInvalidTopology, NimbusErrorKind::kInvalidTopology},
        std::pair{testing::Refusal::kAuthorization, NimbusErrorKind::kAuthorization},
        std::pair{testing::Refusal::kNotLeader, NimbusErrorKind::kNotLeader}}) {
    nimbus.RefuseSubmit(how, "not a leader, or some other reason");
    try {
      client->SubmitTopology("x", "loc", "{}", t, true);
      ADD_FAILURE() << "expected a refusal";
    } catch (const NimbusError& e) {
      EXPECT_EQ(e.kind(), kind);
      EXPECT_NE(std::string(e.what()).find("not a leader, or some other reason"), std::string::npos)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(nimbus.address().ToString()), std::string::npos);
    }
  }
  // The connection is still usable after Storm's own exceptions.
  EXPECT_TRUE(client->GetClusterInfo().topologies.empty());
}

TEST(NimbusClient, UnreachableNamesTheAddress) {
  const NimbusAddress nowhere{"127.0.0.1", testing::UnusedPort()};
  try {
    NimbusClient::Connect(nowhere, Quick());
    FAIL() << "expected a NimbusError";
  } catch (const NimbusError& e) {
    EXPECT_EQ(e.kind(), NimbusErrorKind::kUnreachable);
    EXPECT_NE(std::string(e.what()).find(nowhere.ToString()), std::string::npos) << e.what();
  }
}

TEST(NimbusClient, SaslReplyIsRecognised) {
  testing::FakeSaslServer sasl(/*reply=*/true);
  auto client = NimbusClient::Connect({"127.0.0.1", sasl.port()}, Quick());
  try {
    client->GetLeader();
    FAIL() << "expected a NimbusError";
  } catch (const NimbusError& e) {
    EXPECT_EQ(e.kind(), NimbusErrorKind::kSasl);
    EXPECT_NE(std::string(e.what()).find("SASL"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("Invalid status 0"), std::string::npos) << e.what();
  }
}

TEST(NimbusClient, ConnectionClosedOnFirstCallSuggestsSasl) {
  testing::FakeSaslServer closes(/*reply=*/false);
  auto client = NimbusClient::Connect({"127.0.0.1", closes.port()}, Quick());
  try {
    client->GetLeader();
    FAIL() << "expected a NimbusError";
  } catch (const NimbusError& e) {
    EXPECT_EQ(e.kind(), NimbusErrorKind::kSasl);
    EXPECT_NE(std::string(e.what()).find("closed the connection"), std::string::npos) << e.what();
  }
}

// A server for one connection at a time whose replies are written by hand: `reply(method,
// seqid)` returns the frame payload, or "" to never answer.
class RawServer {
 public:
  explicit RawServer(std::function<std::string(const std::string&, std::int32_t)> reply)
      : reply_(std::move(reply)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    ::listen(fd_, 4);
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~RawServer() {
    ::shutdown(fd_, SHUT_RDWR);
    if (conn_ >= 0) ::shutdown(conn_, SHUT_RDWR);
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }

 private:
  static bool ReadAll(int fd, char* buf, std::size_t n) {
    while (n > 0) {
      const ssize_t got = ::recv(fd, buf, n, 0);
      if (got <= 0) return false;
      buf += got;
      n -= static_cast<std::size_t>(got);
    }
    return true;
  }
  static std::uint32_t Be32(const char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return ntohl(v);
  }
  void Serve() {
    while ((conn_ = ::accept(fd_, nullptr, nullptr)) >= 0) {
      char header[4];
      while (ReadAll(conn_, header, 4)) {
        std::string frame(Be32(header), '\0');
        if (!ReadAll(conn_, frame.data(), frame.size())) break;
        // Strict header: version|type, name length, name, seqid.
        const std::uint32_t name_len = Be32(frame.data() + 4);
        const std::string name = frame.substr(8, name_len);
        const auto seqid = static_cast<std::int32_t>(Be32(frame.data() + 8 + name_len));
        const std::string payload = reply_(name, seqid);
        if (payload.empty()) continue;  // never answer; the client times out
        const std::uint32_t n = htonl(static_cast<std::uint32_t>(payload.size()));
        std::string out(reinterpret_cast<const char*>(&n), 4);
        out += payload;
        ::send(conn_, out.data(), out.size(), MSG_NOSIGNAL);
      }
      ::close(conn_);
      conn_ = -1;
    }
  }

  std::function<std::string(const std::string&, std::int32_t)> reply_;
  int fd_ = -1;
  std::atomic<int> conn_{-1};
  int port_ = 0;
  std::thread thread_;
};

// A getClusterInfo reply as a Storm 2.x Nimbus writes it: supervisors (field 1), the 1.x
// nimbus_uptime_secs (2), TopologySummary fields up to 5xx, extra NimbusSummary fields, and a
// field no version has, holding nested containers.
std::string ClusterInfoReplyWithUnknownFields(std::int32_t seqid) {
  using th::protocol::TType;
  auto buffer = std::make_shared<th::transport::TMemoryBuffer>();
  th::protocol::TBinaryProtocol p(buffer);
  p.writeMessageBegin("getClusterInfo", th::protocol::T_REPLY, seqid);
  p.writeStructBegin("result");
  p.writeFieldBegin("success", th::protocol::T_STRUCT, 0);
  p.writeStructBegin("ClusterSummary");
  p.writeFieldBegin("supervisors", th::protocol::T_LIST, 1);
  p.writeListBegin(th::protocol::T_STRUCT, 1);
  p.writeStructBegin("SupervisorSummary");
  p.writeFieldBegin("host", th::protocol::T_STRING, 1);
  p.writeString(std::string("worker-1"));
  p.writeFieldEnd();
  p.writeFieldBegin("total_resources", th::protocol::T_MAP, 7);
  p.writeMapBegin(th::protocol::T_STRING, th::protocol::T_DOUBLE, 1);
  p.writeString(std::string("cpu"));
  p.writeDouble(400.0);
  p.writeMapEnd();
  p.writeFieldEnd();
  p.writeFieldStop();
  p.writeStructEnd();
  p.writeListEnd();
  p.writeFieldEnd();
  p.writeFieldBegin("nimbus_uptime_secs", th::protocol::T_I32, 2);
  p.writeI32(99);
  p.writeFieldEnd();
  p.writeFieldBegin("topologies", th::protocol::T_LIST, 3);
  p.writeListBegin(th::protocol::T_STRUCT, 1);
  p.writeStructBegin("TopologySummary");
  auto str = [&](std::int16_t id, const std::string& v) {
    p.writeFieldBegin("s", th::protocol::T_STRING, id);
    p.writeString(v);
    p.writeFieldEnd();
  };
  auto i32 = [&](std::int16_t id, std::int32_t v) {
    p.writeFieldBegin("i", th::protocol::T_I32, id);
    p.writeI32(v);
    p.writeFieldEnd();
  };
  str(1, "wc-1-1700000000");
  str(2, "wc");
  i32(3, 12);
  i32(4, 6);
  i32(5, 2);
  i32(6, 61);
  str(7, "ACTIVE");
  str(513, "");
  str(514, "alice");
  i32(515, 1);
  p.writeFieldBegin("requested_memonheap", th::protocol::T_DOUBLE, 521);
  p.writeDouble(128.0);
  p.writeFieldEnd();
  p.writeFieldStop();
  p.writeStructEnd();
  p.writeListEnd();
  p.writeFieldEnd();
  p.writeFieldBegin("nimbuses", th::protocol::T_LIST, 4);
  p.writeListBegin(th::protocol::T_STRUCT, 1);
  p.writeStructBegin("NimbusSummary");
  str(1, "nimbus-a");
  i32(2, 6627);
  i32(3, 500);
  p.writeFieldBegin("isLeader", th::protocol::T_BOOL, 4);
  p.writeBool(true);
  p.writeFieldEnd();
  str(5, "2.6.1");
  str(6, "a field from the future");
  p.writeFieldStop();
  p.writeStructEnd();
  p.writeListEnd();
  p.writeFieldEnd();
  p.writeFieldBegin("future", th::protocol::T_LIST, 77);
  p.writeListBegin(th::protocol::T_MAP, 1);
  p.writeMapBegin(th::protocol::T_STRING, th::protocol::T_LIST, 1);
  p.writeString(std::string("k"));
  p.writeListBegin(th::protocol::T_I64, 2);
  p.writeI64(1);
  p.writeI64(2);
  p.writeListEnd();
  p.writeMapEnd();
  p.writeListEnd();
  p.writeFieldEnd();
  p.writeFieldStop();
  p.writeStructEnd();
  p.writeFieldEnd();
  p.writeFieldStop();
  p.writeStructEnd();
  p.writeMessageEnd();
  return buffer->getBufferAsString();
}

TEST(NimbusClient, SkipsFieldsItDoesNotKnow) {
  RawServer server([](const std::string& method, std::int32_t seqid) {
    EXPECT_EQ(method, "getClusterInfo");
    return ClusterInfoReplyWithUnknownFields(seqid);
  });
  auto client = NimbusClient::Connect({"127.0.0.1", server.port()}, Quick());
  const gen::ClusterSummary info = client->GetClusterInfo();
  ASSERT_EQ(info.topologies.size(), 1u);
  const auto& t = info.topologies[0];
  EXPECT_EQ(t.id, "wc-1-1700000000");
  EXPECT_EQ(t.name, "wc");
  EXPECT_EQ(t.num_tasks, 12);
  EXPECT_EQ(t.num_executors, 6);
  EXPECT_EQ(t.num_workers, 2);
  EXPECT_EQ(t.uptime_secs, 61);
  EXPECT_EQ(t.status, "ACTIVE");
  EXPECT_EQ(t.owner, "alice");
  ASSERT_EQ(info.nimbuses.size(), 1u);
  EXPECT_EQ(info.nimbuses[0].host, "nimbus-a");
  EXPECT_TRUE(info.nimbuses[0].isLeader);
  EXPECT_EQ(info.nimbuses[0].version, "2.6.1");
}

TEST(NimbusClient, NoReplyIsATimeout) {
  RawServer silent([](const std::string&, std::int32_t) { return std::string(); });
  ClientOptions options = Quick();
  options.recv_timeout = std::chrono::milliseconds(200);
  auto client = NimbusClient::Connect({"127.0.0.1", silent.port()}, options);
  EXPECT_EQ(KindOf([&] { client->GetClusterInfo(); }), NimbusErrorKind::kTimeout);
  // The broken connection is not reused.
  EXPECT_EQ(KindOf([&] { client->GetClusterInfo(); }), NimbusErrorKind::kProtocol);
}

// A reply to `method` that says the server does not know it (TApplicationException
// UNKNOWN_METHOD), as a Storm 0.x Nimbus answers getLeader.
std::string UnknownMethodReply(const std::string& method, std::int32_t seqid) {
  auto buffer = std::make_shared<th::transport::TMemoryBuffer>();
  th::protocol::TBinaryProtocol p(buffer);
  p.writeMessageBegin(method, th::protocol::T_EXCEPTION, seqid);
  th::TApplicationException(th::TApplicationException::UNKNOWN_METHOD,
                            "Invalid method name: '" + method + "'")
      .write(&p);
  p.writeMessageEnd();
  return buffer->getBufferAsString();
}

TEST(ConnectToLeader, ANimbusWithoutGetLeaderIsUsedAsIs) {
  RawServer old([](const std::string& method, std::int32_t seqid) {
    return UnknownMethodReply(method, seqid);
  });
  std::vector<std::string> notes;
  auto client = ConnectToLeader({{"127.0.0.1", old.port()}}, Quick(),
                                [&](const std::string& n) { notes.push_back(n); });
  EXPECT_EQ(client->address().port, old.port());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("predates getLeader"), std::string::npos);
  // The same reply to another call is a server error naming it.
  try {
    client->GetClusterInfo();
    FAIL() << "expected a NimbusError";
  } catch (const NimbusError& e) {
    EXPECT_EQ(e.kind(), NimbusErrorKind::kServerError);
    EXPECT_NE(std::string(e.what()).find("getClusterInfo"), std::string::npos) << e.what();
  }
}

TEST(ConnectToLeader, RedirectsToTheLeader) {
  FakeNimbus leader;
  FakeNimbus follower;
  follower.SetLeader("127.0.0.1", leader.port());
  std::vector<std::string> notes;
  auto client = ConnectToLeader({follower.address()}, Quick(),
                                [&](const std::string& n) { notes.push_back(n); });
  EXPECT_EQ(client->address(), leader.address());
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("not the leader"), std::string::npos);
  EXPECT_EQ(follower.calls(), (std::vector<std::string>{"getLeader"}));
  EXPECT_TRUE(leader.calls().empty());
}

TEST(ConnectToLeader, StaysWhenTheSeedIsTheLeaderUnderAnotherName) {
  FakeNimbus nimbus;
  nimbus.SetLeader("localhost", nimbus.port());
  auto client = ConnectToLeader({nimbus.address()}, Quick(), nullptr);
  EXPECT_EQ(client->address(), nimbus.address());
}

TEST(ConnectToLeader, TriesTheNextSeed) {
  FakeNimbus nimbus;
  auto client =
      ConnectToLeader({{"127.0.0.1", testing::UnusedPort()}, nimbus.address()}, Quick(), nullptr);
  EXPECT_EQ(client->address(), nimbus.address());
}

TEST(ConnectToLeader, UnreachableLeaderOfASingleNimbusClusterFallsBackToTheSeed) {
  FakeNimbus nimbus;
  nimbus.SetLeader("127.0.0.1", testing::UnusedPort());  // e.g. a container's own name
  std::vector<std::string> notes;
  auto client = ConnectToLeader({nimbus.address()}, Quick(),
                                [&](const std::string& n) { notes.push_back(n); });
  EXPECT_EQ(client->address(), nimbus.address());
  EXPECT_EQ(notes.size(), 2u);
}

TEST(ConnectToLeader, UnreachableLeaderOfSeveralIsNotTheLeaderError) {
  FakeNimbus nimbus;
  const int gone = testing::UnusedPort();
  nimbus.SetLeader("127.0.0.1", gone);
  nimbus.SetNimbusCount(2);
  try {
    ConnectToLeader({nimbus.address()}, Quick(), nullptr);
    FAIL() << "expected a NimbusError";
  } catch (const NimbusError& e) {
    EXPECT_EQ(e.kind(), NimbusErrorKind::kNotLeader);
    EXPECT_NE(std::string(e.what()).find("127.0.0.1:" + std::to_string(gone)), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace sparse::storm
