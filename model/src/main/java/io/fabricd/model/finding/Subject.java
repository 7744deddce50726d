package io.fabricd.model.finding;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a finding is about: whichever parts apply, the rest null (interfaces.md; a finding of the
 * whole host has none). In JSON and in {@link #toString()} only the present parts, by name.
 *
 * @param direction of a bandwidth test: "tx" (this host wrote) or "rx" (the peer wrote into it)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder(alphabetic = true)
public record Subject(String device, Integer port, String netdev, Integer priority, String gpu, String pci, String peer,
                      String direction) {
    /** The names of the parts, in declaration order: the subject labels of fabric_finding. */
    public static final List<String> PARTS = Arrays.stream(Subject.class.getRecordComponents()).map(RecordComponent::getName).toList();

    /** The whole host. */
    public static final Subject HOST = new Subject(null, null, null, null, null, null, null, null);

    public static Subject device(String device) {
        return new Subject(device, null, null, null, null, null, null, null);
    }

    public static Subject port(String device, int port) {
        return new Subject(device, port, null, null, null, null, null, null);
    }

    public static Subject pci(String address) {
        return new Subject(null, null, null, null, null, address, null, null);
    }

    public static Subject gpu(String gpu) {
        return new Subject(null, null, null, null, gpu, null, null, null);
    }

    /** A peer of the probes, and the local device of a verbs path (null for UDP). */
    public static Subject peer(String peer, String device) {
        return new Subject(device, null, null, null, null, null, peer, null);
    }

    public Subject withNetdev(String n) {
        return new Subject(device, port, n, priority, gpu, pci, peer, direction);
    }

    public Subject withPriority(Integer p) {
        return new Subject(device, port, netdev, p, gpu, pci, peer, direction);
    }

    public Subject withPci(String p) {
        return new Subject(device, port, netdev, priority, gpu, p, peer, direction);
    }

    public Subject withGpu(String g) {
        return new Subject(device, port, netdev, priority, g, pci, peer, direction);
    }

    public Subject withDirection(String d) {
        return new Subject(device, port, netdev, priority, gpu, pci, peer, d);
    }

    /** The present parts as text, by name (the labels of fabric_finding). */
    public Map<String, String> parts() {
        Map<String, String> m = new LinkedHashMap<>();
        put(m, "device", device);
        put(m, "direction", direction);
        put(m, "gpu", gpu);
        put(m, "netdev", netdev);
        put(m, "pci", pci);
        put(m, "peer", peer);
        put(m, "port", port);
        put(m, "priority", priority);
        return m;
    }

    @JsonIgnore // not a part: the JSON subject of the host is {}
    public boolean isHost() {
        return equals(HOST);
    }

    private static void put(Map<String, String> m, String k, Object v) {
        if (v != null) {
            m.put(k, v.toString());
        }
    }

    /** {@code {device=mlx5_0, port=1}}: the present parts by name (the findings' sort order uses it). */
    @Override
    public String toString() {
        return parts().toString();
    }
}
