// The shape of a topology as a graph: components as nodes, subscriptions as edges labelled with
// stream, stream fields and grouping. One model for the web view's JSON and for Graphviz DOT
// (`sparse visualize`), so both always draw the same thing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "runtime/topology.hpp"

namespace sparse::web {

struct GraphStream {
  std::string id;
  std::vector<std::string> fields;
  bool direct = false;
};

struct GraphNode {
  std::string id;
  bool spout = false;
  int parallelism = 1;
  std::string runs;  // the command line, or "builtin: NAME"
  std::vector<GraphStream> streams;
};

struct GraphEdge {
  std::string source;
  std::string target;
  std::string stream;
  std::string grouping;                      // sparse's name: shuffle, fields, all, ...
  std::vector<std::string> grouping_fields;  // fields and partial_key groupings
  std::vector<std::string> stream_fields;    // what the stream carries
};

struct TopologyGraph {
  std::string name;
  std::vector<GraphNode> nodes;  // in file order
  std::vector<GraphEdge> edges;  // by target, in file order
};

// The topology must have passed validation.
TopologyGraph MakeGraph(const runtime::Topology& topology);

// {"name", "nodes": [{id, type: spout|bolt, parallelism, runs, streams: [{id, fields, direct}]}],
//  "edges": [{source, target, stream, grouping, groupingFields, fields}]}
nlohmann::json GraphJson(const TopologyGraph& graph);

// Graphviz DOT, laid out left to right: spouts as orange "cds" shapes, bolts as blue rounded
// boxes; edges labelled "stream [fields]" and the grouping (with its fields).
std::string GraphDot(const TopologyGraph& graph);

}  // namespace sparse::web
