package io.fabricd.probes.peers;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * An agent's probe endpoint ({@code GET /api/v1/probe/endpoint}): who it is, where it answers UDP
 * probes, and per RDMA port the UD address a verbs prober needs.
 *
 * @param udpPort      the UDP responder's port; null when it does not run
 * @param devices      one per RDMA port with a verbs responder (empty without verbs)
 * @param verbsStatus  "available", or why the verbs transport is not
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Endpoint(String host, Map<String, String> labels, @JsonProperty("udp_port") Integer udpPort,
                       List<Device> devices, @JsonProperty("verbs_status") String verbsStatus) {
    public Endpoint {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
        devices = devices == null ? List.of() : List.copyOf(devices);
    }

    /** A UD responder on one RDMA port. */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Device(String device, int port, String gid, @JsonProperty("gid_index") int gidIndex, long qpn, long qkey,
                         int lid, @JsonProperty("active_mtu") int activeMtu) {
    }

    /** The first UD responder that is not the caller's own port ({@code ownGid}); null when none. */
    public Device firstOtherThan(String ownGid) {
        return devices.stream().filter(d -> !d.gid().equals(ownGid)).findFirst().orElse(null);
    }

    public String rack() {
        String r = labels.get("rack");
        return r != null ? r : labels.getOrDefault("tor", "");
    }
}
