package io.fabricd.diagnosis.checks;

import io.fabricd.model.Gid;
import io.fabricd.model.HostModel;
import io.fabricd.model.RdmaPort;
import io.fabricd.diagnosis.Check;
import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.model.finding.Evidence;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code roce_gid_missing} (critical): an up Ethernet RDMA port with no RoCE v2 GID bound to a
 * routable address (an IPv4-mapped GID, or an IPv6 GID outside fe80::/10). Without one, RoCE v2
 * cannot cross an IP router and NCCL/rdma_cm pick a link-local or v1 GID: hangs and timeouts
 * that look like network failures (nccl#426, #769). GID types the kernel would not tell give an
 * info finding, an empty table (unreadable) nothing: unknown is never critical.
 */
public final class RoceGidMissing extends Check.Declared {

    public RoceGidMissing() {
        super("roce_gid_missing");
    }

    @Override
    public List<Finding> evaluate(Inputs in, DiagnosisConfig config) {
        HostModel m = in.current();
        List<Finding> out = new ArrayList<>();
        for (RdmaPort p : m.ports()) {
            if (!Ports.roce(m, p) || !p.up() || p.gids().isEmpty()) {
                continue;
            }
            boolean ok = p.gids().stream().anyMatch(g -> "RoCE v2".equals(g.type()) && routable(g));
            if (ok) {
                continue;
            }
            List<String> table = p.gids().stream().map(g -> g.index() + " " + g.gid() + " " + g.type()).toList();
            Evidence.Builder ev = Evidence.builder();
            ev.texts("gids", table);
            boolean typesUnknown = p.gids().stream().anyMatch(g -> g.type() == null);
            String nd = p.netdev() == null ? "<netdev>" : p.netdev();
            if (typesUnknown) {
                out.add(new Finding(id(), Severity.INFO, Ports.subject(p),
                        "GID types of " + p.device() + " port " + p.port() + " could not be read: RoCE v2 GIDs cannot be confirmed", ev,
                        "Check `show_gids` or `cat /sys/class/infiniband/" + p.device() + "/ports/" + p.port() + "/gid_attrs/types/*`."));
                continue;
            }
            out.add(new Finding(id(), Severity.CRITICAL, Ports.subject(p),
                    p.device() + " port " + p.port() + " has no RoCE v2 GID on a routable address", ev,
                    "Give " + nd + " an IPv4 (or global IPv6) address: the kernel adds the RoCE v2 GID itself (`ip addr add <ip>/<len> dev "
                            + nd + "`; check with `show_gids` / `rdma link`). If the address sits on a VLAN or bond above " + nd
                            + ", use that netdev's GID index (NCCL_IB_GID_INDEX)."));
        }
        return out;
    }

    static boolean routable(Gid g) {
        if (g.ipv4Mapped()) {
            return true;
        }
        String first = g.gid().length() >= 4 ? g.gid().substring(0, 4).toLowerCase(Locale.ROOT) : "";
        return !(first.startsWith("fe8") || first.startsWith("fe9") || first.startsWith("fea") || first.startsWith("feb"))
                && !g.gid().replace(":", "").replace("0", "").isEmpty();
    }
}
