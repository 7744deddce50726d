package io.fabricd.probes.bandwidth;

import io.fabricd.probes.bandwidth.BandwidthServer.Refused;
import io.fabricd.probes.bandwidth.VerbsRc.QpAddress;
import java.util.List;
import java.util.Set;

/**
 * What two agents say to each other around a bandwidth test, as JSON over the authenticated
 * endpoint API (docs/bandwidth.md): the writer asks to {@code start} with its queue pairs, the agent
 * written to answers with an {@code Offer} of its own, and the writer {@code stop}s with what it
 * measured. In a bidirectional test the writer says {@code go} once its queue pairs are connected,
 * and the agent writes back until the writer stops. Each message checks its own fields ({@code check}:
 * 400 with one line that says which is out of range), the server its limits on top.
 */
public final class BandwidthMessages {
    public static final String START_PATH = "/api/v1/bandwidth/start";
    public static final String GO_PATH = "/api/v1/bandwidth/go";
    public static final String STOP_PATH = "/api/v1/bandwidth/stop";
    /** Largest message size (bytes per RDMA WRITE), as {@code fabricd bw --size} and {@code bandwidth.size}. */
    public static final long MAX_SIZE = 1L << 30;
    /** Longest test asked for: {@code bandwidth.max_duration}'s and {@code fabricd bw --duration}'s bound. */
    public static final long MAX_DURATION_MS = 3_600_000;
    /** Longest time a writer may say it wrote: the longest test and then some. */
    static final long MAX_NANOS = 2 * MAX_DURATION_MS * 1_000_000;
    /** Highest data rate a writer may give (bits/s): far above any NIC's. */
    static final double MAX_BPS = 1e15;
    private static final Set<String> LIMITS = Set.of("link", "local_pcie", "peer_pcie", "unknown");
    private static final Set<Integer> MTUS = Set.of(256, 512, 1024, 2048, 4096);

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
        /** Refused (400) when a field is out of its range; products of them cannot overflow within these. */
        public void check() throws Refused {
            name("client", client, false);
            name("device", device, true);
            if (qps < 1 || qps > VerbsRc.MAX_QPS) {
                throw bad("qps must be 1 to " + VerbsRc.MAX_QPS);
            }
            if (size < 1 || size > MAX_SIZE) {
                throw bad("size must be 1 to " + MAX_SIZE + " bytes");
            }
            if (durationMs < 1 || durationMs > MAX_DURATION_MS) {
                throw bad("durationMs must be 1 to " + MAX_DURATION_MS);
            }
            if (qp == null || qp.size() != qps) {
                throw bad("qp must list " + qps + " queue pairs");
            }
            for (QpAddress a : qp) {
                address(a);
            }
            rate("pcieBps", pcieBps);
        }
    }

    /** The writer's queue pairs are connected: the agent may write back (bidirectional). */
    public record Go(String id) {
        public void check() throws Refused {
            name("id", id, false);
        }
    }

    /** What the agent measured on its side: SENDs received, or its own writes of a bidirectional test. */
    public record Done(long bytes, long messages, long nanos) {
    }

    /** The agent's queue pairs, connected to the writer's, and what its side can carry. */
    public record Offer(String id, String device, int port, List<QpAddress> qp, Double linkBps, Double pcieBps) {
    }

    /** What the writer measured, sent when it is done. */
    public record Stop(String id, long bytes, long messages, long nanos, Double ceilingBps, String limit) {
        public void check() throws Refused {
            name("id", id, false);
            if (bytes < 0 || messages < 0) {
                throw bad("bytes and messages must be 0 or more");
            }
            if (nanos < 0 || nanos > MAX_NANOS) {
                throw bad("nanos must be 0 to " + MAX_NANOS);
            }
            rate("ceilingBps", ceilingBps);
            if (limit != null && !LIMITS.contains(limit)) {
                throw bad("limit must be one of link, local_pcie, peer_pcie, unknown");
            }
        }
    }

    private static void address(QpAddress a) throws Refused {
        if (a == null || a.qpn() < 0 || a.qpn() > 0xFFFFFF || a.psn() < 0 || a.psn() > 0xFFFFFF || a.lid() < 0 || a.lid() > 0xFFFF
                || a.rkey() < 0 || a.rkey() > 0xFFFF_FFFFL || !MTUS.contains(a.mtu()) || a.gid() == null
                || !a.gid().replace(":", "").matches("[0-9a-fA-F]{32}")) {
            throw bad("a queue pair address is out of range (qpn and psn 24 bits, lid 16, rkey 32, mtu 256 to 4096, gid 16 bytes)");
        }
    }

    private static void name(String field, String v, boolean optional) throws Refused {
        if (v == null ? !optional : v.isEmpty() || v.length() > 256 || v.chars().anyMatch(Character::isISOControl)) {
            throw bad(field + " must be 1 to 256 characters without control characters");
        }
    }

    private static void rate(String field, Double v) throws Refused {
        if (v != null && !(v >= 0 && v <= MAX_BPS)) {
            throw bad(field + " must be 0 to " + MAX_BPS + " bits/s");
        }
    }

    private static Refused bad(String message) {
        return new Refused(400, message);
    }
}
