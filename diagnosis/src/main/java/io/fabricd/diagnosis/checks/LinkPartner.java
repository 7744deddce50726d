package io.fabricd.diagnosis.checks;

import io.fabricd.model.NetdevInfo;
import io.fabricd.model.RdmaPort;

/**
 * Whether a port has a link partner at the other end of its cable, as its physical state and (RoCE)
 * its netdev's carrier say: the difference between a port that is not up because nothing is plugged
 * in and one that is cabled but passes no traffic. Physical states (IBA 14.2.5.6, sysfs
 * {@code phys_state}): 4 PortConfigurationTraining, 5 LinkUp and 6 LinkErrorRecovery need a partner;
 * 2 Polling (looking for one) and 3 Disabled have none. A RoCE netdev's carrier says the same for
 * Ethernet. Sleep, Phy Test, an unnamed id or a state that was not read say neither.
 */
enum LinkPartner {
    /** A partner answers: a cable and a live port at its other end. */
    PRESENT,
    /** No partner: nothing plugged in, the far end dark, or the port disabled. */
    ABSENT,
    /** The port's states do not say. */
    UNKNOWN;

    /** What the port's physical state and its netdev ({@code nd}, null when not known) say; a partner either sees wins. */
    static LinkPartner of(RdmaPort p, NetdevInfo nd) {
        Integer phys = p.physState() == null ? null : p.physState().id();
        Integer carrier = nd == null || !Ports.ethernet(p) ? null : nd.carrier();
        if (phys != null && phys >= 4 && phys <= 6 || carrier != null && carrier == 1) {
            return PRESENT;
        }
        if (phys != null && (phys == 2 || phys == 3) || carrier != null && carrier == 0) {
            return ABSENT;
        }
        return UNKNOWN;
    }

    /** The evidence's words: the verdict and what says so. */
    String describe(RdmaPort p, NetdevInfo nd) {
        return switch (this) {
            case PRESENT -> "present";
            case ABSENT -> "none";
            case UNKNOWN -> "not known";
        } + " (" + basis(p, nd) + ")";
    }

    /** What the verdict rests on: "physical state LinkUp, netdev carrier 1". */
    static String basis(RdmaPort p, NetdevInfo nd) {
        String phys = p.physState() == null ? "physical state not read" : "physical state " + p.physState().physMeaning();
        return nd == null || !Ports.ethernet(p) || nd.carrier() == null ? phys : phys + ", netdev carrier " + nd.carrier();
    }
}
