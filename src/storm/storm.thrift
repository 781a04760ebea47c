// The part of Apache Storm's Nimbus interface that sparse uses, written for sparse.
//
// Field ids, types and call names are Storm's (they are the wire contract, identical in Storm 1.x
// and 2.x for everything below); the namespaces are sparse's own. Only what sparse sends or reads
// is declared: a Thrift decoder skips fields it does not know, so replies from servers that carry
// more (newer TopologySummary/NimbusSummary fields, ClusterSummary.supervisors, ...) decode fine.
//
// Requiredness: structs sparse *sends* use Thrift's default requiredness, so every field is
// always written (Storm's Java side validates its `required` fields). Structs sparse only
// *receives* mark fields `optional`, so a reply that lacks one is not a decoding error.

namespace cpp sparse.storm.gen

// ---------------------------------------------------------------------------------------------
// Exceptions: every Storm exception is {1: required string msg}.

exception AlreadyAliveException {
  1: string msg
}

exception NotAliveException {
  1: string msg
}

exception InvalidTopologyException {
  1: string msg
}

exception AuthorizationException {
  1: string msg
}

// ---------------------------------------------------------------------------------------------
// The topology, as sparse sends it: shell components only.

struct NullStruct {
}

struct GlobalStreamId {
  1: string componentId
  2: string streamId
}

// A union: exactly one member is set. Storm's members 6 (custom_object, a JavaObject) and
// 7 (custom_serialized) need Java classes; sparse never sends them.
union Grouping {
  1: list<string> fields    // an empty list is Storm's global grouping
  2: NullStruct shuffle
  3: NullStruct all
  4: NullStruct none
  5: NullStruct direct
  8: NullStruct local_or_shuffle
}

struct StreamInfo {
  1: list<string> output_fields
  2: bool direct
}

struct ShellComponent {
  1: string execution_command
  2: string script
}

// Storm's members 1 (serialized_java) and 3 (java_object) are Java objects; sparse only sends
// shell components.
union ComponentObject {
  2: ShellComponent shell
}

struct ComponentCommon {
  1: map<GlobalStreamId, Grouping> inputs
  2: map<string, StreamInfo> streams
  3: optional i32 parallelism_hint
  4: optional string json_conf
}

struct SpoutSpec {
  1: ComponentObject spout_object
  2: ComponentCommon common
}

struct Bolt {
  1: ComponentObject bolt_object
  2: ComponentCommon common
}

struct StateSpoutSpec {
  1: ComponentObject state_spout_object
  2: ComponentCommon common
}

// Storm's optional members 4.. (worker hooks, dependencies, storm_version, ...) are left unset.
struct StormTopology {
  1: map<string, SpoutSpec> spouts
  2: map<string, Bolt> bolts
  3: map<string, StateSpoutSpec> state_spouts   // required by Storm; sent empty
}

enum TopologyInitialStatus {
  ACTIVE = 1,
  INACTIVE = 2
}

struct SubmitOptions {
  1: TopologyInitialStatus initial_status
  // 2: optional Credentials creds -- not sent
}

struct KillOptions {
  1: optional i32 wait_secs
}

struct RebalanceOptions {
  1: optional i32 wait_secs
  2: optional i32 num_workers
  3: optional map<string, i32> num_executors
}

// ---------------------------------------------------------------------------------------------
// What sparse reads back.

struct TopologySummary {
  1: optional string id
  2: optional string name
  3: optional i32 num_tasks
  4: optional i32 num_executors
  5: optional i32 num_workers
  6: optional i32 uptime_secs
  7: optional string status
  514: optional string owner
}

struct NimbusSummary {
  1: optional string host
  2: optional i32 port
  3: optional i32 uptime_secs
  4: optional bool isLeader
  5: optional string version
}

// What `sparse slot_usage` reads of a supervisor (Storm's fields 6 and up are skipped).
struct SupervisorSummary {
  1: optional string host
  2: optional i32 uptime_secs
  3: optional i32 num_workers       // worker slots
  4: optional i32 num_used_workers
  5: optional string supervisor_id
}

// 1.x's field 2 (nimbus_uptime_secs) is skipped.
struct ClusterSummary {
  1: optional list<SupervisorSummary> supervisors
  3: optional list<TopologySummary> topologies
  4: optional list<NimbusSummary> nimbuses
}

