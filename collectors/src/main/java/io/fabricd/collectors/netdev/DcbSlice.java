package io.fabricd.collectors.netdev;

import io.fabricd.model.DcbState;
import java.util.Map;

/** The dcb stage's slice: DCB state and the trust mode it implies, by netdev name (absent where unknown). */
public record DcbSlice(Map<String, Dcb> byNetdev) {
    public DcbSlice {
        byNetdev = Map.copyOf(byNetdev);
    }

    /** One netdev's DCB state, trust mode and what says so. */
    public record Dcb(DcbState state, String trust, String trustSource) {
    }
}
