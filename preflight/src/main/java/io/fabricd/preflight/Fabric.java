package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * The fabric view of a set's links (the JSON object {@code fabric}): how many judged pairs the
 * topology placed, and the parts of the fabric their bad pairs share ({@link FabricLocaliser}).
 *
 * @param placedPairs   judged pairs (good or bad) whose path the topology knows
 * @param unplacedPairs judged pairs whose path it does not (an end not placed): left to the per-node localisation
 * @param suspects      most bad pairs explained first
 */
@JsonPropertyOrder({"placed_pairs", "unplaced_pairs", "suspects"})
public record Fabric(@JsonProperty("placed_pairs") int placedPairs, @JsonProperty("unplaced_pairs") int unplacedPairs,
                     List<FabricSuspect> suspects) {
    public Fabric {
        suspects = List.copyOf(suspects);
    }
}
