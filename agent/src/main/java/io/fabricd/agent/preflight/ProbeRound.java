package io.fabricd.agent.preflight;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.fabricd.gate.wire.PreflightWire;
import io.fabricd.gate.wire.PreflightWire.PeerResult;
import io.fabricd.model.OneLine;
import io.fabricd.natives.LibC;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.ProbeResult;
import io.fabricd.probes.mesh.UdpPeerProbe;
import io.fabricd.probes.peers.Endpoint;
import io.fabricd.probes.peers.EndpointClient;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * {@code POST /api/v1/preflight/probe}: an on-demand UDP probe round from this agent to the peers a
 * request names, as {@code fabricd probe} runs one ({@link UdpPeerProbe}): each peer's endpoint
 * asked with the key, then {@code count} probes of {@code size} from a socket of the round's own,
 * closed after it. The pingmesh's sockets, threads and windows are not touched. One round at a time,
 * {@link #PER_MINUTE} a minute and {@link #PROBES_PER_MINUTE} probes a minute ({@link Admission}: 429
 * otherwise, never a queue); a round ends
 * within {@link #BOUND}: every peer at once on threads of the round, the endpoint asked within what
 * the bound leaves after the probes ({@link #endpointWithin}), the probes paced to go out within
 * {@link #SENDING} and each waited for at most one second.
 */
public final class ProbeRound {
    public static final String PATH = PreflightWire.PROBE;
    public static final int MAX_PEERS = 64;
    public static final int MAX_COUNT = 1000;
    public static final int MIN_SIZE = 64;
    public static final int MAX_SIZE = 9000;
    /**
     * Rounds a minute: one a second on average. A gate asks each agent for a round or two (one more
     * for the pairs a round left short) and takes seconds, so gates run back to back never meet it.
     */
    public static final int PER_MINUTE = 60;
    /**
     * Probes asked a minute, each round's peers times its count: six rounds of the most peers and
     * probes a request may ask, as many as a minute allowed before the rounds were counted by size.
     */
    public static final long PROBES_PER_MINUTE = 6L * MAX_PEERS * MAX_COUNT;
    /** The longest a round takes, start to answer. */
    static final Duration BOUND = Duration.ofSeconds(10);
    /** The least time a peer's endpoint is asked within (and connecting to it, always). */
    static final Duration ENDPOINT_TIMEOUT = Duration.ofSeconds(2);
    /** Kept of {@link #BOUND} for the request before the round and its answer after. */
    private static final Duration MARGIN = Duration.ofMillis(500);
    static final Duration SENDING = Duration.ofSeconds(4);
    private static final Duration MAX_WAIT = Duration.ofSeconds(1);
    private static final Logger LOG = Logger.getLogger(ProbeRound.class.getName());

    private final ProbeKey key;
    private final LibC libc;
    private final EndpointClient endpoints;
    private final Duration pacing;
    private final Duration timeout;
    private final Supplier<String> node;
    private final Admission admission = new Admission("a preflight probe round", PER_MINUTE, PROBES_PER_MINUTE, "probes",
            () -> System.nanoTime() / 1_000_000);

    /**
     * @param pacing  probe.pacing: the time between two probes, shortened when {@code count} of them would not fit {@link #SENDING}
     * @param timeout probe.timeout: answers later than this (at most one second here) are late
     */
    public ProbeRound(ProbeKey key, LibC libc, boolean tls, Duration pacing, Duration timeout, Supplier<String> node) {
        this.key = key;
        this.libc = libc;
        this.endpoints = new EndpointClient(key, ENDPOINT_TIMEOUT, tls);
        this.pacing = pacing;
        this.timeout = timeout.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : timeout;
        this.node = node;
    }

    /**
     * The answer to an authenticated body: at once when it is refused (400, 429), else when the
     * round is over, from the round's own thread. Called off the event loop.
     */
    public CompletableFuture<Answer> answer(byte[] body) {
        PreflightWire.ProbeRequest r;
        List<String> peers;
        try {
            r = Requests.read(body, PreflightWire.ProbeRequest.class, null);
            peers = Requests.peers(r.peers(), 1, MAX_PEERS);
            if (r.count() == null || r.count() < 1 || r.count() > MAX_COUNT) {
                throw new Requests.Bad("count must be 1 to " + MAX_COUNT + " probes per peer");
            }
            if (r.size() == null || r.size() < MIN_SIZE || r.size() > MAX_SIZE) {
                throw new Requests.Bad("size must be " + MIN_SIZE + " to " + MAX_SIZE + " bytes");
            }
        } catch (Requests.Bad e) {
            return CompletableFuture.completedFuture(Answer.line(400, e.getMessage()));
        }
        Admission.Refusal no = admission.enter(BOUND.toMillis(), (long) peers.size() * r.count());
        if (no != null) {
            return CompletableFuture.completedFuture(no.answer());
        }
        CompletableFuture<Answer> done = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            ExecutorService pool = Executors.newFixedThreadPool(peers.size(), x -> {
                Thread p = new Thread(x, "fabricd-preflight-probe");
                p.setDaemon(true);
                return p;
            });
            Answer answer;
            try {
                List<PeerResult> results = run(pool, peers, r.count(), r.size());
                PreflightWire.ProbeAnswer doc = new PreflightWire.ProbeAnswer(PreflightWire.VERSION, node.get(), results);
                answer = Answer.json(PreflightWire.ANSWERS.writeValueAsBytes(doc));
            } catch (JsonProcessingException | RuntimeException e) {
                answer = Answer.line(500, "the probe round failed: " + OneLine.of(String.valueOf(e)));
            } finally {
                pool.shutdownNow();
                try {
                    // a session ends on its own within its pace and timeouts: the next round starts after it
                    pool.awaitTermination(BOUND.toMillis(), TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                admission.leave();
            }
            // answered once the round has left: a requester that asks again at once is not told "running"
            done.complete(answer);
        }, "fabricd-preflight-round");
        t.setDaemon(true);
        t.start();
        return done;
    }

    /** The round: every peer at once, each within what is left of {@link #BOUND}. */
    private List<PeerResult> run(ExecutorService pool, List<String> peers, int count, int size) {
        long deadline = System.nanoTime() + BOUND.toNanos() - MARGIN.toNanos();
        Duration pace = pacing.multipliedBy(count).compareTo(SENDING) > 0 ? SENDING.dividedBy(count) : pacing;
        Duration asking = endpointWithin(pace, count, timeout);
        Map<String, Future<PeerResult>> running = new LinkedHashMap<>();
        for (String peer : peers) {
            running.put(peer, pool.submit(() -> probe(peer, count, size, pace, asking)));
        }
        List<PeerResult> out = new ArrayList<>();
        for (Map.Entry<String, Future<PeerResult>> e : running.entrySet()) {
            out.add(result(e.getKey(), e.getValue(), deadline));
        }
        return out;
    }

    private static PeerResult result(String peer, Future<PeerResult> f, long deadline) {
        try {
            return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            return PeerResult.failed(peer, null, "no result within the round's " + BOUND.toSeconds() + " s");
        } catch (ExecutionException e) {
            return PeerResult.failed(peer, null, e.getCause() == null ? e.toString() : String.valueOf(e.getCause().getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return PeerResult.failed(peer, null, "interrupted");
        }
    }

    /**
     * How long a peer's endpoint may take: what {@link #BOUND} leaves after the probes go out at
     * {@code pace} and the last answers are waited for (two {@code timeout}s), at least
     * {@link #ENDPOINT_TIMEOUT}. An agent just started on a busy host can take seconds to give its
     * endpoint the first time; the gate's rounds (50 probes at the default 10 ms) leave it 7 s.
     */
    static Duration endpointWithin(Duration pace, int count, Duration timeout) {
        Duration left = BOUND.minus(MARGIN).minus(pace.multipliedBy(count)).minus(timeout.multipliedBy(2));
        return left.compareTo(ENDPOINT_TIMEOUT) > 0 ? left : ENDPOINT_TIMEOUT;
    }

    /**
     * One peer: its endpoint asked at its address, resolved once, and the probes sent to that very
     * address at the UDP port its signed endpoint names: only an address whose agent proved it holds
     * the key gets probes, whatever a name resolves to from one lookup to the next.
     */
    private PeerResult probe(String peer, int count, int size, Duration pace, Duration asking) {
        String at;
        try {
            InetAddress a = InetAddress.getByName(EndpointClient.host(peer));
            at = (a instanceof Inet6Address ? "[" + a.getHostAddress() + "]" : a.getHostAddress()) + peer.substring(peer.lastIndexOf(':'));
        } catch (UnknownHostException e) {
            return PeerResult.failed(peer, null, "cannot resolve host " + EndpointClient.host(peer));
        }
        Endpoint ep;
        try {
            ep = endpoints.fetch(at, asking);
        } catch (IOException e) {
            return PeerResult.failed(peer, null, e.getMessage());
        }
        if (ep.udpPort() == null) {
            return PeerResult.failed(peer, ep.host(), peer + " runs no UDP responder");
        }
        try {
            UdpPeerProbe.Sized s = UdpPeerProbe.run(libc, key, at, ep, List.of(size), count, pace, timeout, x -> { }).get(0);
            if (s.result() == null) {
                return PeerResult.failed(peer, ep.host(), s.error());
            }
            ProbeResult r = s.result();
            Map<String, Double> q = r.rttSeconds();
            long[] hold = r.responderNanos();
            boolean held = hold != null && hold.length > 0;
            return new PeerResult(peer, ep.host(), r.sent(), r.lost(), r.late(), q == null ? null : q.get("p50"),
                    q == null ? null : q.get("p99"), held ? ProbeResult.quantile(hold, 0.5) : null,
                    held ? ProbeResult.quantile(hold, 0.9) : null, null);
        } catch (IOException | RuntimeException e) {
            LOG.fine("preflight probe of " + peer + ": " + e);
            return PeerResult.failed(peer, ep.host(), peer + ": " + e.getMessage());
        }
    }
}
