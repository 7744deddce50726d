package io.fabricd.preflight;

/** The names of the verdicts' evidence (the JSON keys of {@code fabricd preflight --format json}). */
public final class Evidence {
    /** A node's agent's answer: reachable, unreachable, garbage, refused, unavailable, stale. */
    public static final String STATE = "state";
    /** Why the agent did not answer well. */
    public static final String WHY = "why";
    /** The checks whose findings exclude the node. */
    public static final String FINDINGS = "findings";
    /**
     * How long the node's responder held the probes it answered, per transport, as its partners measured
     * it: a list of {@link HostHold} (typed), for the nodes with enough probes answered.
     */
    public static final String HOST = "host";
    /** How many of the node's links were judged (enough samples, or a bandwidth test). */
    public static final String LINKS_JUDGED = "links_judged";
    /** How many of the node's links passed. */
    public static final String LINKS_PASSED = "links_passed";
    /** The partners of its bad links that are otherwise good (a node excluded for them). */
    public static final String BAD_PARTNERS = "bad_partners";
    /** Who a bad link is blamed on: "link", a node's name, or "unknown". */
    public static final String BLAME = "blame";
    public static final String BLAME_LINK = "link";
    public static final String BLAME_UNKNOWN = "unknown";
    public static final String SENT = "sent";
    public static final String LOST = "lost";
    public static final String LOSS_RATIO = "loss_ratio";
    public static final String MEDIAN_LOSS_RATIO = "median_loss_ratio";
    public static final String P50_SECONDS = "p50_seconds";
    public static final String MEDIAN_P50_SECONDS = "median_p50_seconds";
    /** A link probed over more than one transport: each one's p50 and its set median (a round trip is compared within its transport). */
    public static final String P50_BY_TRANSPORT = "p50_by_transport";
    public static final String BANDWIDTH_RATIO = "bandwidth_ratio";
    public static final String BANDWIDTH_WHY = "bandwidth_why";
    /** What the test that gave the link's worst ratio moved, and the ceiling it was held to (bits per second). */
    public static final String BANDWIDTH_BPS = "bandwidth_bits_per_second";
    public static final String BANDWIDTH_CEILING_BPS = "bandwidth_ceiling_bits_per_second";
    public static final String TRANSPORTS = "transports";
    /** A link probed too little: why an attempt to probe it gave nothing (the request failed, the agent could not probe that peer). */
    public static final String PROBE_WHY = "probe_why";

    private Evidence() {
    }
}
