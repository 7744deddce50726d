package io.fabricd.model;

import java.util.List;

/**
 * DCB state of a netdev (linux include/uapi/linux/dcbnl.h; docs/spec/host-facts.md §3.1).
 *
 * @param supported   false when the netdev has no DCB ops (veth, virtio): a state, not an error
 * @param dcbx        DCBX mode names ("host", "lld_managed", "cee", "ieee", "static")
 * @param pfcCap      number of traffic classes that can have PFC
 * @param pfcEnabled  priorities whose bit is set in pfc_en, ascending
 * @param delay       allowance for cable length (m)
 * @param requests    per-priority PFC frames sent (mlx5), 8 entries or empty
 * @param indications per-priority PFC frames received (mlx5), 8 entries or empty
 * @param app         APP table entries
 */
public record DcbState(boolean supported, List<String> dcbx, int pfcCap, List<Integer> pfcEnabled, int delay,
                       List<Long> requests, List<Long> indications, List<AppEntry> app) {

    public static final DcbState UNSUPPORTED = new DcbState(false, List.of(), 0, List.of(), 0, List.of(), List.of(), List.of());

    public DcbState {
        dcbx = List.copyOf(dcbx);
        pfcEnabled = List.copyOf(pfcEnabled);
        requests = List.copyOf(requests);
        indications = List.copyOf(indications);
        app = List.copyOf(app);
    }

    /** An APP table entry; selector "dscp" (IEEE_8021QAZ_APP_SEL_DSCP = 5), "ethertype", "tcp", "udp", "tcp_udp". */
    public record AppEntry(String selector, int protocol, int priority) {
    }

    /** Upstream mlx5 trusts DSCP exactly when DSCP APP entries exist (docs/spec/host-facts.md §3.2). */
    public boolean hasDscpApp() {
        return app.stream().anyMatch(a -> "dscp".equals(a.selector()));
    }
}
