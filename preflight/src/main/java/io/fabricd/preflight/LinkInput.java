package io.fabricd.preflight;

/**
 * One measurement of a pair in one direction, from {@code a} (the node that measured) to {@code b}.
 * Several for one pair are added up: probes counted together (the round trips per transport), the
 * worst bandwidth ratio kept. A measurement with {@code sent} 0 and no ratio is an attempt that
 * gave nothing: the pair was meant to be measured, so its ends are judged on their links.
 *
 * @param transport the probes' transport ({@code udp}, {@code rdma}; their round trips are compared
 *        with those of the same transport only), or {@code verbs} for a bandwidth test
 * @param sent probes sent; 0 for a bandwidth test alone
 * @param lost of those, lost
 * @param p50Seconds the median round trip of the probes answered; null when none was
 * @param holdP50Seconds how long {@code b}'s responder held the answered probes, their median (the
 *        hold each answer carries: {@code b}'s own share of the round trip, out of {@code p50Seconds});
 *        null when none was answered or the agent did not say (an older release)
 * @param holdP90Seconds the 90th percentile of the same holds: a host that answers some probes late
 *        shows here while its median stays fast; null when none was answered or the agent did not say
 * @param bandwidthRatio bits per second over the link's ceiling; null when not measured; 0 with a
 *        {@code bandwidthWhy} for a test that failed after the peer accepted it ({@link #failedTest()})
 * @param bandwidthWhy why there is no ratio, or why the test failed (one line); else null
 * @param bitsPerSecond what the bandwidth test moved; null when unknown or no test
 * @param ceilingBitsPerSecond the ceiling the test was held to (its ratio's denominator, as the agent
 *        gave it); null when unknown or no test
 * @param probeWhy for an attempt that gave no probes ({@link #tried}), why (one line); else null
 */
public record LinkInput(String a, String b, String transport, long sent, long lost, Double p50Seconds, Double holdP50Seconds,
                        Double holdP90Seconds, Double bandwidthRatio, String bandwidthWhy, Double bitsPerSecond, Double ceilingBitsPerSecond,
                        String probeWhy) {
    public LinkInput {
        if (a == null || b == null) {
            throw new IllegalArgumentException("a link input needs both node names");
        }
        if (sent < 0 || lost < 0 || lost > sent) {
            throw new IllegalArgumentException("link " + a + "->" + b + ": " + lost + " probes lost of " + sent + " sent is not a count");
        }
        time(a, b, "p50", p50Seconds);
        time(a, b, "hold", holdP50Seconds);
        time(a, b, "hold p90", holdP90Seconds);
        if (bandwidthRatio != null && !(bandwidthRatio >= 0 && bandwidthRatio < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("link " + a + "->" + b + ": bandwidth ratio " + bandwidthRatio + " is not a ratio");
        }
        for (Double r : new Double[] {bitsPerSecond, ceilingBitsPerSecond}) {
            if (r != null && !(r >= 0 && r < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("link " + a + "->" + b + ": " + r + " bits per second is not a rate");
            }
        }
    }

    private static void time(String a, String b, String what, Double seconds) {
        if (seconds != null && !(seconds >= 0 && seconds < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("link " + a + "->" + b + ": " + what + " " + seconds + " s is not a time");
        }
    }

    /** Probes alone, without the responder's hold (an agent that does not say it). */
    public static LinkInput probes(String a, String b, String transport, long sent, long lost, Double p50Seconds) {
        return probes(a, b, transport, sent, lost, p50Seconds, null, null);
    }

    /** Probes alone, with the median and the 90th percentile hold of {@code b}'s responder (each null when not said). */
    public static LinkInput probes(String a, String b, String transport, long sent, long lost, Double p50Seconds, Double holdP50Seconds,
                                   Double holdP90Seconds) {
        return new LinkInput(a, b, transport, sent, lost, p50Seconds, holdP50Seconds, holdP90Seconds, null, null, null, null, null);
    }

    /**
     * An attempt to probe from a to b that gave nothing, and why (the request failed, the agent could
     * not probe that peer): the pair was meant to be measured, so its ends are judged on their links.
     */
    public static LinkInput tried(String a, String b, String why) {
        return new LinkInput(a, b, "udp", 0, 0, null, null, null, null, null, null, null, why == null || why.isBlank() ? null : why);
    }

    /** A bandwidth test alone: its ratio, or null and why there is none (refused, busy, no verbs: not measured). */
    public static LinkInput bandwidth(String a, String b, Double ratio, String why) {
        return bandwidth(a, b, ratio, null, null, why);
    }

    /**
     * A bandwidth test alone with what it moved: its ratio (null when the ceiling is unknown), bits
     * per second and the ceiling, each null when unknown.
     */
    public static LinkInput bandwidth(String a, String b, Double ratio, Double bitsPerSecond, Double ceilingBitsPerSecond, String why) {
        return new LinkInput(a, b, "verbs", 0, 0, null, null, null, ratio, why, bitsPerSecond, ceilingBitsPerSecond, null);
    }

    /**
     * A bandwidth test the peer accepted that then failed (the queue pairs did not connect, the writes
     * did not complete): nothing moved, so the link is bad, {@code why} saying how it failed.
     */
    public static LinkInput bandwidthFailed(String a, String b, String why) {
        return new LinkInput(a, b, "verbs", 0, 0, null, null, null, 0.0, why == null || why.isBlank() ? "the test failed" : why, null, null,
                null);
    }

    /** Whether this is a bandwidth test that failed after the peer accepted it ({@link #bandwidthFailed}). */
    public boolean failedTest() {
        return bandwidthRatio != null && bandwidthRatio == 0 && bandwidthWhy != null;
    }
}
