package io.fabricd.preflight;

/**
 * One measurement of a pair in one direction, from {@code a} (the node that measured) to {@code b}.
 * Several for one pair are added up: probes counted together, the worst p50 and bandwidth ratio kept.
 *
 * @param transport {@code udp} or {@code verbs} (evidence only)
 * @param sent probes sent; 0 for a bandwidth test alone
 * @param lost of those, lost
 * @param p50Seconds the median round trip of the probes answered; null when none was
 * @param bandwidthRatio bits per second over the link's ceiling; null when not measured
 * @param bandwidthWhy why there is no ratio (one line), or null
 */
public record LinkInput(String a, String b, String transport, long sent, long lost, Double p50Seconds, Double bandwidthRatio,
                        String bandwidthWhy) {
    public LinkInput {
        if (a == null || b == null) {
            throw new IllegalArgumentException("a link input needs both node names");
        }
        if (sent < 0 || lost < 0 || lost > sent) {
            throw new IllegalArgumentException("link " + a + "->" + b + ": " + lost + " probes lost of " + sent + " sent is not a count");
        }
        if (p50Seconds != null && !(p50Seconds >= 0 && p50Seconds < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("link " + a + "->" + b + ": p50 " + p50Seconds + " s is not a time");
        }
        if (bandwidthRatio != null && !(bandwidthRatio >= 0 && bandwidthRatio < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException("link " + a + "->" + b + ": bandwidth ratio " + bandwidthRatio + " is not a ratio");
        }
    }

    /** Probes alone. */
    public static LinkInput probes(String a, String b, String transport, long sent, long lost, Double p50Seconds) {
        return new LinkInput(a, b, transport, sent, lost, p50Seconds, null, null);
    }

    /** A bandwidth test alone: its ratio, or null and why there is none. */
    public static LinkInput bandwidth(String a, String b, Double ratio, String why) {
        return new LinkInput(a, b, "verbs", 0, 0, null, ratio, why);
    }
}
