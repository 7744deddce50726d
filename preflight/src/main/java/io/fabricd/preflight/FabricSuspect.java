package io.fabricd.preflight;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import io.fabricd.model.topology.Element;
import java.util.List;

/**
 * A part of the fabric the set's bad pairs share ({@link FabricLocaliser}): one element, or several
 * that the probes cannot tell apart (a NIC and its cable, a leaf and the one node under it), any one
 * of which explains them.
 *
 * @param elements the element, or the elements one of which is bad, in the order of their ids
 * @param badPairs the bad pairs that led here: those it explains (each end first in the set's order)
 * @param pairs    the judged pairs that cross it (good and bad)
 * @param bad      of those, the bad ones
 */
@JsonPropertyOrder({"elements", "pairs", "bad", "bad_share", "bad_pairs"})
public record FabricSuspect(@JsonIgnore List<Element> elements, @JsonIgnore List<Pair> badPairs, int pairs, int bad) {
    public FabricSuspect {
        elements = List.copyOf(elements);
        badPairs = List.copyOf(badPairs);
    }

    /** The share of the judged pairs crossing it that are bad. */
    @JsonProperty("bad_share")
    public double badShare() {
        return pairs == 0 ? 0 : Math.round((double) bad / pairs * 1000) / 1000.0;
    }

    /** The elements' ids, as in JSON: "switch:leaf-07", "nic:gpu007". */
    @JsonProperty("elements")
    public List<String> ids() {
        return elements.stream().map(Element::id).toList();
    }

    /** The bad pairs as {@code a<->b}. */
    @JsonProperty("bad_pairs")
    public List<String> badPairNames() {
        return badPairs.stream().map(p -> p.a() + "<->" + p.b()).toList();
    }

    /**
     * Whether it is a part of the fabric between the leaves' cables alone: a switch or an uplink, and no
     * node's NIC or cable (a tie with a node's own path, such as the only node of a leaf in the set,
     * is that node's too: its bad links are judged with it).
     */
    public boolean aboveTheCables() {
        return nodes().isEmpty() && elements.stream().anyMatch(e -> e instanceof Element.Switch || e instanceof Element.Uplink);
    }

    /** The nodes whose NIC is among its elements. */
    public List<String> nodes() {
        return elements.stream().filter(e -> e instanceof Element.Nic).map(e -> ((Element.Nic) e).node()).toList();
    }

    /** The leaf switches among its elements. */
    public List<String> leaves() {
        return elements.stream().filter(e -> e instanceof Element.Switch s && s.tier() == 0).map(e -> ((Element.Switch) e).name()).toList();
    }

    /** "switch leaf-07" or "one of nic gpu007, cable gpu007". */
    String name() {
        List<String> each = elements.stream().map(e -> e.id().replaceFirst(":", " ")).toList();
        return each.size() == 1 ? each.get(0) : "one of " + String.join(", ", each);
    }
}
