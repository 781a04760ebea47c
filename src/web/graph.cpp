#include "web/graph.hpp"

#include <sstream>

namespace sparse::web {

namespace {

std::string Join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& i : items) {
    if (!out.empty()) out += sep;
    out += i;
  }
  return out;
}

// A DOT double-quoted string; "\n" in `text` becomes a centred line break.
std::string Quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        break;
      default:
        out += c;
    }
  }
  return out + "\"";
}

std::string Runs(const runtime::ComponentDef& c) {
  if (!c.builtin.empty()) return "builtin: " + c.builtin;
  return Join(c.command, " ");
}

}  // namespace

TopologyGraph MakeGraph(const runtime::Topology& topology) {
  TopologyGraph g;
  g.name = topology.name;
  for (const auto& c : topology.components) {
    GraphNode n;
    n.id = c.id;
    n.spout = c.is_spout();
    n.parallelism = c.parallelism;
    n.runs = Runs(c);
    for (const auto& s : c.streams) n.streams.push_back({s.id, s.fields, s.direct});
    g.nodes.push_back(std::move(n));
  }
  for (const auto& c : topology.components) {
    for (const auto& in : c.inputs) {
      GraphEdge e;
      e.source = in.component;
      e.target = c.id;
      e.stream = in.stream;
      e.grouping = std::string(runtime::GroupingName(in.grouping.type));
      e.grouping_fields = in.grouping.fields;
      if (const auto* source = topology.Find(in.component)) {
        if (const auto* s = source->FindStream(in.stream)) e.stream_fields = s->fields;
      }
      g.edges.push_back(std::move(e));
    }
  }
  return g;
}

nlohmann::json GraphJson(const TopologyGraph& g) {
  using nlohmann::json;
  json nodes = json::array();
  for (const auto& n : g.nodes) {
    json streams = json::array();
    for (const auto& s : n.streams) {
      streams.push_back({{"id", s.id}, {"fields", s.fields}, {"direct", s.direct}});
    }
    nodes.push_back({{"id", n.id},
                     {"type", n.spout ? "spout" : "bolt"},
                     {"parallelism", n.parallelism},
                     {"runs", n.runs},
                     {"streams", std::move(streams)}});
  }
  json edges = json::array();
  for (const auto& e : g.edges) {
    edges.push_back({{"source", e.source},
                     {"target", e.target},
                     {"stream", e.stream},
                     {"grouping", e.grouping},
                     {"groupingFields", e.grouping_fields},
                     {"fields", e.stream_fields}});
  }
  return {{"name", g.name}, {"nodes", std::move(nodes)}, {"edges", std::move(edges)}};
}

std::string GraphDot(const TopologyGraph& g) {
  std::ostringstream out;
  out << "digraph " << Quote(g.name) << " {\n"
      << "  rankdir=LR;\n"
      << "  graph [fontname=\"Helvetica\", label=" << Quote("topology " + g.name)
      << ", labelloc=t, fontsize=16, nodesep=0.5, ranksep=1.2];\n"
      << "  node [fontname=\"Helvetica\", fontsize=12, style=\"filled\"];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=10, color=\"#555555\"];\n";
  for (const auto& n : g.nodes) {
    const std::string label =
        n.id + "\n" + (n.spout ? "spout" : "bolt") + " x" + std::to_string(n.parallelism);
    out << "  " << Quote(n.id) << " [label=" << Quote(label);
    if (n.spout) {
      out << ", shape=cds, fillcolor=\"#ffcc80\", color=\"#e65100\"";
    } else {
      out << ", shape=box, style=\"rounded,filled\", fillcolor=\"#bbdefb\", color=\"#0d47a1\"";
    }
    out << ", tooltip=" << Quote(n.runs) << "];\n";
  }
  for (const auto& e : g.edges) {
    std::string label = e.stream;
    if (!e.stream_fields.empty()) label += " [" + Join(e.stream_fields, ", ") + "]";
    label += "\n" + e.grouping;
    if (!e.grouping_fields.empty()) label += "(" + Join(e.grouping_fields, ", ") + ")";
    out << "  " << Quote(e.source) << " -> " << Quote(e.target) << " [label=" << Quote(label);
    if (e.grouping == "all") out << ", style=bold";
    if (e.grouping == "direct") out << ", style=dashed";
    out << "];\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace sparse::web
