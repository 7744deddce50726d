package io.fabricd.collectors.kernel;

import io.fabricd.model.DcbState;
import io.fabricd.model.PauseParams;
import java.util.List;
import java.util.Optional;

/**
 * What fabricd asks the kernel that is not a file: ethtool ioctls, DCB and RDMA netlink, verbs.
 * On a snapshot the answers come from the side-cars of host-snapshot.md; on the live host from
 * the native implementations (JNA, the verbs shim). A query that cannot be answered fails with a
 * {@link HostReadException} naming the side-car path or the call; "not supported by this netdev"
 * is an answer ({@link DcbState#supported()} false), not a failure.
 */
public interface KernelQueries {

    /** {@code ethtool -S}: every statistic, in driver order; empty when the netdev has none. */
    EthtoolStats ethtoolStats(String netdev) throws HostReadException;

    /** ETHTOOL_GPAUSEPARAM: 802.3x global pause. Empty when the driver does not report it. */
    Optional<PauseParams> pauseParams(String netdev) throws HostReadException;

    /** DCB_CMD_IEEE_GET: PFC and the APP table. */
    DcbState dcb(String netdev) throws HostReadException;

    /** ibv_query_port of every port of a device; empty when verbs cannot answer (no side-car, no library). */
    Optional<VerbsDevice> verbs(String device) throws HostReadException;

    /** RDMA netlink QP dump (what {@code rdma resource show qp} lists); empty when unavailable. */
    Optional<List<QpInfo>> queuePairs() throws HostReadException;

    /**
     * lldpd's neighbours, {@code lldpcli -f json show neighbors details} verbatim (LLDP is lldpd's,
     * not the kernel's: live, fabricd runs lldpcli; docs/switch-evidence.md). Empty when lldpd is not
     * there to ask: unknown, never "no neighbour".
     */
    Optional<String> lldpNeighbors() throws HostReadException;

    /** Where the answers come from, for the model ("side-cars", "kernel"). */
    String kind();
}
