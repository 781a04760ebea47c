// The web view of one running topology: an HTTP server on the cluster's event loop serving the
// page (assets/) and the JSON API (api.hpp), fed by the cluster's observer callbacks.
//
// Loop affinity: constructed, fed and stopped on the thread that runs the io_context; it must
// be destroyed (or Stop()ped) while that io_context still exists.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "runtime/local_cluster.hpp"
#include "web/api.hpp"
#include "web/history.hpp"
#include "web/http_server.hpp"

namespace sparse::web {

// What the page's buttons do to the run (Storm UI's deactivate, activate and kill). Without a
// token there are no buttons and every POST is refused.
struct RunControls {
  std::string token;  // a POST must carry it in the X-Sparse-Token header
  std::function<void(bool active)> set_active;
  std::function<void(std::chrono::milliseconds wait)> kill;
};

// A fresh random token (hex), for RunControls.
std::string NewControlToken();

class WebUi final : public runtime::ClusterObserver {
 public:
  // Binds `bind`:`port` (0: a free port) right away and throws std::runtime_error if it cannot;
  // requests are served once the loop runs.
  WebUi(boost::asio::io_context& io, TopologyInfo info, const std::string& bind, std::uint16_t port,
        RunControls controls = {});

  void OnStatus(const runtime::ClusterSnapshot& snapshot) override;
  void OnComponentError(const std::string& component, int task, std::string_view msg) override;
  void OnTaskFailure(const runtime::FailureReport& report,
                     std::optional<std::chrono::milliseconds> restart_in) override;

  std::string Url() const { return server_.Url(); }
  std::uint16_t port() const { return server_.port(); }
  void Stop() { server_.Stop(); }

  // Routing, exposed for tests.
  HttpResponse Handle(const HttpRequest& request) const;

 private:
  HttpResponse Api(const HttpRequest& request) const;
  // POST /api/v1/topology/<id>/{deactivate,activate,kill/<wait secs>}.
  HttpResponse Control(const HttpRequest& request) const;
  HttpResponse IndexPage() const;

  TopologyInfo info_;
  SnapshotHistory history_;
  ErrorLog errors_;
  RunControls controls_;
  HttpServer server_;
};

}  // namespace sparse::web
