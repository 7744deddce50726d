package io.fabricd.model;

/**
 * The switch port at the other end of one of the host's RDMA netdevs, as the switch announces itself
 * (LLDP, read from lldpd: docs/switch-evidence.md). Null means "not announced"; the switch's name,
 * port and chassis id are names ({@link io.fabricd.model.topology.Names#valid}) or null: an announced
 * value that is not a name is not kept.
 *
 * @param netdev      the host's netdev the announcement arrived on
 * @param device      the RDMA device of that netdev; null when no RDMA port is bound to it
 * @param port        the RDMA port of that netdev; null with {@code device}
 * @param switchName  the neighbour's system name (LLDP SysName)
 * @param switchPort  the neighbour's port: its port id when that is a name (subtype ifname or local),
 *                    else its port description, else its port id
 * @param portDescr   the neighbour's port description (LLDP PortDescr)
 * @param chassisId   the neighbour's chassis id (usually its base MAC)
 * @param mauType     the neighbour's operational MAU type (802.3 MAC/PHY TLV), as lldpd names it ("100GbaseCR4")
 * @param speedMbps   the speed that MAU type stands for, Mb/s; null when not announced or not a speed
 * @param ageSeconds  how long lldpd has held this neighbour unchanged; null when it did not say
 * @param changes     how many times the neighbour on this netdev changed while this agent watched
 *                    (one collection to the next: another chassis or port, or several at once)
 * @param stable      whether the neighbour may be used as evidence: the one neighbour on its netdev, held
 *                    by lldpd for at least {@link #STABLE_SECONDS} or seen the same by the agent over its
 *                    last collections
 * @param learned     how it was learnt: "lldp"
 */
public record Neighbor(String netdev, String device, Integer port, String switchName, String switchPort, String portDescr,
                       String chassisId, String mauType, Long speedMbps, Long ageSeconds, int changes, boolean stable,
                       String learned) {

    /** Seconds lldpd must have held a neighbour unchanged for it to count at once: four LLDP intervals of 30 s. */
    public static final long STABLE_SECONDS = 120;

    /** The same neighbour with what the agent's history says of it. */
    public Neighbor withHistory(int changeCount, boolean isStable) {
        return new Neighbor(netdev, device, port, switchName, switchPort, portDescr, chassisId, mauType, speedMbps, ageSeconds,
                changeCount, isStable, learned);
    }

    /** "leaf-07 port Ethernet12", as far as it is known, for findings; "unknown switch" when neither name nor chassis is. */
    public String describe() {
        String sw = switchName != null ? switchName : chassisId != null ? "chassis " + chassisId : "unknown switch";
        return switchPort == null ? sw : sw + " port " + switchPort;
    }

    /** "switch leaf-07 port Ethernet12", or "the switch" (with its port when known) when neither name nor chassis is known. */
    public String words() {
        if (switchName == null && chassisId == null) {
            return switchPort == null ? "the switch" : "the switch's port " + switchPort;
        }
        return "switch " + describe();
    }
}
