#include "web/web_ui.hpp"

#include <charconv>
#include <random>

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

// Where index.html carries the control token (a <meta> the script reads: the page's
// Content-Security-Policy allows no inline script).
constexpr std::string_view kTokenPlaceholder = "__SPARSE_CONTROL_TOKEN__";

bool SameToken(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;  // no early exit: the time taken says nothing about the token
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

std::string NewControlToken() {
  std::random_device rd;
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t r = rd();
    for (int k = 0; k < 4; ++k) {
      const unsigned byte = (r >> (8 * k)) & 0xff;
      out += hex[byte >> 4];
      out += hex[byte & 15];
    }
  }
  return out;
}

WebUi::WebUi(boost::asio::io_context& io, TopologyInfo info, const std::string& bind,
             std::uint16_t port, RunControls controls)
    : info_(std::move(info)),
      controls_(std::move(controls)),
      server_(io, bind, port, [this](const HttpRequest& r) { return Handle(r); }) {
  server_.Start();
}

HttpResponse WebUi::IndexPage() const {
  HttpResponse r = Page(*FindAsset("index.html"));
  const auto at = r.body.find(kTokenPlaceholder);
  if (at != std::string::npos) r.body.replace(at, kTokenPlaceholder.size(), controls_.token);
  return r;
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
  const bool api = seg.size() >= 2 && seg[0] == "api" && seg[1] == "v1";
  if (request.method == "POST") {
    if (api) return Control(request);
    HttpResponse bad = Error(405, "only the control endpoints take POST");
    bad.headers["Allow"] = "GET, HEAD";
    return bad;
  }
  if (seg.empty() || (seg.size() == 1 && seg[0] == "index.html")) return IndexPage();
  if (api) return Api(request);
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
  if (seg.size() == 5 && seg[4] == "history") return Json(200, HistoryJson(info_, history_));
  if ((seg.size() == 5 && (seg[4] == "activate" || seg[4] == "deactivate")) ||
      (seg.size() == 6 && seg[4] == "kill")) {
    HttpResponse bad = Error(405, "`" + seg[4] + "` takes POST");
    bad.headers["Allow"] = "POST";
    return bad;
  }
  if (seg.size() == 6 && seg[4] == "component") {
    auto j = ComponentJson(info_, history_, *window, errors_, NowMs(), seg[5]);
    if (!j) return Error(404, "no component `" + seg[5] + "` in " + info_.id);
    return Json(200, *j);
  }
  return Error(404, "no such endpoint");
}

HttpResponse WebUi::Control(const HttpRequest& request) const {
  const auto& seg = request.segments;  // api, v1, topology, id, operation[, wait]
  const bool known = seg.size() >= 5 && seg[2] == "topology" &&
                     ((seg.size() == 5 && (seg[4] == "activate" || seg[4] == "deactivate")) ||
                      (seg.size() == 6 && seg[4] == "kill"));
  if (!known) {
    HttpResponse bad = Error(405, "only the control endpoints take POST");
    bad.headers["Allow"] = "GET, HEAD";
    return bad;
  }
  if (controls_.token.empty()) return Error(403, "this run has no controls");
  if (!SameToken(request.token, controls_.token)) {
    return Error(403, std::string(request.token.empty() ? "no" : "a wrong") + " " + kTokenHeader +
                          " header: the token is printed when the run starts");
  }
  if (seg[3] != info_.id)
    return Error(404, "no topology `" + seg[3] + "` (this is " + info_.id + ")");
  const std::string& op = seg[4];
  if (op == "kill") {
    long long secs = -1;
    const auto [end, ec] = std::from_chars(seg[5].data(), seg[5].data() + seg[5].size(), secs);
    if (ec != std::errc() || end != seg[5].data() + seg[5].size() || secs < 0 || secs > 86400) {
      return Error(400, "the wait must be whole seconds from 0 to 86400, not `" + seg[5] + "`");
    }
    controls_.kill(std::chrono::seconds(secs));
  } else {
    controls_.set_active(op == "activate");
  }
  return Json(200, {{"topologyOperation", op}, {"topologyId", info_.id}, {"status", "success"}});
}

}  // namespace sparse::web