struct ExecutorInfo {
  1: optional i32 task_start
  2: optional i32 task_end
}

// Where an executor runs: a worker is one (host, port); field 7 (stats) is skipped.
struct ExecutorSummary {
  1: optional ExecutorInfo executor_info
  2: optional string component_id
  3: optional string host
  4: optional i32 port
  5: optional i32 uptime_secs
}

// What `sparse worker_uptime` and `slot_usage` read of a topology (errors and later fields are
// skipped).
struct TopologyInfo {
  1: optional string id
  2: optional string name
  3: optional i32 uptime_secs
  4: optional list<ExecutorSummary> executors
  5: optional string status
}

// ---------------------------------------------------------------------------------------------
// What `sparse stats` reads of a cluster topology: the per-component totals Storm's UI shows
// (getTopologyPageInfo aggregates the executors' heartbeats for one window). Fields after
// id_to_bolt_agg_stats (topology_stats, workers, resources) are skipped.

struct ErrorInfo {
  1: optional string error
  2: optional i32 error_time_secs
  3: optional string host
  4: optional i32 port
}

struct CommonAggregateStats {
  1: optional i32 num_executors
  2: optional i32 num_tasks
  3: optional i64 emitted
  4: optional i64 transferred
  5: optional i64 acked
  6: optional i64 failed
}

struct SpoutAggregateStats {
  1: optional double complete_latency_ms
}

struct BoltAggregateStats {
  1: optional double execute_latency_ms
  2: optional double process_latency_ms
  3: optional i64 executed
  4: optional double capacity
}

union SpecificAggregateStats {
  1: BoltAggregateStats bolt
  2: SpoutAggregateStats spout
}

enum ComponentType {
  BOLT = 1,
  SPOUT = 2
}

struct ComponentAggregateStats {
  1: optional ComponentType type
  2: optional CommonAggregateStats common_stats
  3: optional SpecificAggregateStats specific_stats
  4: optional ErrorInfo last_error
}

struct TopologyPageInfo {
  1: optional string id
  2: optional string name
  3: optional i32 uptime_secs
  4: optional string status
  5: optional i32 num_tasks
  6: optional i32 num_workers
  7: optional i32 num_executors
  9: optional map<string, ComponentAggregateStats> id_to_spout_agg_stats
  10: optional map<string, ComponentAggregateStats> id_to_bolt_agg_stats
}

service Nimbus {
  void submitTopologyWithOpts(1: string name, 2: string uploadedJarLocation, 3: string jsonConf,
                              4: StormTopology topology, 5: SubmitOptions options)
      throws (1: AlreadyAliveException e, 2: InvalidTopologyException ite,
              3: AuthorizationException aze)

  void killTopologyWithOpts(1: string name, 2: KillOptions options)
      throws (1: NotAliveException e, 2: AuthorizationException aze)

  void activate(1: string name)
      throws (1: NotAliveException e, 2: AuthorizationException aze)

  void deactivate(1: string name)
      throws (1: NotAliveException e, 2: AuthorizationException aze)

  void rebalance(1: string name, 2: RebalanceOptions options)
      throws (1: NotAliveException e, 2: InvalidTopologyException ite,
              3: AuthorizationException aze)

  string beginFileUpload() throws (1: AuthorizationException aze)

  void uploadChunk(1: string location, 2: binary chunk) throws (1: AuthorizationException aze)

  void finishFileUpload(1: string location) throws (1: AuthorizationException aze)

  ClusterSummary getClusterInfo() throws (1: AuthorizationException aze)

  NimbusSummary getLeader() throws (1: AuthorizationException aze)

  TopologyInfo getTopologyInfo(1: string id)
      throws (1: NotAliveException e, 2: AuthorizationException aze)

  // `window`: seconds as a string ("600", "10800", "86400") or ":all-time", Storm's windows.
  TopologyPageInfo getTopologyPageInfo(1: string id, 2: string window, 3: bool is_include_sys)
      throws (1: NotAliveException e, 2: AuthorizationException aze)

  bool isTopologyNameAllowed(1: string name) throws (1: AuthorizationException aze)
}
