package io.fabricd.agent.preflight;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.model.OneLine;
import io.fabricd.probes.bandwidth.BandwidthClient;
import io.fabricd.probes.bandwidth.BandwidthResult;
import io.fabricd.probes.bandwidth.BandwidthSchedule;
import io.fabricd.probes.bandwidth.Ceiling;
import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code POST /api/v1/preflight/bandwidth}: one RDMA WRITE bandwidth test from this agent's first
 * ACTIVE port into a peer, as {@code fabricd bw} runs one ({@link BandwidthClient}, one queue
 * pair); the peer serves it as any test, one at a time and within its {@code bandwidth.*} limits.
 * Here too one at a time: the slot is the one the agent's own scheduled tests take, and none starts
 * while a test into this host runs (429 with when to ask again, never a queue). An agent that
 * cannot write (a snapshot, no verbs) says why (503), and so does one whose test did not start (the
 * peer refused it or could not be asked: 503); a test the peer accepted that then failed (the queue
 * pairs did not connect, the writes did not complete) is 502, the link's failure. The test runs on
 * a thread of its own.
 */
public final class PreflightBandwidth {
    public static final String PATH = PreflightWire.BANDWIDTH;
    /**
     * Longest test asked for. The requester's connection waits for the answer with nothing written
     * to it, and the agent closes a connection it has not written to for {@code http.idle_timeout}
     * (30 s by default): the test and its setup must end before that, so an agent whose idle
     * timeout is shorter takes less ({@link #maxDurationMs}).
     */
    public static final long MAX_DURATION_MS = 20_000;
    /** Largest message: bandwidth.max_buffer_bytes' default (the writer registers as much). */
    public static final long MAX_SIZE = 64L << 20;
    static final long DEFAULT_DURATION_MS = 5_000;
    static final long DEFAULT_SIZE = 65_536;
    /** Beyond the duration: setting up and tearing down the queue pairs, the exchanges with the peer. */
    private static final long OVERHEAD_MS = 5_000;
    private static final Pattern PEER_BUSY = Pattern.compile(" answered (409|429): ");
    private static final Pattern SECONDS = Pattern.compile("(\\d{1,4}) s\\b");

    private final String off;
    private final BandwidthSchedule.Runner runner;
    private final Supplier<VerbsPorts.Port> port;
    private final Supplier<Ceiling.Local> local;
    private final Semaphore writes;
    private final BooleanSupplier written;
    private final Supplier<String> node;
    private final long maxDurationMs;
    private volatile long runningUntilMillis;

    /**
     * @param off     why this agent runs no tests (a snapshot, no verbs); null when it can
     * @param runner  one test, as {@link BandwidthClient#run}
     * @param port    the local port to write from; null when there is none ACTIVE
     * @param writes  the agent's one slot for tests it writes (shared with bandwidth.interval's)
     * @param written whether a test into this host is running
     * @param idle    http.idle_timeout: the answer must be written before it
     */
    public PreflightBandwidth(String off, BandwidthSchedule.Runner runner, Supplier<VerbsPorts.Port> port, Supplier<Ceiling.Local> local,
                              Semaphore writes, BooleanSupplier written, Supplier<String> node, Duration idle) {
        this.off = off;
        this.runner = runner;
        this.port = port;
        this.local = local;
        this.writes = writes;
        this.written = written;
        this.node = node;
        this.maxDurationMs = maxDurationMs(idle);
    }

    /** The longest test this agent runs: {@link #MAX_DURATION_MS}, less when its idle timeout would close the requester's connection first. */
    static long maxDurationMs(Duration idle) {
        return Math.max(0, Math.min(MAX_DURATION_MS, idle.toMillis() - OVERHEAD_MS));
    }

