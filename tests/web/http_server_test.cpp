// The HTTP server (web/http_server.hpp) over real sockets on 127.0.0.1 with an OS-chosen port,
// and the web view's routing (web/web_ui.hpp).
#include "web/http_server.hpp"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <thread>

#include "runtime/builtin_registry.hpp"
#include "runtime/topology_loader.hpp"
#include "web/assets.hpp"
#include "web/http_client.hpp"
#include "web/web_ui.hpp"

namespace sparse::web {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using nlohmann::json;

// A server on its own loop thread, stopped on that thread.
class RunningServer {
 public:
  explicit RunningServer(HttpServer::Handler handler)
      : work_(asio::make_work_guard(io_)), server_(io_, "127.0.0.1", 0, std::move(handler)) {
    server_.Start();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~RunningServer() {
    asio::post(io_, [this] {
      server_.Stop();
      work_.reset();
    });
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(server_.port()) + path;
  }
  std::uint16_t port() const { return server_.port(); }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> work_;
  HttpServer server_;
  std::thread thread_;
};

HttpResponse Echo(const HttpRequest& r) {
  HttpResponse out;
  json segments = r.segments;
  json query = r.query;
  out.body = json{
      {"path", r.path},
      {"segments", segments},
      {"query", query},
      {"method", r.method},
      {"token",
       r.token}}.dump();
  if (r.path == "/missing") out.status = 404;
  if (r.path == "/throw") throw std::runtime_error("handler failed");
  return out;
}

// Sends raw bytes and reads until the server closes the connection.
std::string RawExchange(std::uint16_t port, const std::string& request) {
  asio::io_context io;
  tcp::socket s(io);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
  asio::write(s, asio::buffer(request));
  std::string out;
  boost::system::error_code ec;
  asio::read(s, asio::dynamic_buffer(out), ec);
  return out;
}

TEST(ParseTarget, DecodesPathSegmentsAndQuery) {
  const auto r = ParseTarget("/api/v1/topology/a%2Fb/component/x%20y?window=600&q=a+b&flag");
  EXPECT_EQ(r.path, "/api/v1/topology/a/b/component/x y");
  EXPECT_EQ(r.segments,
            (std::vector<std::string>{"api", "v1", "topology", "a/b", "component", "x y"}));
  EXPECT_EQ(r.query.at("window"), "600");
  EXPECT_EQ(r.query.at("q"), "a b");
  EXPECT_EQ(r.query.at("flag"), "");
  EXPECT_TRUE(ParseTarget("/").segments.empty());
  EXPECT_EQ(PercentDecode("100%", false), "100%");
  EXPECT_EQ(PercentDecode("%zz%4", false), "%zz%4");
}

TEST(HttpServer, ServesOnAnOsChosenLoopbackPort) {
  RunningServer server(Echo);
  EXPECT_NE(server.port(), 0);
  const auto r = HttpGet(server.Url("/a/b%20c?window=%3Aall-time"));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.content_type, "application/json");
  const json j = json::parse(r.body);
  EXPECT_EQ(j["path"], "/a/b c");
  EXPECT_EQ(j["query"]["window"], ":all-time");
  EXPECT_EQ(HttpGet(server.Url("/missing")).status, 404);
  const auto failed = HttpGet(server.Url("/throw"));
  EXPECT_EQ(failed.status, 500);
  EXPECT_NE(failed.body.find("handler failed"), std::string::npos);
}

TEST(HttpServer, KeepsAConnectionAliveForSeveralRequests) {
  RunningServer server(Echo);
  const std::string one = "GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string two = "GET /second HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
  const std::string out = RawExchange(server.port(), one + two);
  EXPECT_NE(out.find("\"path\":\"/first\""), std::string::npos) << out;
  EXPECT_NE(out.find("\"path\":\"/second\""), std::string::npos) << out;
}

TEST(HttpServer, RefusesOtherMethodsAndForeignHosts) {
  RunningServer server(Echo);
  const std::string put = RawExchange(server.port(),
                                      "PUT /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n"
                                      "Connection: close\r\n\r\nhi");
  EXPECT_EQ(put.rfind("HTTP/1.1 405", 0), 0u) << put;
  // Storm UI's error shape, as every other error of the API.
  EXPECT_NE(put.find("Content-Type: application/json"), std::string::npos) << put;
  EXPECT_NE(put.find(R"({"error":"Method Not Allowed","errorMessage":"only GET, HEAD and POST"})"),
            std::string::npos)
      << put;
  // A POST from this machine naming a loopback host reaches the handler, with its token...
  const std::string post = RawExchange(server.port(),
                                       "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                       "X-Sparse-Token: abc\r\nContent-Length: 0\r\n"
                                       "Connection: close\r\n\r\n");
  EXPECT_EQ(post.rfind("HTTP/1.1 200", 0), 0u) << post;
  EXPECT_NE(post.find(R"("method":"POST")"), std::string::npos) << post;
  EXPECT_NE(post.find(R"("token":"abc")"), std::string::npos) << post;
  // ... one naming another host does not, nor one without a Host.
  const std::string foreign_post = RawExchange(
      server.port(),
      "POST /x HTTP/1.1\r\nHost: evil.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(foreign_post.rfind("HTTP/1.1 403", 0), 0u) << foreign_post;
  // From another machine (simulated: the peer is not loopback), not even with a loopback Host.
  const auto remote = AnswerRequestBytes(
      "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\n\r\n", false,
      [](const HttpRequest&) { return HttpResponse{}; }, /*peer_loopback=*/false);
  ASSERT_TRUE(remote);
  EXPECT_EQ(remote->status, 403);
  // DNS rebinding: a page on evil.example resolving its name to 127.0.0.1.
  const std::string foreign = RawExchange(
      server.port(), "GET / HTTP/1.1\r\nHost: evil.example:8080\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(foreign.rfind("HTTP/1.1 403", 0), 0u) << foreign;
  const std::string v6 =
      RawExchange(server.port(), "GET /ok HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(v6.rfind("HTTP/1.1 200", 0), 0u) << v6;
  const std::string head = RawExchange(
      server.port(), "HEAD /ok HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(head.rfind("HTTP/1.1 200", 0), 0u) << head;
  EXPECT_EQ(head.find("\"path\""), std::string::npos) << head;  // no body
}

TEST(HttpServer, DropsOversizedRequests) {
  RunningServer server(Echo);
  const std::string huge = "GET /" + std::string(20000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n";
  EXPECT_EQ(RawExchange(server.port(), huge), "");
  EXPECT_EQ(HttpGet(server.Url("/still-up")).status, 200);  // and goes on serving
}

TEST(HttpServer, ReportsAPortInUse) {
  asio::io_context io;
  HttpServer first(io, "127.0.0.1", 0, Echo);
  try {
    HttpServer second(io, "127.0.0.1", first.port(), Echo);
    FAIL() << "bound a port twice";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(first.port())),
        std::string::npos)
        << e.what();
  }
  EXPECT_THROW(HttpServer(io, "not-an-address", 0, Echo), std::runtime_error);
}

TEST(HttpClient, FailsClearlyWhenNothingListens) {
  std::uint16_t port = 0;
  {
    asio::io_context io;
    HttpServer s(io, "127.0.0.1", 0, Echo);
    port = s.port();
  }  // closed again: nothing listens there now
  try {
    HttpGet("http://127.0.0.1:" + std::to_string(port) + "/");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot get http://127.0.0.1:"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(HttpGet("https://example.org/"), std::runtime_error);
}

TEST(Assets, ThePageIsEmbedded) {
  const Asset* index = FindAsset("index.html");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_NE(index->data.find("<script src=\"app.js\""), std::string_view::npos);
  ASSERT_NE(FindAsset("app.js"), nullptr);
  EXPECT_EQ(FindAsset("app.js")->content_type, "text/javascript; charset=utf-8");
  ASSERT_NE(FindAsset("style.css"), nullptr);
  EXPECT_EQ(FindAsset("nope.js"), nullptr);
}

TopologyInfo RoutesInfo() {
  auto topology = runtime::LoadTopologyFromString(R"(name: routes
spouts: [{id: "spout one", command: [x], outputs: [n]}]
bolts: [{id: sink, command: [y], inputs: [{from: "spout one"}]}]
)",
                                                  "routes.yaml", runtime::BuiltinRegistry{});
  TopologyInfo info;
  info.id = info.name = "routes";
  info.graph = MakeGraph(topology);
  return info;
}

TEST(WebUi, Routes) {
  asio::io_context io;  // never run: Handle() is called directly
  WebUi ui(io, RoutesInfo(), "127.0.0.1", 0);
  auto get = [&](const std::string& target) { return ui.Handle(ParseTarget(target)); };
  const auto page = get("/");
  EXPECT_EQ(page.status, 200);
  EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
  EXPECT_EQ(get("/app.js").content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(get("/nothing.js").status, 404);

  // Before the first status report: the components with zeros.
  const auto summary = json::parse(get("/api/v1/topology/summary").body);
  EXPECT_EQ(summary["topologies"][0]["id"], "routes");
  EXPECT_EQ(summary["topologies"][0]["state"], "starting");
  const auto topology = json::parse(get("/api/v1/topology/routes").body);
  EXPECT_EQ(topology["spouts"][0]["spoutId"], "spout one");
  EXPECT_EQ(topology["spouts"][0]["emitted"], 0);

  runtime::ClusterSnapshot s = EmptySnapshot(RoutesInfo().graph);
  s.state = "running";
  s.uptime_secs = 3;
  s.components[0].totals.executed = 5;
  ui.OnStatus(s);
  ui.OnComponentError("sink", 2, "oops");
  const auto now = json::parse(get("/api/v1/topology/routes?window=600").body);
  EXPECT_EQ(now["status"], "ACTIVE");
  EXPECT_EQ(now["bolts"][0]["executed"], 5);
  EXPECT_EQ(now["recentErrors"][0]["error"], "oops");

  const auto component = get("/api/v1/topology/routes/component/spout%20one");
  EXPECT_EQ(component.status, 200);
  EXPECT_EQ(json::parse(component.body)["componentType"], "spout");
  const auto graph = json::parse(get("/api/v1/topology/routes/graph").body);
  EXPECT_EQ(graph["edges"][0]["source"], "spout one");

  EXPECT_EQ(get("/api/v1/topology/other").status, 404);
  EXPECT_EQ(get("/api/v1/topology/routes/component/none").status, 404);
  EXPECT_EQ(get("/api/v1/nothing").status, 404);
  const auto bad = get("/api/v1/topology/routes?window=86400");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(json::parse(bad.body)["errorMessage"].get<std::string>().find("window"),
            std::string::npos);
}

}  // namespace
}  // namespace sparse::web
