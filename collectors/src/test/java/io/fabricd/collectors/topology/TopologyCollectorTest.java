package io.fabricd.collectors.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.GpuNicPath;
import io.fabricd.model.HostModel;
import io.fabricd.model.PciFunction;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopologyCollectorTest {

    static HostModel collect(String fixture) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open(fixture));
    }

    @Test
    void everyPathClass() {
        HostModel m = collect("host-d-topology");
        Map<String, String> paths = m.gpuNicPaths().stream().filter(p -> p.path() != null)
                .collect(Collectors.toMap(GpuNicPath::gpu, GpuNicPath::path));
        assertThat(paths).containsExactlyInAnyOrderEntriesOf(Map.of("0000:18:00.0", "PIX", "0000:1c:00.0", "PXB",
                "0000:20:00.0", "PHB", "0000:36:00.0", "NODE", "0000:9b:00.0", "SYS"));
        GpuNicPath unknown = m.gpuNicPaths().stream().filter(p -> p.gpu().equals("0000:c1:00.0")).findFirst().orElseThrow();
        assertThat(unknown.path()).isNull();
        assertThat(unknown.reason()).contains("-1");
    }

    @Test
    void pcieLinksAgainstTheirUpstreamPort() {
        HostModel m = collect("host-d-topology");
        PciFunction nic = pci(m, "0000:19:00.0");
        assertThat(nic.kind()).isEqualTo("nic");
        assertThat(nic.width()).isEqualTo(8);
        assertThat(nic.maxWidth()).isEqualTo(16);
        assertThat(nic.speed()).isEqualTo(32_000_000_000L);
        PciFunction gen5InGen4 = pci(m, "0000:1c:00.0");
        assertThat(gen5InGen4.speed()).isEqualTo(16_000_000_000L);
        assertThat(gen5InGen4.maxSpeed()).isEqualTo(16_000_000_000L); // min(card Gen5, slot Gen4): not degraded
        assertThat(pci(m, "0000:18:00.0").speed()).isEqualTo(2_500_000_000L); // idle GPU
        assertThat(pci(m, "0000:16:00.0").kind()).isEqualTo("bridge");
        assertThat(pci(m, "0000:c1:00.0").numaNode()).isEqualTo(-1);
        assertThat(pci(m, "0000:18:00.0").driver()).isEqualTo("nvidia");
    }

    @Test
    void aLinkTheDeviceDoesNotReportIsUnknownNeverTheUpstreamPorts(@TempDir Path tmp)
            throws Exception {
        Path root = Fixtures.copy("host-d-topology", tmp.resolve("h"));
        Path nic = root.resolve("sys/bus/pci/devices/0000:19:00.0").toRealPath();
        Files.delete(nic.resolve("max_link_speed"));
        Files.delete(nic.resolve("max_link_width"));
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root));
        PciFunction f = pci(m, "0000:19:00.0");
        assertThat(f.maxSpeed()).isNull();
        assertThat(f.maxWidth()).isNull();
        assertThat(f.width()).isEqualTo(8);
    }

    @Test
    void hostAGpuSharesTheSwitchWithItsNic() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(
                SnapshotHostSource.open(Fixtures.host("host-a-ib")));
        assertThat(m.gpuNicPaths()).singleElement().satisfies(p -> assertThat(p.path()).isEqualTo("PIX"));
    }

    @Test
    void gpuDirect() {
        assertThat(collect("host-a-ib").gpuDirect().enabled()).isTrue();
        HostModel none = collect("host-d-topology");
        assertThat(none.gpuDirect().enabled()).isFalse();
        assertThat(none.gpuDirect().evidence()).anyMatch(e -> e.contains("older than 5.12"));
        assertThat(collect("host-c-rxe").gpuDirect().enabled()).isNull(); // no GPU: does not apply
        assertThat(collect("host-b-roce").gpuDirect().enabled()).isFalse();
    }

    @Test
    void hostFacts() {
        HostModel m = collect("host-a-ib");
        assertThat(m.facts().kernel()).isEqualTo("6.1.0-57-amd64"); // from the manifest
        assertThat(m.facts().numaCpus()).containsEntry(0, 112).containsEntry(1, 112);
        assertThat(HostFactsCollector.countCpus("0-27,112-139\n")).isEqualTo(56);
        assertThat(HostFactsCollector.countCpus("3")).isEqualTo(1);
        assertThat(HostFactsCollector.countCpus("")).isZero();
        assertThat(HostFactsCollector.countCpus("5-2")).isNull();
        assertThat(HostFactsCollector.countCpus("a-b")).isNull();
    }

    @Test
    void speedStrings() {
        assertThat(TopologyCollector.transfers("32.0 GT/s PCIe")).isEqualTo(32_000_000_000L);
        assertThat(TopologyCollector.transfers("8 GT/s")).isEqualTo(8_000_000_000L);
        assertThat(TopologyCollector.transfers("2.5 GT/s PCIe\n")).isEqualTo(2_500_000_000L);
        assertThat(TopologyCollector.transfers("Unknown")).isNull();
        assertThat(GpuDirectCollector.atLeast("6.1.0-57-amd64", 5, 12)).isTrue();
        assertThat(GpuDirectCollector.atLeast("5.10.0-28-amd64", 5, 12)).isFalse();
    }

    private static PciFunction pci(HostModel m, String addr) {
        return m.pci().stream().filter(f -> f.address().equals(addr)).findFirst().orElseThrow();
    }
}
