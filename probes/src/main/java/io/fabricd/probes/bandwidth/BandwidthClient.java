package io.fabricd.probes.bandwidth;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.natives.VerbsShim;
import io.fabricd.probes.bandwidth.BandwidthMessages.Done;
import io.fabricd.probes.bandwidth.BandwidthMessages.Go;
import io.fabricd.probes.bandwidth.BandwidthMessages.Offer;
import io.fabricd.probes.bandwidth.BandwidthMessages.Start;
import io.fabricd.probes.bandwidth.BandwidthMessages.Stop;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.probes.verbs.VerbsPorts;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * The writer's side of a bandwidth test, as ib_write_bw's client: opens RC queue pairs on a local
 * port, asks the peer agent (authenticated) for queue pairs of its own, writes into them for the
 * duration, and tells the peer what it measured.
 */
public final class BandwidthClient {
    private static final Logger LOG = Logger.getLogger(BandwidthClient.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * @param peerDevice the peer's RDMA device to write into; null: its first ACTIVE port
     * @param size       bytes per RDMA WRITE
     */
    public record Options(String peerDevice, long size, Duration duration, int qps, boolean send, boolean bidirectional) {
        public static final long DEFAULT_SIZE = 65_536;
        public static final Duration DEFAULT_DURATION = Duration.ofSeconds(5);
    }

    /**
     * A test the peer accepted (it offered its queue pairs) that then failed: the queue pairs did not
     * connect, or the writes did not complete. Every other IOException of {@link #run} comes before
     * the peer took the test (it refused, was busy, could not be asked) or from this host.
     */
    public static final class Failed extends IOException {
        private static final long serialVersionUID = 1L;

        public Failed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final VerbsShim verbs;
    private final EndpointClient endpoints;
    private final String hostname;

    public BandwidthClient(VerbsShim verbs, EndpointClient endpoints, String hostname) {
        this.verbs = verbs;
        this.endpoints = endpoints;
        this.hostname = hostname;
    }

    /**
     * One test: writes (or sends) from {@code port} into {@code peer} (HOST:PORT of its agent); with
     * {@link Options#bidirectional} also the peer's writes back, as a second result ({@code rx}).
     */
    public List<BandwidthResult> run(String peer, VerbsPorts.Port port, Ceiling.Local local, Options o) throws IOException {
        try (VerbsRc rc = new VerbsRc(verbs, port.device(), port.port(), port.gidIndex(), o.size(), o.qps(), BandwidthServer.DEPTH)) {
            Double localPcie = local.pcieBps(port.device());
            Start start = new Start(hostname, o.peerDevice(), o.size(), o.qps(), o.duration().toMillis(), rc.addresses(), localPcie,
                    o.send(), o.bidirectional());
            Offer offer = read(peer, endpoints.post(peer, BandwidthMessages.START_PATH, JSON.writeValueAsBytes(start)), Offer.class);
            if (offer.qp() == null || offer.qp().size() != o.qps()) {
                throw new IOException(peer + " offered " + (offer.qp() == null ? 0 : offer.qp().size()) + " queue pairs, not " + o.qps());
            }
            VerbsRc.Moved moved;
            try {
                rc.connect(offer.qp());
                // the peer frees its queue pairs BandwidthServer.GRACE (10 s) past the duration: 2 s of it at most here
                CompilerQuiet.await(Duration.ofSeconds(2));
                if (o.bidirectional()) {
                    endpoints.post(peer, BandwidthMessages.GO_PATH, JSON.writeValueAsBytes(new Go(offer.id())));
                }
                moved = rc.write(o.send(), offer.qp(), (int) o.duration().toMillis());
            } catch (IOException e) {
                throw new Failed("bandwidth test with " + peer + " (" + offer.device() + ") failed: " + e.getMessage(), e);
            }
            Double link = min(local.linkBps(port.device(), port.port()), offer.linkBps());
            Ceiling c = new Ceiling(link, localPcie, offer.pcieBps());
            long at = System.currentTimeMillis();
            List<BandwidthResult> out = new ArrayList<>();
            out.add(new BandwidthResult(peer, port.device(), offer.device(), "tx", o.size(), o.qps(), moved.bytes(), moved.messages(),
                    moved.nanos(), c.bps(), c.limit(), at));
            Done done = null;
            try {
                done = read(peer, endpoints.post(peer, BandwidthMessages.STOP_PATH, JSON.writeValueAsBytes(
                        new Stop(offer.id(), moved.bytes(), moved.messages(), moved.nanos(), c.bps(), c.limit()))), Done.class);
            } catch (IOException e) {
                // the peer frees the queue pairs at its deadline anyway; the measurement stands
                LOG.warning("could not tell " + peer + " the bandwidth test ended: " + e.getMessage());
            }
            if (o.bidirectional()) {
                if (done == null || done.nanos() <= 0) {
                    throw new IOException(peer + " did not say what it wrote back in the bidirectional test");
                }
                String back = "local_pcie".equals(c.limit()) ? "peer_pcie" : "peer_pcie".equals(c.limit()) ? "local_pcie" : c.limit();
                out.add(new BandwidthResult(peer, port.device(), offer.device(), "rx", o.size(), o.qps(), done.bytes(), done.messages(),
                        done.nanos(), c.bps(), back, at));
            }
            return out;
        }
    }

    private static Double min(Double a, Double b) {
        return a == null ? b : b == null ? a : Math.min(a, b);
    }

    private static <T> T read(String peer, byte[] body, Class<T> type) throws IOException {
        try {
            return JSON.readValue(body, type);
        } catch (JacksonException e) {
            throw new IOException(peer + " sent a bandwidth answer fabricd cannot read: " + e.getOriginalMessage());
        }
    }
}
