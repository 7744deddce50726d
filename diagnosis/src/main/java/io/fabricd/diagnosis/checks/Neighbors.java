package io.fabricd.diagnosis.checks;

import io.fabricd.model.HostModel;
import io.fabricd.model.Neighbor;
import io.fabricd.model.finding.Evidence;
import java.util.Optional;

/**
 * The switch port a netdev is cabled to, for the words of findings about a hop: only a stable
 * neighbour ({@link Neighbor#stable()}) is named, and where none is known the words say "the switch port".
 */
final class Neighbors {
    private Neighbors() {
    }

    static Optional<Neighbor> stable(HostModel m, String netdev) {
        return m.neighbor(netdev).filter(Neighbor::stable);
    }

    /** "switch leaf-07 port Ethernet12" or "the switch port". */
    static String name(HostModel m, String netdev) {
        return stable(m, netdev).map(Neighbor::words).orElse("the switch port");
    }

    /** The switch's port name for a command, or a placeholder. */
    static String port(HostModel m, String netdev) {
        return stable(m, netdev).map(Neighbor::switchPort).filter(p -> p != null).orElse("<port>");
    }

    /** Adds the neighbour's name, port and how it was learnt to a finding's evidence, when known. */
    static void evidence(Evidence.Builder ev, HostModel m, String netdev) {
        stable(m, netdev).ifPresent(n -> {
            if (n.switchName() != null) {
                ev.put("switch", n.switchName());
            }
            if (n.switchPort() != null) {
                ev.put("switch_port", n.switchPort());
            }
            if (n.chassisId() != null) {
                ev.put("chassis_id", n.chassisId());
            }
            ev.put("neighbor_learned", n.learned());
        });
    }

    /** Where the PFC of a switch port is shown, on the switch systems fabricd knows the commands of. */
    static String pfcCommands(String port) {
        return "SONiC: `pfc show priority " + port + "`, `show pfc counters`; Cumulus (NVUE): `nv show interface " + port
                + " qos pfc`; Arista EOS: `show priority-flow-control interfaces " + port + "`; NVIDIA Onyx: "
                + "`show dcb priority-flow-control`";
    }
}
