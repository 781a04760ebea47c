// The Storm side of bench/storm/run.py: builds a bench topology from a small JSON spec and runs
// it in Storm's local mode, or submits it to a cluster; reads a topology's statistics.
//
//   BenchTopology local SPEC STATS_OUT     a LocalCluster in this JVM runs the topology until a
//                                          line (or EOF) arrives on stdin; then the statistics go
//                                          to STATS_OUT and the JVM exits
//   BenchTopology submit SPEC HOST:PORT    StormSubmitter uploads -Dstorm.jar=JAR to that Nimbus
//   BenchTopology stats NAME HOST:PORT STATS_OUT   the statistics of a running topology
//
// Spec: {"name": N, "config": {...}, "components": [{"id", "type": "spout"|"bolt",
//        "kind": "shell"|"kafka_spout"|"kafka_bolt", "command": [...], "fields": [...],
//        "inputs": [{"from", "grouping": "shuffle"|"fields", "fields": [...]}],
//        "bootstrap", "topic", "group"}]}
// Shell components run their command in the topology jar's resources/ folder, as Storm does for
// any ShellSpout/ShellBolt; in local mode Storm takes resources/ from the first jar on the
// classpath that has one, so run.py puts the sparse jar first. The Kafka components are Storm's
// own (storm-kafka-client): sparse's built-in ones run only inside sparse's runtime.
//
// Statistics (JSON): {"components": {ID: {"emitted", "acked", "failed", "executed",
// "complete_latency_ms"}}}, from Storm's "600" window (the last 10 minutes, which includes the
// current 30 s bucket; ":all-time" only grows when a bucket rolls over, so a short run would see
// nothing); counts are sampled (topology.stats.sample.rate), as Storm reports them.
package sparse.bench.storm;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.storm.Config;
import org.apache.storm.LocalCluster;
import org.apache.storm.StormSubmitter;
import org.apache.storm.generated.ExecutorSpecificStats;
import org.apache.storm.generated.ExecutorStats;
import org.apache.storm.generated.ExecutorSummary;
import org.apache.storm.generated.GlobalStreamId;
import org.apache.storm.generated.StormTopology;
import org.apache.storm.generated.TopologyInfo;
import org.apache.storm.kafka.bolt.KafkaBolt;
import org.apache.storm.kafka.bolt.mapper.FieldNameBasedTupleToKafkaMapper;
import org.apache.storm.kafka.bolt.selector.DefaultTopicSelector;
import org.apache.storm.kafka.spout.FirstPollOffsetStrategy;
import org.apache.storm.kafka.spout.KafkaSpout;
import org.apache.storm.kafka.spout.KafkaSpoutConfig;
import org.apache.storm.shade.net.minidev.json.JSONValue;
import org.apache.storm.spout.ShellSpout;
import org.apache.storm.task.ShellBolt;
import org.apache.storm.topology.BoltDeclarer;
import org.apache.storm.topology.IRichBolt;
import org.apache.storm.topology.IRichSpout;
import org.apache.storm.topology.OutputFieldsDeclarer;
import org.apache.storm.topology.TopologyBuilder;
import org.apache.storm.tuple.Fields;
import org.apache.storm.utils.NimbusClient;
import org.apache.storm.utils.Utils;

public final class BenchTopology {
    private BenchTopology() {}

    /** A ShellSpout that declares its output fields (ShellSpout alone does not). */
    static final class Spout extends ShellSpout implements IRichSpout {
        private final List<String> fields;

        Spout(List<String> command, List<String> fields) {
            super(command.toArray(new String[0]));
            this.fields = fields;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            d.declare(new Fields(fields));
        }

        @Override
        public Map<String, Object> getComponentConfiguration() {
            return null;
        }
    }

    /** A ShellBolt that declares its output fields. */
    static final class Bolt extends ShellBolt implements IRichBolt {
        private final List<String> fields;

        Bolt(List<String> command, List<String> fields) {
            super(command.toArray(new String[0]));
            this.fields = fields;
        }

        @Override
        public void declareOutputFields(OutputFieldsDeclarer d) {
            if (!fields.isEmpty()) d.declare(new Fields(fields));
        }

