package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * How long a node's responder held the probes it answered over one transport, as the gate judged it
 * ({@link HostJudge}): the node's evidence {@code host} in {@code fabricd preflight --format json}.
 *
 * @param p50  the median hold: high for a host starved throughout
 * @param p90  the 90th percentile: high for one that answers some probes late (stalls now and then);
 *             null when its partners' agents did not say it or said it of too few probes
 * @param slow either is above its limit: the node is excluded for it
 */
@JsonPropertyOrder({"transport", "p50", "p90", "slow"})
@JsonInclude(JsonInclude.Include.ALWAYS)
public record HostHold(String transport, Statistic p50, Statistic p90, boolean slow) {

    /**
     * One statistic of the holds, against the set's.
     *
     * @param holdSeconds      the node's: each window's and round's, the one that those with at least half
     *                         of its answered probes stay within
     * @param setMedianSeconds the set's median of that over its judged nodes, on this transport
     * @param limitSeconds     the most it may be: the policy's latency factor x the set's median, never below the floor
     * @param probes           the answered probes it rests on
     * @param above            above the limit
     */
    @JsonPropertyOrder({"hold_seconds", "set_median_seconds", "limit_seconds", "probes", "above"})
    public record Statistic(@JsonProperty("hold_seconds") double holdSeconds, @JsonProperty("set_median_seconds") double setMedianSeconds,
                            @JsonProperty("limit_seconds") double limitSeconds, long probes, boolean above) {
    }
}
