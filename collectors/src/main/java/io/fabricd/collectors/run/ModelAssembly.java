package io.fabricd.collectors.run;

import io.fabricd.collectors.Slices;
import io.fabricd.collectors.lldp.LldpSlice;
import io.fabricd.collectors.netdev.DcbSlice;
import io.fabricd.collectors.netdev.EthtoolSlice;
import io.fabricd.collectors.netdev.NetdevSlice;
import io.fabricd.collectors.pcie.PcieSlice;
import io.fabricd.collectors.rdma.RdmaSlice;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.topology.TopologySlice;
import io.fabricd.collectors.verbs.QpSlice;
import io.fabricd.collectors.verbs.VerbsSlice;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.GpuDirect;
import io.fabricd.model.HostFacts;
import io.fabricd.model.HostModel;
import io.fabricd.model.Iommu;
import io.fabricd.model.NetdevInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds the host model from the slices of one collection; a slice absent (stage disabled or failed) is what the host lacks. */
final class ModelAssembly {
    private ModelAssembly() {
    }

    static HostModel build(String hostname, HostSource source, Instant started, Map<Class<?>, Object> slices, List<CollectorRun> runs) {
        Slices s = Slices.of(slices.values().toArray());
        EthtoolSlice ethtool = s.get(EthtoolSlice.class).orElse(null);
        DcbSlice dcb = s.get(DcbSlice.class).orElse(null);
        List<NetdevInfo> netdevs = new ArrayList<>();
        for (NetdevInfo n : s.get(NetdevSlice.class).map(NetdevSlice::netdevs).orElse(List.of())) {
            EthtoolSlice.Stats st = ethtool == null ? null : ethtool.byNetdev().get(n.name());
            if (st != null) {
                n = n.withStats(st.stats(), st.pause());
            }
            DcbSlice.Dcb d = dcb == null ? null : dcb.byNetdev().get(n.name());
            if (d != null) {
                n = n.withDcb(d.state(), d.trust(), d.trustSource());
            }
            netdevs.add(n);
        }
        var topology = s.get(TopologySlice.class);
        return new HostModel(hostname, source.describe(), started, source.manifest().map(m -> m.labels()).orElse(Map.of()),
                s.get(HostFacts.class).orElse(null), s.get(RdmaSlice.class).map(RdmaSlice::devices).orElse(List.of()), netdevs,
                s.get(VerbsSlice.class).map(VerbsSlice::portAttrs).orElse(List.of()),
                s.get(QpSlice.class).map(QpSlice::qps).orElse(List.of()),
                topology.map(TopologySlice::pci).orElse(List.of()), topology.map(TopologySlice::paths).orElse(List.of()),
                s.get(GpuDirect.class).orElse(new GpuDirect(null, "not checked", List.of())),
                s.get(PcieSlice.class).map(PcieSlice::configs).orElse(List.of()), s.get(Iommu.class).orElse(null),
                s.get(LldpSlice.class).map(LldpSlice::neighbors).orElse(List.of()), runs);
    }
}
