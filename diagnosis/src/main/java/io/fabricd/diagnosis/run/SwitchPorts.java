package io.fabricd.diagnosis.run;

import io.fabricd.model.HostModel;
import io.fabricd.model.Neighbor;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Subject;
import java.util.Optional;

/**
 * Names, in the evidence of every finding about a port or a netdev, the switch port at the other end
 * of its cable ({@code switch}, {@code switch_port}), where a stable LLDP neighbour announces it
 * (docs/switch-evidence.md): the on-call engineer goes from any port finding to the switch without a
 * second lookup. A finding that names them already, a finding of the whole host or a GPU, and a port
 * without a known neighbour are left as they are.
 */
final class SwitchPorts {
    private SwitchPorts() {
    }

    static Finding named(Finding f, HostModel m) {
        Subject s = f.subject();
        if (f.evidence().has("switch") || m.neighbors().isEmpty()) {
            return f;
        }
        Optional<Neighbor> n = Optional.empty();
        if (s.netdev() != null) {
            n = m.neighbor(s.netdev());
        } else if (s.device() != null && s.port() != null) {
            n = m.neighbors().stream().filter(x -> s.device().equals(x.device()) && s.port().equals(x.port())).findFirst();
        }
        Neighbor cabled = n.filter(Neighbor::stable).filter(x -> x.switchName() != null).orElse(null);
        if (cabled == null) {
            return f;
        }
        Evidence.Builder b = Evidence.builder();
        f.evidence().entries().forEach(e -> b.put(e.name(), e.value()));
        b.put("switch", cabled.switchName());
        if (cabled.switchPort() != null) {
            b.put("switch_port", cabled.switchPort());
        }
        return new Finding(f.check(), f.severity(), s, f.summary(), b.build(), f.remediation());
    }
}
