// Waits until a Storm cluster can run a topology: Nimbus answers getClusterInfo() over Thrift and
// at least one supervisor has registered worker slots. Prints "host:port" of Nimbus and exits 0;
// after the timeout, says on stderr what was missing and exits 1.
//
//   java -cp 'lib/*:sparse-storm-tools.jar' sparse.tests.storm.ClusterReady HOST PORT TIMEOUT_SECS
//
// A supervisor registers a few seconds after Nimbus starts; a topology submitted before that is
// accepted but not scheduled, so "Nimbus answers" alone is not ready.
package sparse.tests.storm;

import java.util.HashMap;
import java.util.Map;
import org.apache.storm.generated.ClusterSummary;
import org.apache.storm.generated.SupervisorSummary;
import org.apache.storm.utils.NimbusClient;

public final class ClusterReady {
    private ClusterReady() {}

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3) {
            System.err.println("usage: ClusterReady HOST PORT TIMEOUT_SECS");
            System.exit(2);
        }
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        long deadline = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
        // The client's defaults (plain Thrift transport, no auth) match the cluster this checks.
        Map<String, Object> conf = new HashMap<>(org.apache.storm.utils.Utils.readDefaultConfig());
        String missing = "no answer yet";
        while (true) {
            try (NimbusClient client = new NimbusClient(conf, host, port, 2000)) {
                ClusterSummary summary = client.getClient().getClusterInfo();
                int slots = 0;
                for (SupervisorSummary s : summary.get_supervisors()) {
                    slots += s.get_num_workers();
                }
                if (slots > 0) {
                    System.out.println(host + ":" + port);
                    return;
                }
                missing = "Nimbus answers but no supervisor with worker slots has registered ("
                    + summary.get_supervisors_size() + " supervisors)";
            } catch (Exception e) {
                missing = "Nimbus does not answer: " + e;
            }
            if (System.nanoTime() > deadline) {
                System.err.println("storm-cluster: not ready after " + args[2] + " s: " + missing);
                System.exit(1);
            }
            Thread.sleep(250);
        }
    }
}
