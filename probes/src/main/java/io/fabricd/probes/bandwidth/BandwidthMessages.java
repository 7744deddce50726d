package io.fabricd.probes.bandwidth;

import io.fabricd.probes.bandwidth.VerbsRc.QpAddress;
import java.util.List;

/**
 * What two agents say to each other around a bandwidth test, as JSON over the authenticated
 * endpoint API (docs/bandwidth.md): the writer asks to {@code start} with its queue pairs, the agent
 * written to answers with an {@code Offer} of its own, and the writer {@code stop}s with what it
 * measured. In a bidirectional test the writer says {@code go} once its queue pairs are connected,
 * and the agent writes back until the writer stops.
 */
public final class BandwidthMessages {
    public static final String START_PATH = "/api/v1/bandwidth/start";
    public static final String GO_PATH = "/api/v1/bandwidth/go";
    public static final String STOP_PATH = "/api/v1/bandwidth/stop";

    private BandwidthMessages() {
    }

    /**
     * @param client   the writer's node name (the label its result is kept under)
     * @param device   the RDMA device the writer wants written to; null: the agent's first ACTIVE port
     * @param pcieBps  the writer's NIC PCIe data rate, null when unknown
     * @param send     SENDs into receives the agent posts (ib_send_bw) instead of RDMA WRITEs
     * @param bidirectional the agent writes back at the same time (RDMA WRITE only)
     */
    public record Start(String client, String device, long size, int qps, long durationMs, List<QpAddress> qp, Double pcieBps,
                        boolean send, boolean bidirectional) {
    }

    /** The writer's queue pairs are connected: the agent may write back (bidirectional). */
    public record Go(String id) {
    }

    /** What the agent measured on its side: SENDs received, or its own writes of a bidirectional test. */
    public record Done(long bytes, long messages, long nanos) {
    }

    /** The agent's queue pairs, connected to the writer's, and what its side can carry. */
    public record Offer(String id, String device, int port, List<QpAddress> qp, Double linkBps, Double pcieBps) {
    }

    /** What the writer measured, sent when it is done. */
    public record Stop(String id, long bytes, long messages, long nanos, Double ceilingBps, String limit) {
    }
}
