package io.fabricd.collectors.pcie;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.snapshot.SnapshotWriter;
import io.fabricd.collectors.source.CollectionRunner;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.HostModel;
import io.fabricd.model.Iommu;
import io.fabricd.model.PcieConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pcie and iommu collectors on a host with config spaces and IOMMU groups, and what a snapshot keeps of them. */
class PcieCollectorsTest {

    static HostModel collect(Path root) {
        return HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root));
    }

    @Test
    void everyTrackedFunctionsConfigIsDecoded(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).acs(PcieHosts.NIC_PORT, 0x1d);
        HostModel m = collect(h.root());
        PcieConfig nic = m.pcieConfig(PcieHosts.NIC).orElseThrow();
        assertThat(nic.maxReadRequest()).isEqualTo(512);
        assertThat(nic.maxPayload()).isEqualTo(256);
        assertThat(nic.relaxedOrdering()).isTrue();
        assertThat(m.pcieConfig(PcieHosts.NIC_PORT).orElseThrow().acs().redirects()).isTrue();
        assertThat(m.pcieConfig(PcieHosts.GPU_PORT).orElseThrow().acs().redirects()).isFalse();
        // functions without a config file (the fixture's other GPUs) are simply not there
        assertThat(m.pcieConfig("0000:9b:00.0")).isEmpty();
        assertThat(m.collector("pcie").orElseThrow().errors()).isEmpty();
    }

    @Test
    void anUnprivilegedReadIsKnownToKnowNothing(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        h.config(PcieHosts.NIC, Arrays.copyOf(Fixtures.lspciDump("pciutils-cap-pcie-2.lspci-xxxx.txt"), 64));
        PcieConfig nic = collect(h.root()).pcieConfig(PcieHosts.NIC).orElseThrow();
        assertThat(nic.bytesRead()).isEqualTo(64);
        assertThat(nic.maxReadRequest()).isNull();
        assertThat(nic.relaxedOrdering()).isNull();
    }

    /**
     * fabricd snapshot without CAP_SYS_ADMIN holds 64-byte config files, and the count comes from
     * their length: every function of the demo read to 64 bytes, truncated, its registers unknown,
     * and a snapshot of that snapshot the same. A function that reads all ones is gone, not truncated.
     */
    @Test
    void aSnapshotTakenWithoutCapSysAdminCountsItsSixtyFourBytes(@TempDir Path tmp) throws Exception {
        Path demo = Fixtures.demo(tmp.resolve("demo"));
        HostModel whole = collect(demo);
        assertThat(whole.pcieConfig()).isNotEmpty().allSatisfy(c -> {
            assertThat(c.bytesRead()).as(c.address()).isEqualTo(4096);
            assertThat(c.truncated()).isFalse();
        });
        assertThat(Fixtures.truncateConfigSpaces(demo, 64)).hasSizeGreaterThanOrEqualTo(whole.pcieConfig().size());
        HostModel cut = collect(demo);
        assertThat(cut.pcieConfig()).extracting(PcieConfig::address)
                .containsExactlyElementsOf(whole.pcieConfig().stream().map(PcieConfig::address).toList());
        assertThat(cut.pcieConfig()).allSatisfy(c -> {
            assertThat(c.bytesRead()).as(c.address()).isEqualTo(64);
            assertThat(c.truncated()).isTrue();
            assertThat(c.allOnes()).isFalse();
            assertThat(c.maxReadRequest()).isNull();
            assertThat(c.maxPayloadSupported()).isNull();
            assertThat(c.acs()).isNull();
        });
        Path out = tmp.resolve("snap");
        SnapshotWriter.write(SnapshotHostSource.open(demo), CollectorConfig.DEFAULT, out, "test");
        assertThat(collect(out).pcieConfig()).isEqualTo(cut.pcieConfig());

        String gone = cut.pcieConfig().get(0).address();
        byte[] ones = new byte[64];
        Arrays.fill(ones, (byte) 0xff);
        Files.write(demo.resolve("sys/bus/pci/devices/" + gone).toRealPath().resolve("config"), ones);
        PcieConfig c = collect(demo).pcieConfig(gone).orElseThrow();
        assertThat(c.allOnes()).isTrue();
        assertThat(c.truncated()).isFalse();
    }

    @Test
    void iommuGroupsAndTheirTypes(@TempDir Path tmp) {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).iommu("BOOT_IMAGE=/vmlinuz root=/dev/sda1 intel_iommu=on quiet", "DMA-FQ",
                PcieHosts.NIC);
        Iommu iommu = collect(h.root()).iommu();
        assertThat(iommu.units()).containsExactly("dmar0");
        assertThat(iommu.cmdline()).containsExactly("intel_iommu=on");
        Iommu.Device nic = iommu.devices().stream().filter(d -> d.address().equals(PcieHosts.NIC)).findFirst().orElseThrow();
        assertThat(nic.group()).isEqualTo("40");
        assertThat(nic.type()).isEqualTo("DMA-FQ");
        assertThat(iommu.mode(nic)).isEqualTo("translated");
        // a GPU in no group while the units are known: its DMA is not translated
        Iommu.Device gpu = iommu.devices().stream().filter(d -> d.address().equals(PcieHosts.GPU)).findFirst().orElseThrow();
        assertThat(iommu.mode(gpu)).isEqualTo("off");
    }

    /** A snapshot from before the IOMMU was read says nothing about it: unknown, not off. */
    @Test
    void aSnapshotWithoutIommuFilesIsUnknown() {
        Iommu iommu = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-d-topology")).iommu();
        assertThat(iommu.units()).isNull();
        assertThat(iommu.devices()).allSatisfy(d -> assertThat(iommu.mode(d)).isNull());
    }

    /** fabricd snapshot keeps the config bytes as they were read, and the IOMMU links and files. */
    @Test
    void aSnapshotKeepsConfigBytesAndIommuFiles(@TempDir Path tmp) throws Exception {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h")).acs(PcieHosts.NIC_PORT, 0x1d)
                .iommu("intel_iommu=on iommu=pt", "identity", PcieHosts.NIC, PcieHosts.GPU);
        Path out = tmp.resolve("snap");
        SnapshotWriter.write(SnapshotHostSource.open(h.root()), CollectorConfig.DEFAULT, out, "test");
        for (String bdf : new String[] {PcieHosts.NIC, PcieHosts.NIC_PORT, PcieHosts.GPU}) {
            Path rel = Path.of("sys/bus/pci/devices/" + bdf + "/config");
            assertThat(Files.readAllBytes(out.resolve(rel))).as(bdf).isEqualTo(Files.readAllBytes(h.root().resolve(rel)));
        }
        HostModel again = collect(out);
        HostModel first = collect(h.root());
        assertThat(again.pcieConfig()).isEqualTo(first.pcieConfig());
        assertThat(again.iommu()).isEqualTo(first.iommu());
        assertThat(again.iommu().devices()).anySatisfy(d -> assertThat(again.iommu().mode(d)).isEqualTo("passthrough"));
    }

    /** An agent's loop keeps the config between collections (a config read is 1 024 config cycles per function) until the refresh. */
    @Test
    void theAgentsLoopKeepsConfigUntilTheRefresh(@TempDir Path tmp) throws Exception {
        PcieHosts h = PcieHosts.topology(tmp.resolve("h"));
        SnapshotHostSource src = SnapshotHostSource.open(h.root());
        HostCollection kept = HostCollection.repeating(CollectorConfig.DEFAULT, Duration.ofHours(1), CollectionRunner.CALLER);
        assertThat(kept.collect(src).pcieConfig(PcieHosts.NIC).orElseThrow().maxReadRequest()).isEqualTo(512);
        h.deviceControl(PcieHosts.NIC, 0x5830); // setpci: Max Read Request 4096
        assertThat(kept.collect(src).pcieConfig(PcieHosts.NIC).orElseThrow().maxReadRequest()).as("kept").isEqualTo(512);
        HostCollection refreshed = HostCollection.repeating(CollectorConfig.DEFAULT, Duration.ZERO, CollectionRunner.CALLER);
        assertThat(refreshed.collect(src).pcieConfig(PcieHosts.NIC).orElseThrow().maxReadRequest()).isEqualTo(4096);
        assertThat(collect(h.root()).pcieConfig(PcieHosts.NIC).orElseThrow().maxReadRequest()).as("one-shot").isEqualTo(4096);
    }
}
