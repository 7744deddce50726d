package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * How long a node's responder held the probes it answered over one transport, as the gate judged it
 * ({@link HostJudge}): the node's evidence {@code host} in {@code fabricd preflight --format json}.
 *
 * @param holdP50Seconds       the median hold of the probes its partners sent it
 * @param medianHoldP50Seconds the set's median of that over its judged nodes, on this transport
 * @param limitSeconds         the most it may be: the policy's latency factor x that median, and never below the floor
 * @param probes               the answered probes it rests on
 * @param slow                 above the limit: the node is excluded for it
 */
@JsonPropertyOrder({"transport", "hold_p50_seconds", "median_hold_p50_seconds", "limit_seconds", "probes", "slow"})
public record HostHold(String transport, @JsonProperty("hold_p50_seconds") double holdP50Seconds,
                       @JsonProperty("median_hold_p50_seconds") double medianHoldP50Seconds,
                       @JsonProperty("limit_seconds") double limitSeconds, long probes, boolean slow) {
}
