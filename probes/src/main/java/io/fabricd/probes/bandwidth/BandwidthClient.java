package io.fabricd.probes.bandwidth;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabricd.probes.EndpointClient;
import io.fabricd.probes.VerbsPorts;
import io.fabricd.probes.bandwidth.BandwidthMessages.Offer;
import io.fabricd.probes.bandwidth.BandwidthMessages.Start;
import io.fabricd.probes.bandwidth.BandwidthMessages.Stop;
import java.io.IOException;
import java.time.Duration;
import java.util.logging.Logger;

/**
 * The writer's side of a bandwidth test, as ib_write_bw's client: opens RC queue pairs on a local
 * port, asks the peer agent (authenticated) for queue pairs of its own, writes into them for the
 * duration, and tells the peer what it measured.
 */
public final class BandwidthClient {
    private static final Logger LOG = Logger.getLogger(BandwidthClient.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    /** Writes in flight per queue pair: perftest's default tx depth. */
    static final int DEPTH = 128;

    /**
     * @param peerDevice the peer's RDMA device to write into; null: its first ACTIVE port
     * @param size       bytes per RDMA WRITE
     */
    public record Options(String peerDevice, long size, Duration duration, int qps) {
        public static final long DEFAULT_SIZE = 65_536;
        public static final Duration DEFAULT_DURATION = Duration.ofSeconds(5);
    }

    private final EndpointClient endpoints;
    private final String hostname;

    public BandwidthClient(EndpointClient endpoints, String hostname) {
        this.endpoints = endpoints;
        this.hostname = hostname;
    }

    /** One test: writes from {@code port} into {@code peer} (HOST:PORT of its agent). */
    public BandwidthResult run(String peer, VerbsPorts.Port port, Ceiling.Local local, Options o) throws IOException {
        try (VerbsRc rc = new VerbsRc(port.device(), port.port(), port.gidIndex(), o.size(), o.qps(), DEPTH)) {
            Double localPcie = local.pcieBps(port.device());
            Start start = new Start(hostname, o.peerDevice(), o.size(), o.qps(), o.duration().toMillis(), rc.addresses(), localPcie);
            Offer offer = read(peer, endpoints.post(peer, BandwidthMessages.START_PATH, JSON.writeValueAsBytes(start)), Offer.class);
            if (offer.qp() == null || offer.qp().size() != o.qps()) {
                throw new IOException(peer + " offered " + (offer.qp() == null ? 0 : offer.qp().size()) + " queue pairs, not " + o.qps());
            }
            VerbsRc.Moved moved;
            try {
                rc.connect(offer.qp());
                moved = rc.write(offer.qp(), (int) o.duration().toMillis());
            } catch (IOException e) {
                throw new IOException("bandwidth test with " + peer + " (" + offer.device() + ") failed: " + e.getMessage()
                        + (e.getMessage().contains("retry") ? " (did the peer go away?)" : ""), e);
            }
            Double link = min(local.linkBps(port.device(), port.port()), offer.linkBps());
            Ceiling c = new Ceiling(link, localPcie, offer.pcieBps());
            BandwidthResult r = new BandwidthResult(peer, port.device(), offer.device(), "tx", o.size(), o.qps(),
                    moved.bytes(), moved.messages(), moved.nanos(), c.bps(), c.limit(), System.currentTimeMillis());
            try {
                endpoints.post(peer, BandwidthMessages.STOP_PATH, JSON.writeValueAsBytes(
                        new Stop(offer.id(), r.bytes(), r.messages(), r.nanos(), r.ceilingBps(), r.limit())));
            } catch (IOException e) {
                // the peer frees the queue pairs at its deadline anyway; the measurement stands
                LOG.warning("could not tell " + peer + " the bandwidth test ended: " + e.getMessage());
            }
            return r;
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