        @Override
        public Map<String, Object> getComponentConfiguration() {
            return null;
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> strings(Map<String, Object> m, String key) {
        Object v = m.get(key);
        return v == null ? List.of() : (List<String>) v;
    }

    @SuppressWarnings("unchecked")
    static StormTopology build(Map<String, Object> spec) {
        TopologyBuilder b = new TopologyBuilder();
        for (Object o : (List<Object>) spec.get("components")) {
            Map<String, Object> c = (Map<String, Object>) o;
            String id = (String) c.get("id");
            String kind = (String) c.get("kind");
            if ("spout".equals(c.get("type"))) {
                if ("kafka_spout".equals(kind)) {
                    KafkaSpoutConfig<String, String> conf = KafkaSpoutConfig
                        .builder((String) c.get("bootstrap"), (String) c.get("topic"))
                        .setProp("group.id", c.get("group"))
                        .setFirstPollOffsetStrategy(FirstPollOffsetStrategy.EARLIEST)
                        .build();
                    b.setSpout(id, new KafkaSpout<>(conf), 1);
                } else {
                    b.setSpout(id, new Spout(strings(c, "command"), strings(c, "fields")), 1);
                }
                continue;
            }
            IRichBolt bolt;
            if ("kafka_bolt".equals(kind)) {
                Map<String, Object> props = new HashMap<>();
                props.put("bootstrap.servers", c.get("bootstrap"));
                props.put("acks", "all");
                props.put("key.serializer", "org.apache.kafka.common.serialization.StringSerializer");
                props.put("value.serializer", "org.apache.kafka.common.serialization.StringSerializer");
                java.util.Properties p = new java.util.Properties();
                p.putAll(props);
                bolt = new KafkaBolt<String, String>()
                    .withProducerProperties(p)
                    .withTopicSelector(new DefaultTopicSelector((String) c.get("topic")))
                    .withTupleToKafkaMapper(new FieldNameBasedTupleToKafkaMapper<>("key", "message"));
            } else {
                bolt = new Bolt(strings(c, "command"), strings(c, "fields"));
            }
            BoltDeclarer d = b.setBolt(id, bolt, 1);
            for (Object i : (List<Object>) c.get("inputs")) {
                Map<String, Object> in = (Map<String, Object>) i;
                String from = (String) in.get("from");
                if ("fields".equals(in.get("grouping"))) {
                    d.fieldsGrouping(from, new Fields(strings(in, "fields")));
                } else {
                    d.shuffleGrouping(from);
                }
            }
        }
        return b.createTopology();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> readSpec(String path) throws Exception {
        return (Map<String, Object>) JSONValue.parseWithException(Files.readString(Path.of(path)));
    }

    static Map<String, Object> config(Map<String, Object> spec) {
        Config conf = new Config();
        @SuppressWarnings("unchecked")
        Map<String, Object> extra = (Map<String, Object>) spec.get("config");
        if (extra != null) conf.putAll(extra);
        return conf;
    }

    static final String WINDOW = "600";

    static <K> long sum(Map<String, Map<K, Long>> byWindow) {
        long n = 0;
        if (byWindow == null || byWindow.get(WINDOW) == null) return 0;
        for (Long v : byWindow.get(WINDOW).values()) n += v;
        return n;
    }

    /** Per component: counts and the acked-weighted complete latency, Storm's WINDOW. */
    static Map<String, Object> stats(TopologyInfo info) {
        Map<String, Map<String, Object>> comps = new HashMap<>();
        Map<String, double[]> latency = new HashMap<>(); // id -> {sum of avg*acked, acked}
        for (ExecutorSummary e : info.get_executors()) {
            ExecutorStats s = e.get_stats();
            if (s == null) continue;
            String id = e.get_component_id();
            Map<String, Object> c = comps.computeIfAbsent(id, k -> new HashMap<>());
            c.merge("emitted", sum(s.get_emitted()), (a, b) -> (Long) a + (Long) b);
            ExecutorSpecificStats spec = s.get_specific();
            if (spec.is_set_spout()) {
                Map<String, Map<String, Long>> acked = spec.get_spout().get_acked();
                c.merge("acked", sum(acked), (a, b) -> (Long) a + (Long) b);
                c.merge("failed", sum(spec.get_spout().get_failed()), (a, b) -> (Long) a + (Long) b);
                Map<String, Double> avg = spec.get_spout().get_complete_ms_avg().get(WINDOW);
                if (avg != null && acked.get(WINDOW) != null) {
                    double[] l = latency.computeIfAbsent(id, k -> new double[2]);
                    for (Map.Entry<String, Double> st : avg.entrySet()) {
                        Long n = acked.get(WINDOW).get(st.getKey());
                        if (n == null) continue;
                        l[0] += st.getValue() * n;
                        l[1] += n;
                    }
                }
            } else if (spec.is_set_bolt()) {
                c.merge("executed", sum(spec.get_bolt().get_executed()), (a, b) -> (Long) a + (Long) b);
                c.merge("acked", sum(spec.get_bolt().get_acked()), (a, b) -> (Long) a + (Long) b);
                c.merge("failed", sum(spec.get_bolt().get_failed()), (a, b) -> (Long) a + (Long) b);
            }
        }
        for (Map.Entry<String, double[]> l : latency.entrySet()) {
            if (l.getValue()[1] > 0) {
                comps.get(l.getKey()).put("complete_latency_ms", l.getValue()[0] / l.getValue()[1]);
            }
        }
        Map<String, Object> out = new HashMap<>();
        out.put("components", comps);
        out.put("uptime_secs", info.get_uptime_secs());
        return out;
    }

    interface InfoSource {
        TopologyInfo get() throws Exception;
    }

    /** The statistics once some spout reports a complete latency (executors report every few
     *  seconds, so a short run may have none yet), or whatever there is after 15 s. */
    @SuppressWarnings("unchecked")
    static Map<String, Object> reportedStats(InfoSource source) throws Exception {
        long deadline = System.nanoTime() + 15_000_000_000L;
        while (true) {
            Map<String, Object> s = stats(source.get());
            for (Object c : ((Map<String, Object>) s.get("components")).values()) {
                if (((Map<String, Object>) c).containsKey("complete_latency_ms")) return s;
            }
            if (System.nanoTime() > deadline) return s;
            Thread.sleep(1000);
        }
    }

    static void write(String path, Map<String, Object> stats) throws Exception {
        Files.writeString(Path.of(path), JSONValue.toJSONString(stats), StandardCharsets.UTF_8);
    }

    static Map<String, Object> nimbusConf(String hostPort) {
        Map<String, Object> conf = new HashMap<>(Utils.readDefaultConfig());
        int colon = hostPort.lastIndexOf(':');
        conf.put(Config.NIMBUS_SEEDS, List.of(hostPort.substring(0, colon)));
        conf.put(Config.NIMBUS_THRIFT_PORT, Integer.parseInt(hostPort.substring(colon + 1)));
        return conf;
    }

    public static void main(String[] args) throws Exception {
        String usage = "usage: BenchTopology local SPEC STATS_OUT | submit SPEC HOST:PORT"
            + " | stats NAME HOST:PORT STATS_OUT";
        if (args.length < 3) {
            System.err.println(usage);
            System.exit(2);
        }
        switch (args[0]) {
            case "local": {
                Map<String, Object> spec = readSpec(args[1]);
                String name = (String) spec.get("name");
                LocalCluster cluster = new LocalCluster();
                cluster.submitTopology(name, config(spec), build(spec));
                System.out.println("submitted " + name);
                System.out.flush();
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
                write(args[2], reportedStats(() -> cluster.getTopologyInfoByName(name)));
                // A LocalCluster's shutdown waits on its shell components and threads; the
                // statistics are out, so the JVM ends here (its children get EOF and exit).
                Runtime.getRuntime().halt(0);
                break;
            }
            case "submit": {
                Map<String, Object> spec = readSpec(args[1]);
                Map<String, Object> conf = config(spec);
                conf.putAll(nimbusConf(args[2]));
                StormSubmitter.submitTopology((String) spec.get("name"), conf, build(spec));
                break;
            }
            case "stats": {
                if (args.length != 4) {
                    System.err.println(usage);
                    System.exit(2);
                }
                int colon = args[2].lastIndexOf(':');
                try (NimbusClient client = new NimbusClient(nimbusConf(args[2]), args[2].substring(0, colon),
                        Integer.parseInt(args[2].substring(colon + 1)), 10000)) {
                    write(args[3], reportedStats(() -> client.getClient().getTopologyInfoByName(args[1])));
                }
                break;
            }
            default:
                System.err.println(usage);
                System.exit(2);
        }
    }
}
