package io.fabricd.probes.bandwidth;

import io.fabricd.probes.bandwidth.BandwidthMessages.Done;
import io.fabricd.probes.bandwidth.BandwidthMessages.Go;
import io.fabricd.probes.bandwidth.BandwidthMessages.Offer;
import io.fabricd.probes.bandwidth.BandwidthMessages.Start;
import io.fabricd.probes.bandwidth.BandwidthMessages.Stop;
import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Comparator;
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

        /** Writes (or sends) into the peer for {@code millis}. */
        VerbsRc.Moved write(boolean send, List<VerbsRc.QpAddress> peer, int millis) throws IOException;

        /** Receives the peer's SENDs until {@link #stopReceiving} or {@code limitMillis}. */
        VerbsRc.Moved receive(int limitMillis) throws IOException;

        void stopReceiving();

        @Override
        void close();
    }

    /** Opens the queue pairs of a test on a port, with {@code depth} operations in flight per queue pair. */
    public interface Opener {
        QueuePairs open(VerbsPorts.Port port, long size, int qps, int depth) throws IOException;
    }

    /** Operations in flight per queue pair where this side posts (SEND receives, bidirectional writes) and the writer's: perftest's default. */
    static final int DEPTH = 128;

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
    private BandwidthSession current;
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
        // size x qps <= max, without the product (no overflow): qps is 1 or more here
        if (s.size() < 1 || s.size() > limits.maxBufferBytes() / s.qps()) {
            throw new Refused(400, "size x qps must be 1 to " + limits.maxBufferBytes() + " bytes (bandwidth.max_buffer_bytes)");
        }
        if (s.durationMs() < 1 || s.durationMs() > limits.maxDuration().toMillis()) {
            throw new Refused(400, "duration must be 1 ms to " + limits.maxDuration().toMillis() + " ms (bandwidth.max_duration)");
        }
        if (s.send() && s.bidirectional()) {
            throw new Refused(400, "a bidirectional test is RDMA WRITE only");
        }
        s.check();
        long now = clock.getAsLong();
        if (current != null) {
            long left = current.startedMillis + current.start.durationMs() - now;
            throw new Refused(409, "a bandwidth test with " + current.client + " is running (about " + Math.max(1, (left + 999) / 1000)
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
        QueuePairs rc = opener.open(port, s.size(), s.qps(), s.send() || s.bidirectional() ? DEPTH : 1);
        try {
            rc.connect(s.qp());
            Offer offer = new Offer(newId(), port.device(), port.port(), rc.addresses(), local.get().linkBps(port.device(), port.port()),
                    local.get().pcieBps(port.device()));
            current = new BandwidthSession(offer.id(), s.client(), port.device(), s, rc, now);
            lastStartMillis = now;
            if (s.send()) {
                // receives posted before the writer connects: its first SENDs find them
                int limit = (int) (s.durationMs() + grace.toMillis());
                current.work("receive", () -> rc.receive(limit));
            }
            String id = offer.id();
            reaper.schedule(() -> expire(id), s.durationMs() + grace.toMillis(), TimeUnit.MILLISECONDS);
            LOG.info("bandwidth test from " + s.client() + " into " + port.device() + " port " + port.port() + ": " + s.qps() + " x "
                    + s.size() + " B " + (s.send() ? "SEND" : "RDMA WRITE") + (s.bidirectional() ? " both ways" : "") + " for "
                    + s.durationMs() + " ms");
            return offer;
        } catch (IOException | RuntimeException e) {
            rc.close();
            throw e;
        }
    }

    /** The writer's queue pairs are connected: in a bidirectional test, this side starts writing back. */
    public synchronized void go(Go g) throws Refused {
        g.check();
        BandwidthSession c = current;
        if (c == null || !c.id.equals(g.id())) {
            throw new Refused(404, "no running bandwidth test " + g.id());
        }
        if (!c.start.bidirectional()) {
            throw new Refused(400, "test " + g.id() + " is not bidirectional");
        }
        if (c.worker != null) {
            throw new Refused(409, "test " + g.id() + " is already writing back");
        }
        int millis = (int) c.start.durationMs();
        c.work("write", () -> c.rc.write(false, c.start.qp(), millis));
    }

    /**
     * The writer is done: frees the test's queue pairs, keeps its result (and this side's writes of
     * a bidirectional test), and says what this side measured.
     */
    public Done stop(Stop s) throws Refused {
        s.check();
        BandwidthSession done = take(s.id());
        if (done == null) {
            throw new Refused(404, "no running bandwidth test " + s.id() + " (it ended by its deadline, or never started)");
        }
        done.end(grace);
        long at = clock.getAsLong();
        Start st = done.start;
        if (s.nanos() > 0 && s.bytes() >= 0) {
            keep(done.client + "\n" + done.device + "\nrx", new BandwidthResult(done.client, done.device, null, "rx", st.size(),
                    st.qps(), s.bytes(), s.messages(), s.nanos(), s.ceilingBps(), s.limit() == null ? "unknown" : s.limit(), at));
        }
        VerbsRc.Moved m = done.moved;
        if (st.bidirectional() && m != null && m.nanos() > 0) {
            // the same path the other way: the writer's ceiling, its local and peer PCIe swapped
            String limit = "local_pcie".equals(s.limit()) ? "peer_pcie" : "peer_pcie".equals(s.limit()) ? "local_pcie" : s.limit();
            keep(done.client + "\n" + done.device + "\ntx", new BandwidthResult(done.client, done.device, null, "tx", st.size(),
                    st.qps(), m.bytes(), m.messages(), m.nanos(), s.ceilingBps(), limit == null ? "unknown" : limit, at));
        }
        return m == null ? new Done(0, 0, 0) : new Done(m.bytes(), m.messages(), m.nanos());
    }

    /** Most results kept: writers name themselves, so their number is bounded here; the oldest goes first. */
    static final int MAX_RESULTS = 1024;

    private void keep(String key, BandwidthResult r) {
        synchronized (results) {
            if (!results.containsKey(key) && results.size() >= MAX_RESULTS) {
                results.entrySet().stream().min(Comparator.comparingLong(e -> e.getValue().atMillis()))
                        .ifPresent(e -> results.remove(e.getKey()));
            }
            results.put(key, r);
        }
    }

    /** The running test of {@code id}, no longer running; null when it is not the one running. */
    private synchronized BandwidthSession take(String id) {
        BandwidthSession c = current;
        if (c == null || !c.id.equals(id)) {
            return null;
        }
        current = null;
        return c;
    }

    private void expire(String id) {
        BandwidthSession done = take(id);
        if (done == null) {
            return;
        }
        LOG.warning("bandwidth test with " + done.client + " freed at its deadline: the writer did not say it finished");
        done.end(grace);
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
    public void close() {
        BandwidthSession c;
        synchronized (this) {
            c = current;
            current = null;
        }
        if (c != null) {
            c.end(Duration.ofSeconds(5));
        }
        reaper.shutdownNow();
    }
}
