package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.HostModel;
import io.fabricd.model.Neighbor;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.finding.Subject;
import io.fabricd.model.topology.Placement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * {@code topology_mismatch} (warning): the site's topology (Slurm's topology.conf, topograph's labels or
 * the plain file) places the host under one leaf, while every RDMA port whose switch is known (a stable
 * LLDP neighbour with a name) is cabled to another switch: the site's map is wrong, or the cables are in
 * another switch. Only what both sides name is compared: a host with no stable named neighbour, or no
 * declared leaf, is no claim; a placement from a rack label is not compared (a rack is not a switch's
 * name); one port on the declared leaf is enough (a rail-optimised host cables each NIC to its own
 * leaf); names compare without case and without a domain ("leaf-07" is "LEAF-07.dc1.example").
 */
public final class TopologyMismatch extends Check.Declared {

    public TopologyMismatch() {
        super("topology_mismatch");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        Placement declared = in.declared();
        if (declared == null || declared.leaf() == null || declared.source() == Placement.Source.LABELS
                || declared.source() == Placement.Source.LLDP) {
            return List.of();
        }
        HostModel m = in.current();
        List<Neighbor> seen = m.neighbors().stream().filter(n -> n.stable() && n.switchName() != null && n.device() != null).toList();
        if (seen.isEmpty() || seen.stream().anyMatch(n -> same(n.switchName(), declared.leaf()))) {
            return List.of();
        }
        TreeSet<String> switches = new TreeSet<>();
        List<String> cabled = new ArrayList<>();
        for (Neighbor n : seen) {
            switches.add(n.switchName());
            cabled.add(n.netdev() + " -> " + n.describe());
        }
        String actual = String.join(", ", switches);
        Evidence ev = Evidence.builder().put("declared_leaf", declared.leaf()).put("declared_source", declared.source().wireName())
                .texts("lldp_neighbors", cabled).build();
        return List.of(new Finding(id(), Severity.WARNING, Subject.HOST,
                "the site's topology (" + declared.source().wireName() + ") places this host under " + declared.leaf()
                        + ", but its RDMA ports are cabled to " + actual + " (" + String.join("; ", cabled) + ")",
                ev,
                "Either the map or the cabling is wrong, and fabricd's localisation of faults (the gate's suspect switches, the "
                        + "leaf matrices) follows the map. If the host belongs under " + actual + ", correct the topology ("
                        + where(declared.source()) + "); if it belongs under " + declared.leaf() + ", its cables reach another switch: "
                        + "check the patching against the cabling plan. Confirm on the switch with its LLDP table: SONiC, Arista EOS "
                        + "and NVIDIA Onyx `show lldp neighbors`, Cumulus (NVUE) `nv show interface lldp`; on the host "
                        + "`lldpcli show neighbors`. Where the topology names switches other than by their LLDP system names, "
                        + "this check cannot compare them: use the switches' own names, or disable topology_mismatch."));
    }

    /** The same switch: equal without case, the part before the first dot of either. */
    static boolean same(String lldpName, String declaredName) {
        return shortName(lldpName).equals(shortName(declaredName));
    }

    private static String shortName(String s) {
        int dot = s.indexOf('.');
        return (dot > 0 ? s.substring(0, dot) : s).toLowerCase(Locale.ROOT);
    }

    private static String where(Placement.Source s) {
        return switch (s) {
            case SLURM -> "Slurm's topology.conf";
            case TOPOGRAPH -> "the Node's topograph labels";
            case FILE -> "the topology file";
            case LABELS, LLDP -> "its source";
        };
    }
}
