#include "web/web_ui.hpp"

#include "web/assets.hpp"

namespace sparse::web {

namespace {

HttpResponse Json(int status, const nlohmann::json& body) {
  HttpResponse r;
  r.status = status;
  r.body = body.dump();
  r.headers["Cache-Control"] = "no-store";
  return r;
}

HttpResponse Error(int status, const std::string& message) {
  return JsonError(status, message);
}

HttpResponse Page(const Asset& a) {
  HttpResponse r;
  r.content_type = std::string(a.content_type);
  r.body = std::string(a.data);
  r.headers["Cache-Control"] = "no-cache";
  r.headers["Content-Security-Policy"] =
      "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'";
  return r;
}

}  // namespace

WebUi::WebUi(boost::asio::io_context& io, TopologyInfo info, const std::string& bind,
             std::uint16_t port)
    : info_(std::move(info)),
      server_(io, bind, port, [this](const HttpRequest& r) { return Handle(r); }) {
  server_.Start();
}

void WebUi::OnStatus(const runtime::ClusterSnapshot& snapshot) {
  history_.Add(snapshot);
}

void WebUi::OnComponentError(const std::string& component, int task, std::string_view msg) {
  errors_.Add({component, task, std::string(msg.substr(0, 2000)), NowMs()});
}

void WebUi::OnTaskFailure(const runtime::FailureReport& report,
                          std::optional<std::chrono::milliseconds> restart_in) {
  std::string text = "task failed: " + report.reason;
  if (restart_in) text += " (restarting in " + std::to_string(restart_in->count()) + " ms)";
  errors_.Add({report.component, report.task, std::move(text), NowMs()});
}

HttpResponse WebUi::Handle(const HttpRequest& request) const {
  const auto& seg = request.segments;
  if (seg.empty()) return Page(*FindAsset("index.html"));
  if (seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1") return Api(request);
  if (seg.size() == 1) {
    if (const Asset* a = FindAsset(seg[0])) return Page(*a);
  }
  HttpResponse r;
  r.status = 404;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "not found: " + request.path + "\n";
  return r;
}

HttpResponse WebUi::Api(const HttpRequest& request) const {
  const auto& seg = request.segments;  // api, v1, ...
  const runtime::ClusterSnapshot latest =
      history_.empty() ? EmptySnapshot(info_.graph) : history_.latest();
  if (seg.size() == 4 && seg[2] == "topology" && seg[3] == "summary") {
    return Json(200, TopologySummaryJson(info_, latest));
  }
  if (seg.size() < 4 || seg[2] != "topology") return Error(404, "no such endpoint");
  if (seg[3] != info_.id)
    return Error(404, "no topology `" + seg[3] + "` (this is " + info_.id + ")");

  const auto w = request.query.find("window");
  const auto window = ParseWindow(w == request.query.end() ? "" : w->second);
  if (!window) {
    return Error(
        400, "window must be :all-time or whole seconds from 1 to 600, not `" + w->second + "`");
  }
  if (seg.size() == 4) return Json(200, TopologyJson(info_, history_, *window, errors_, NowMs()));
  if (seg.size() == 5 && seg[4] == "graph") return Json(200, GraphJson(info_.graph));
  if (seg.size() == 6 && seg[4] == "component") {
    auto j = ComponentJson(info_, history_, *window, errors_, NowMs(), seg[5]);
    if (!j) return Error(404, "no component `" + seg[5] + "` in " + info_.id);
    return Json(200, *j);
  }
  return Error(404, "no such endpoint");
}

}  // namespace sparse::web