    /** The answer to an authenticated body: at once when refused (400, 503, 429), else when the test is over. Off the event loop. */
    public CompletableFuture<Answer> answer(byte[] body) {
        PreflightWire.BandwidthRequest r;
        try {
            r = Requests.read(body, PreflightWire.BandwidthRequest.class, null);
            String why = Requests.notHostPort(r.peer());
            if (why != null) {
                throw new Requests.Bad(why);
            }
            if (maxDurationMs < 1) {
                throw new Requests.Bad("this agent's http.idle_timeout is too short for a bandwidth test: it would close the connection "
                        + "before the answer (set it to more than " + OVERHEAD_MS / 1000 + " s)");
            }
            if (r.durationMs() != null && (r.durationMs() < 1 || r.durationMs() > maxDurationMs)) {
                throw new Requests.Bad("duration_ms must be 1 to " + maxDurationMs + (maxDurationMs < MAX_DURATION_MS
                        ? ": this agent's http.idle_timeout closes a connection not written to for longer than that and the test's setup"
                        : ""));
            }
            if (r.size() != null && (r.size() < 1 || r.size() > MAX_SIZE)) {
                throw new Requests.Bad("size must be 1 to " + MAX_SIZE + " bytes");
            }
        } catch (Requests.Bad e) {
            return CompletableFuture.completedFuture(Answer.line(400, e.getMessage()));
        }
        if (off != null) {
            return CompletableFuture.completedFuture(Answer.line(503, off));
        }
        long duration = r.durationMs() == null ? Math.min(DEFAULT_DURATION_MS, maxDurationMs) : r.durationMs();
        long size = r.size() == null ? DEFAULT_SIZE : r.size();
        if (written.getAsBoolean()) {
            return CompletableFuture.completedFuture(Answer.busy("a bandwidth test into this host is running; one at a time: ask again "
                    + "later", 5));
        }
        if (!writes.tryAcquire()) {
            long left = runningUntilMillis - System.currentTimeMillis();
            return CompletableFuture.completedFuture(Answer.busy("a bandwidth test from this agent is running; one at a time: ask again "
                    + "later", left > 0 ? (left + 999) / 1000 : 5));
        }
        runningUntilMillis = System.currentTimeMillis() + duration + OVERHEAD_MS;
        CompletableFuture<Answer> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                done.complete(run(r.peer(), duration, size));
            } catch (RuntimeException e) {
                done.complete(Answer.line(500, "the bandwidth test failed here: " + OneLine.of(String.valueOf(e))));
            } finally {
                writes.release();
            }
        }, "fabricd-preflight-bandwidth");
        t.setDaemon(true);
        t.start();
        return done;
    }

    private Answer run(String peer, long duration, long size) {
        VerbsPorts.Port p = port.get();
        if (p == null) {
            return Answer.line(503, "no ACTIVE RDMA port on this host: no bandwidth test from here");
        }
        List<BandwidthResult> results;
        try {
            results = runner.run(peer, p, local.get(), new BandwidthClient.Options(null, size, Duration.ofMillis(duration), 1, false, false));
        } catch (BandwidthClient.Failed e) {
            // the peer took the test, then the queue pairs did not connect or the writes did not complete: the link's
            return Answer.line(502, "the bandwidth test to " + OneLine.of(peer) + " failed after the peer accepted it: "
                    + OneLine.of(e.getMessage()));
        } catch (IOException e) {
            String why = OneLine.of(e.getMessage());
            if (PEER_BUSY.matcher(why).find()) {
                Matcher m = SECONDS.matcher(why);
                return Answer.busy("the peer is busy: " + why, m.find() ? Long.parseLong(m.group(1)) : 10);
            }
            // refused by the peer, the peer not asked, or this host's verbs: no test ran
            return Answer.line(503, "the bandwidth test to " + OneLine.of(peer) + " did not start: " + why);
        }
        BandwidthResult tx = results.get(0);
        try {
            return Answer.json(PreflightWire.ANSWERS.writeValueAsBytes(new PreflightWire.BandwidthAnswer(PreflightWire.VERSION, node.get(),
                    peer, tx.bps(), tx.ceilingBps(), tx.ratio(), tx.limit())));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
