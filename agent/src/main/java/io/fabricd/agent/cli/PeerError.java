package io.fabricd.agent.cli;

import com.fasterxml.jackson.annotation.JsonInclude;

/** A peer that gave no result, as `fabricd probe` and `fabricd bw` list it among their JSON results. */
@JsonInclude(JsonInclude.Include.NON_NULL)
record PeerError(String peer, String transport, Integer size, String error) {
    PeerError(String peer, String error) {
        this(peer, null, null, error);
    }
}
