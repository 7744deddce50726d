package io.fabricd.collectors.source;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** {@code fabricd-snapshot.json}: see docs/spec/host-snapshot.md. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SnapshotManifest(
        @JsonProperty("format") Integer format,
        @JsonProperty("hostname") String hostname,
        @JsonProperty("kernel") String kernel,
        @JsonProperty("captured_at") String capturedAt,
        @JsonProperty("fabricd_version") String fabricdVersion,
        @JsonProperty("labels") Map<String, String> labels,
        @JsonProperty("host") Host host) {

    public SnapshotManifest {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    /**
     * fabricd's addition: the host facts the live host's OSHI gave when the snapshot was taken.
     * Absent in hand-made fixtures (the facts are then read from proc/ and sys/ files).
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record Host(@JsonProperty("memory_bytes") Long memoryBytes,
                       @JsonProperty("numa_cpus") Map<Integer, Integer> numaCpus,
                       @JsonProperty("boot_time") Long bootTime) {
    }
}
