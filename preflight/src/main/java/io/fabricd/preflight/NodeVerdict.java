package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.List;

/**
 * The gate's word on one node.
 *
 * @param reasons one line each: what is wrong and what to do (empty when it passes)
 * @param evidence what the verdict rests on
 */
@JsonPropertyOrder({"node", "verdict", "reasons", "evidence"})
public record NodeVerdict(String node, Verdict verdict, List<String> reasons, Evidence evidence) {
    public NodeVerdict {
        reasons = List.copyOf(reasons);
    }

    /**
     * What a node's verdict rests on (the JSON object {@code evidence} of {@code fabricd preflight
     * --format json}); a null part is not written.
     *
     * @param state       how its agent answered
     * @param why         why the agent did not answer well; null when it did
     * @param findings    the checks whose findings exclude the node; null when none does
     * @param host        how long the node's responder held the probes it answered, per transport, as its
     *                    partners measured it ({@link HostJudge}); null for a node with too few probes answered
     * @param linksJudged how many of the node's links were judged (enough samples, or a bandwidth test)
     * @param linksPassed how many of them passed
     * @param badPartners the partners of its bad links that are otherwise good (a node excluded for them); else null
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"state", "why", "findings", "host", "links_judged", "links_passed", "bad_partners"})
    public record Evidence(NodeInput.State state, String why, List<String> findings, List<HostHold> host,
                           @JsonProperty("links_judged") int linksJudged, @JsonProperty("links_passed") int linksPassed,
                           @JsonProperty("bad_partners") List<String> badPartners) {
        public Evidence {
            findings = findings == null ? null : List.copyOf(findings);
            host = host == null ? null : List.copyOf(host);
            badPartners = badPartners == null ? null : List.copyOf(badPartners);
        }

        /** With the responder's holds. */
        Evidence withHost(List<HostHold> holds) {
            return new Evidence(state, why, findings, holds, linksJudged, linksPassed, badPartners);
        }

        /** With what the node's links came to. */
        Evidence withLinks(int judged, int passed, List<String> partners) {
            return new Evidence(state, why, findings, host, judged, passed, partners);
        }
    }
}
