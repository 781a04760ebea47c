// A cluster topology's numbers as sparse shows them: Storm's TopologyPageInfo (the per-component
// totals Storm's UI shows for one window, from Nimbus's getTopologyPageInfo) turned into the
// ClusterSnapshot that `sparse run`'s summary table and the web API's JSON are made from, so
// `sparse stats` prints a cluster topology and a local run the same way.
//
// Pure: no Nimbus, no clock (`now_secs` dates the last errors). Storm samples its counts
// (topology.stats.sample.rate, 0.05 by default: multiples of 20); they are shown as Storm has them.
#pragma once

#include <cstdint>

#include "runtime/local_cluster.hpp"
#include "sparse/storm/gen/storm_types.h"

namespace sparse::storm {

// Components sorted by id, spouts and bolts alike. Storm's status becomes the snapshot's state:
// ACTIVE -> running, INACTIVE -> running and not active, REBALANCING -> rebalancing,
// KILLED -> stopping. Missing fields read as zero.
runtime::ClusterSnapshot SnapshotFromPageInfo(const gen::TopologyPageInfo& page,
                                              std::int64_t now_secs);

// Storm's windows for getTopologyPageInfo: "600", "10800", "86400" and ":all-time".
bool IsStormWindow(const std::string& window);

}  // namespace sparse::storm
