package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The gate's word on the link between two nodes (both directions together). EXCLUDE: its
 * measurements are bad; {@link #blame()} says whether the link itself is held bad or an end.
 *
 * @param evidence what the verdict rests on, by name (see {@link Evidence})
 */
@JsonPropertyOrder({"a", "b", "verdict", "reasons", "evidence"})
public record LinkVerdict(String a, String b, Verdict verdict, List<String> reasons, Map<String, Object> evidence) {
    public LinkVerdict {
        reasons = List.copyOf(reasons);
        evidence = Collections.unmodifiableMap(new LinkedHashMap<>(evidence));
    }

    /**
     * For a bad link: {@link Evidence#BLAME_LINK} when the link itself is bad (both ends otherwise
     * good), a node's name when that end explains it, {@link Evidence#BLAME_UNKNOWN} when it is not
     * known which; null for a link that is not bad.
     */
    public String blame() {
        Object b = evidence.get(Evidence.BLAME);
        return b == null ? null : b.toString();
    }

    /** Whether this link itself, not one of its ends, is bad. */
    public boolean badLink() {
        return verdict == Verdict.EXCLUDE && Evidence.BLAME_LINK.equals(blame());
    }
}
