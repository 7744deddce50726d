package io.fabricd.preflight;

import java.util.Map;
import java.util.TreeMap;

/**
 * What a link may never exceed, whatever the set's medians (docs/preflight.md, "Absolute bounds"):
 * the relative rules judge a link against its set, so a fault that hurts most pairs (a spine, a
 * core switch) raises the medians and would pass; these fail such a majority, and the fabric view
 * ({@link FabricLocaliser}) says which part it shares.
 *
 * @param maxLossRatio  probe loss above this is bad (0.02: above the relative rule's floor of 1 %, so
 *                      that in a clean set the relative rule still decides between 1 and 2 %)
 * @param maxP50Seconds per probe transport ({@code udp}, {@code verbs}), a median round trip above this
 *                      is slow; a transport not named has no absolute bound
 */
public record AbsoluteBounds(double maxLossRatio, Map<String, Double> maxP50Seconds) {
    /**
     * 2 % loss; a median round trip of 2 ms over UDP (kernel-stamped, the responder's hold taken out:
     * tens of microseconds on a healthy fabric, about 0.4 ms between virtual machines; a switch's
     * buffers at 100-400 Gb/s drain in a millisecond or two, so a path slower than that at the median
     * is broken, not busy) and 5 ms over verbs (a few microseconds on hardware, but an emulated RDMA
     * device without completion stamps takes about 2 ms). Loss is the tight bound: a failing switch
     * shows as loss far more often than as a slow median.
     */
    public static final AbsoluteBounds DEFAULTS = new AbsoluteBounds(0.02, Map.of("udp", 2e-3, "verbs", 5e-3));

    /** No absolute bound: every link judged against its set alone. */
    public static final AbsoluteBounds NONE = new AbsoluteBounds(1, Map.of());

    public AbsoluteBounds {
        if (!(maxLossRatio > 0 && maxLossRatio <= 1)) {
            throw new IllegalArgumentException("absolute loss bound " + maxLossRatio + " is not a ratio above 0");
        }
        maxP50Seconds = Map.copyOf(new TreeMap<>(maxP50Seconds));
        maxP50Seconds.forEach((t, s) -> {
            if (!(s > 0 && s < Double.POSITIVE_INFINITY)) {
                throw new IllegalArgumentException("absolute p50 bound of " + t + " " + s + " s is not a time above 0");
            }
        });
    }

    /** The bound of a transport's median round trip, or null when it has none. */
    Double maxP50(String transport) {
        return maxP50Seconds.get(transport);
    }
}
