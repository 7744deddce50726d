package io.fabricd.probes.bandwidth;

import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Bandwidth tests an agent runs on its own, slowly (bandwidth.interval, off by default): each time,
 * the next peer of the probe plan in turn, one test from this host's first ACTIVE port. The last
 * result per peer is kept ({@code direction="tx"}). A peer busy with another test, or one that
 * cannot be reached, is tried again when its turn comes back; the log says so once per change.
 */
public final class BandwidthSchedule implements Runnable {
    private static final Logger LOG = Logger.getLogger(BandwidthSchedule.class.getName());

    /** Runs one test, as {@link BandwidthClient#run}. */
    public interface Runner {
        List<BandwidthResult> run(String peer, VerbsPorts.Port port, Ceiling.Local local, BandwidthClient.Options o) throws IOException;
    }

    private final Supplier<List<String>> peers;
    private final Supplier<VerbsPorts.Port> port;
    private final Supplier<Ceiling.Local> local;
    private final Runner runner;
    private final BandwidthClient.Options options;
    private final Map<String, BandwidthResult> results = new ConcurrentHashMap<>();
    private final Map<String, String> failing = new ConcurrentHashMap<>();
    private int next;

    public BandwidthSchedule(Supplier<List<String>> peers, Supplier<VerbsPorts.Port> port, Supplier<Ceiling.Local> local, Runner runner,
                             BandwidthClient.Options options) {
        this.peers = peers;
        this.port = port;
        this.local = local;
        this.runner = runner;
        this.options = options;
    }

    /** One turn: a test to the next planned peer. */
    @Override
    public synchronized void run() {
        List<String> plan = peers.get();
        results.keySet().retainAll(plan); // a peer that left the plan leaves the metrics
        if (plan.isEmpty()) {
            return;
        }
        String peer = plan.get(Math.floorMod(next++, plan.size()));
        VerbsPorts.Port p = port.get();
        if (p == null) {
            note(peer, "no ACTIVE RDMA port on this host");
            return;
        }
        try {
            results.put(peer, runner.run(peer, p, local.get(), options).get(0));
            if (failing.remove(peer) != null) {
                LOG.info("bandwidth test to " + peer + " ran again");
            }
        } catch (IOException | RuntimeException e) {
            note(peer, e.getMessage());
        }
    }

    private void note(String peer, String why) {
        if (!why.equals(failing.put(peer, why))) {
            LOG.warning("scheduled bandwidth test to " + peer + " did not run: " + why + " (tried again on its next turn)");
        }
    }

    /** The last result per planned peer. */
    public Map<String, BandwidthResult> results() {
        return Map.copyOf(results);
    }
}
