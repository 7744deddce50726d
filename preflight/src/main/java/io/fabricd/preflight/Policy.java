package io.fabricd.preflight;

import io.fabricd.model.finding.Severity;
import java.util.EnumSet;
import java.util.Set;

/**
 * What the gate holds against a node or a link.
 *
 * @param excludeSeverities a finding at one of these excludes its node (default: critical)
 * @param excludeChecks only findings of these checks exclude (empty, the default: every check)
 * @param ignoreChecks findings of these checks never exclude
 * @param lossFactor a link whose probe loss is above max(this x the set's median loss, {@link #LOSS_FLOOR}) is bad (3)
 * @param latencyFactor a link whose p50 is above this x the set's median p50, and at least
 *        {@link #LATENCY_MARGIN_SECONDS} above it, is slow (3)
 * @param hostFloorSeconds a node whose responder holds the probes it answers this long or less (their
 *        median and 90th percentile) is never slow, whatever the set's (1 ms: a thread's wake-up on a
 *        busy host is well below it, a starved or stalling one well above)
 * @param hostFactor a node whose median or 90th percentile hold is above this x the set's of the same
 *        and above {@code hostFloorSeconds} is a slow host (10: a hold is a scheduler's tail, heavier
 *        than a network's, and where the whole set is above the floor — hosts that share CPUs, agents
 *        held to a low CPU limit — one must stand out by an order of magnitude to be the host's own)
 * @param bandwidthRatio a link measured below this share of its ceiling is bad (0.8)
 * @param minSamples probes a link needs, both directions together, to be judged on them (20)
 * @param unknownPasses whether a node the gate cannot judge is kept (false: excluded)
 * @param minNodes the fewest nodes the job can run on; the caller fails when fewer are kept (1)
 * @param bounds what a link may never exceed, whatever the set's medians ({@link AbsoluteBounds#DEFAULTS})
 * @param onSuspectSwitch what becomes of a node behind a leaf the fabric view holds bad ({@link SuspectSwitch#EXCLUDE})
 */
public record Policy(Set<Severity> excludeSeverities, Set<String> excludeChecks, Set<String> ignoreChecks, double lossFactor,
                     double latencyFactor, double hostFloorSeconds, double hostFactor, double bandwidthRatio, int minSamples, boolean unknownPasses,
                     int minNodes, AbsoluteBounds bounds, SuspectSwitch onSuspectSwitch) {
    /**
     * What becomes of a node behind a leaf switch the fabric view holds bad (--on-suspect-switch):
     * EXCLUDE (the default: every flow of such a node crosses that switch) or KEEP (the switch named,
     * its links bad, the nodes judged on the rest).
     */
    public enum SuspectSwitch { EXCLUDE, KEEP }

    /** Loss at or below this is never held against a link, whatever the set's median. */
    public static final double LOSS_FLOOR = 0.01;
    /** A p50 less than this above the set's median is never slow. */
    public static final double LATENCY_MARGIN_SECONDS = 50e-6;

    public Policy {
        excludeSeverities = excludeSeverities == null ? Set.of(Severity.CRITICAL) : Set.copyOf(excludeSeverities);
        excludeChecks = excludeChecks == null ? Set.of() : Set.copyOf(excludeChecks);
        ignoreChecks = ignoreChecks == null ? Set.of() : Set.copyOf(ignoreChecks);
        positive("loss factor", lossFactor);
        positive("latency factor", latencyFactor);
        positive("host floor", hostFloorSeconds);
        positive("host factor", hostFactor);
        if (!(bandwidthRatio >= 0 && bandwidthRatio <= 1)) {
            throw new IllegalArgumentException("bandwidth ratio " + bandwidthRatio + " is not between 0 and 1");
        }
        if (minSamples < 1) {
            throw new IllegalArgumentException("min samples " + minSamples + " is below 1");
        }
        if (minNodes < 0) {
            throw new IllegalArgumentException("min nodes " + minNodes + " is below 0");
        }
        bounds = bounds == null ? AbsoluteBounds.DEFAULTS : bounds;
        onSuspectSwitch = onSuspectSwitch == null ? SuspectSwitch.EXCLUDE : onSuspectSwitch;
    }

    /** The absolute bounds' and the suspect switch's defaults. */
    public Policy(Set<Severity> excludeSeverities, Set<String> excludeChecks, Set<String> ignoreChecks, double lossFactor, double latencyFactor,
                  double hostFloorSeconds, double hostFactor, double bandwidthRatio, int minSamples, boolean unknownPasses, int minNodes) {
        this(excludeSeverities, excludeChecks, ignoreChecks, lossFactor, latencyFactor, hostFloorSeconds, hostFactor, bandwidthRatio, minSamples,
                unknownPasses, minNodes, null, null);
    }

    /**
     * Critical findings of every check exclude; loss and latency 3x the median, hold 10x and over 1 ms; 80 % of the ceiling; 20 probes;
     * the absolute bounds' defaults; nodes behind a suspect leaf excluded.
     */
    public static Policy defaults() {
        return new Policy(Set.of(Severity.CRITICAL), Set.of(), Set.of(), 3.0, 3.0, 1e-3, 10.0, 0.8, 20, false, 1);
    }

    /** {@code critical} gives {critical}, {@code warning} gives {critical, warning}. */
    public static Set<Severity> atLeast(Severity least) {
        Set<Severity> s = EnumSet.noneOf(Severity.class);
        for (Severity v : Severity.values()) {
            if (v.atLeast(least)) {
                s.add(v);
            }
        }
        return s;
    }

    /** Whether this finding excludes its node. */
    public boolean excludes(FindingInput f) {
        return excludeSeverities.contains(f.severity()) && !ignoreChecks.contains(f.check())
                && (excludeChecks.isEmpty() || excludeChecks.contains(f.check()));
    }

    public Policy withUnknownPasses(boolean passes) {
        return new Policy(excludeSeverities, excludeChecks, ignoreChecks, lossFactor, latencyFactor, hostFloorSeconds, hostFactor,
                bandwidthRatio, minSamples, passes, minNodes, bounds, onSuspectSwitch);
    }

    public Policy withOnSuspectSwitch(SuspectSwitch what) {
        return new Policy(excludeSeverities, excludeChecks, ignoreChecks, lossFactor, latencyFactor, hostFloorSeconds, hostFactor,
                bandwidthRatio, minSamples, unknownPasses, minNodes, bounds, what);
    }

    public Policy withBounds(AbsoluteBounds b) {
        return new Policy(excludeSeverities, excludeChecks, ignoreChecks, lossFactor, latencyFactor, hostFloorSeconds, hostFactor,
                bandwidthRatio, minSamples, unknownPasses, minNodes, b, onSuspectSwitch);
    }

    private static void positive(String name, double v) {
        if (!(v > 0 && v < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException(name + " " + v + " is not a number above 0");
        }
    }
}
