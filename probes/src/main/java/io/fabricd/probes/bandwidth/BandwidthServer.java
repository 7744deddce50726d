package io.fabricd.probes.bandwidth;

import io.fabricd.probes.VerbsPorts;
import io.fabricd.probes.bandwidth.BandwidthMessages.Offer;
import io.fabricd.probes.bandwidth.BandwidthMessages.Start;
import io.fabricd.probes.bandwidth.BandwidthMessages.Stop;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * The side written to: serves bandwidth tests to authenticated peers (the HTTP layer checks the
 * key), one at a time, each bounded in duration, buffer memory and how often one may start. A test
 * holds its queue pairs until the writer says it is done or its deadline passes (a writer that
 * vanished), then frees them; the writer's result is kept per peer for the metrics.
 */
public final class BandwidthServer implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(BandwidthServer.class.getName());
    private static final SecureRandom RANDOM = new SecureRandom();
    /** Time past a test's duration before its queue pairs are freed without word from the writer. */
    static final Duration GRACE = Duration.ofSeconds(10);

    /**
     * @param maxDuration    longest test served
     * @param maxBufferBytes most memory registered for one test (message size x queue pairs)
     * @param maxQps         most queue pairs of one test
     * @param minInterval    least time between the starts of two tests
     */
    public record Limits(Duration maxDuration, long maxBufferBytes, int maxQps, Duration minInterval) {
    }

    /** A test refused, with the HTTP status that says why. */
    public static final class Refused extends Exception {
        private final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }

        public int status() {
            return status;
        }
    }

    /** The queue pairs a test holds open while the peer writes into them ({@link VerbsRc}). */
    public interface QueuePairs extends AutoCloseable {
        List<VerbsRc.QpAddress> addresses() throws IOException;

        void connect(List<VerbsRc.QpAddress> peer) throws IOException;

        @Override
        void close();
    }

    /** Opens the queue pairs of a test on a port. */
    public interface Opener {
        QueuePairs open(VerbsPorts.Port port, long size, int qps) throws IOException;
    }

    private record Session(String id, String client, String device, Start start, QueuePairs rc, long startedMillis) {
    }

    private final Limits limits;
    private final Function<String, VerbsPorts.Port> ports;
    private final Supplier<Ceiling.Local> local;
    private final Opener opener;
    private final LongSupplier clock;
    private final ScheduledExecutorService reaper = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "fabricd-bandwidth");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, BandwidthResult> results = new ConcurrentHashMap<>();
    private Duration grace = GRACE;
    private Session current;
    private long lastStartMillis = Long.MIN_VALUE / 2;

    /**
     * @param ports  the port to serve on by device name (null: the first ACTIVE port); null when there is none
     * @param local  this host's side of the ceiling, for a device
     * @param clock  epoch milliseconds
     */
    public BandwidthServer(Limits limits, Function<String, VerbsPorts.Port> ports, Supplier<Ceiling.Local> local, Opener opener,
                           LongSupplier clock) {
        this.limits = limits;
        this.ports = ports;
        this.local = local;
        this.opener = opener;
        this.clock = clock;
    }

    /** A shorter grace than {@link #GRACE} (tests). */
    BandwidthServer grace(Duration g) {
        this.grace = g;
        return this;
    }

    /** Opens and connects queue pairs for the writer's; the offer to write into. */
    public synchronized Offer start(Start s) throws Refused, IOException {
        if (s.qps() < 1 || s.qps() > Math.min(limits.maxQps(), VerbsRc.MAX_QPS)) {
            throw new Refused(400, "qps must be 1 to " + Math.min(limits.maxQps(), VerbsRc.MAX_QPS));
        }
        if (s.size() < 1 || s.size() * s.qps() > limits.maxBufferBytes()) {
            throw new Refused(400, "size x qps must be 1 to " + limits.maxBufferBytes() + " bytes (bandwidth.max_buffer)");
        }
        if (s.durationMs() < 1 || s.durationMs() > limits.maxDuration().toMillis()) {
            throw new Refused(400, "duration must be 1 ms to " + limits.maxDuration().toMillis() + " ms (bandwidth.max_duration)");
        }
        if (s.qp() == null || s.qp().size() != s.qps()) {
            throw new Refused(400, "qp must list " + s.qps() + " queue pairs");
        }
        long now = clock.getAsLong();
        if (current != null) {
            long left = current.startedMillis() + current.start().durationMs() - now;
            throw new Refused(409, "a bandwidth test with " + current.client() + " is running (about " + Math.max(1, (left + 999) / 1000)
                    + " s left); one at a time");
        }
        if (now - lastStartMillis < limits.minInterval().toMillis()) {
            long wait = lastStartMillis + limits.minInterval().toMillis() - now;
            throw new Refused(429, "the last bandwidth test started " + (now - lastStartMillis) / 1000 + " s ago; the next one in "
                    + (wait + 999) / 1000 + " s (bandwidth.min_interval)");
        }
        VerbsPorts.Port port = ports.apply(s.device());
        if (port == null) {
            throw new Refused(404, s.device() == null ? "no ACTIVE RDMA port to serve a bandwidth test on"
                    : "no ACTIVE RDMA port on device " + s.device());
        }
        QueuePairs rc = opener.open(port, s.size(), s.qps());
        try {
            rc.connect(s.qp());
            Offer offer = new Offer(newId(), port.device(), port.port(), rc.addresses(), local.get().linkBps(port.device(), port.port()),
                    local.get().pcieBps(port.device()));
            current = new Session(offer.id(), s.client(), port.device(), s, rc, now);
            lastStartMillis = now;
            String id = offer.id();
            reaper.schedule(() -> expire(id), s.durationMs() + grace.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("bandwidth test from " + s.client() + " into " + port.device() + " port " + port.port() + ": " + s.qps() + " x "
                    + s.size() + " B for " + s.durationMs() + " ms");
            return offer;
        } catch (IOException | RuntimeException e) {
            rc.close();
            throw e;
        }
    }

    /** The writer is done: frees the test's queue pairs and keeps its result. */
    public synchronized void stop(Stop s) throws Refused {
        if (current == null || !current.id().equals(s.id())) {
            throw new Refused(404, "no running bandwidth test " + s.id() + " (it ended by its deadline, or never started)");
        }
        Session done = current;
        end();
        if (s.nanos() > 0 && s.bytes() >= 0) {
            results.put(done.client() + "\n" + done.device(), new BandwidthResult(done.client(), done.device(), null, "rx",
                    done.start().size(), done.start().qps(), s.bytes(), s.messages(), s.nanos(), s.ceilingBps(),
                    s.limit() == null ? "unknown" : s.limit(), clock.getAsLong()));
        }
    }

    private synchronized void expire(String id) {
        if (current != null && current.id().equals(id)) {
            LOG.warning("bandwidth test with " + current.client() + " freed at its deadline: the writer did not say it finished");
            end();
        }
    }

    private void end() {
        current.rc().close();
        current = null;
    }

    /** Whether a test is running now. */
    public synchronized boolean busy() {
        return current != null;
    }

    /** The last result per peer and device this agent was written to by. */
    public Map<String, BandwidthResult> results() {
        return Map.copyOf(results);
    }

    private static String newId() {
        byte[] b = new byte[12];
        RANDOM.nextBytes(b);
        return HexFormat.of().formatHex(b);
    }

    @Override
    public synchronized void close() {
        if (current != null) {
            end();
        }
        reaper.shutdownNow();
    }
}
