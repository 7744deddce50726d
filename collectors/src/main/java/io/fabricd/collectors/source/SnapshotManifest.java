package io.fabricd.collectors.source;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;

/** {@code fabricd-snapshot.json}: see ../shared/spec/host-snapshot.md. */
@JsonIgnoreProperties(ignoreUnknown = true)
public record SnapshotManifest(
        @JsonProperty("format") Integer format,
        @JsonProperty("hostname") String hostname,
        @JsonProperty("kernel") String kernel,
        @JsonProperty("captured_at") String capturedAt,
        @JsonProperty("fabricd_version") String fabricdVersion,
        @JsonProperty("labels") Map<String, String> labels) {

    public SnapshotManifest {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }
}
