package io.fabricd.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.model.topology.Placement;
import io.fabricd.model.topology.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** topograph's Node labels, the order of trust between the sources, and the host's placement from one place. */
class PlacementSourcesTest {
    private static final List<TopologyConfig.LabelFamily> TOPOGRAPH = TopologyConfig.TOPOGRAPH;

    @TempDir
    Path tmp;

    @Test
    void topographTiersFromTheLeafUpAndTheAcceleratorDomain() {
        Map<String, String> labels = Map.of("fabric.topograph.run/tier-0", "s1", "fabric.topograph.run/tier-1", "s2",
                "fabric.topograph.run/tier-2", "s3", "accelerator.topograph.run/domain", "nvl1",
                "accelerator.topograph.run/sub-domain", "nvl1.rack01", "kubernetes.io/hostname", "node-1");
        assertThat(TopographLabels.placement("node-1", labels, TOPOGRAPH))
                .contains(new Placement("node-1", List.of("s1", "s2", "s3"), "nvl1", Placement.Source.TOPOGRAPH));
    }

    @Test
    void theOlderLabelFamiliesAreRead() {
        assertThat(TopographLabels.placement("n", Map.of("network.topology.nvidia.com/leaf", "l7", "network.topology.nvidia.com/spine",
                "sp1", "network.topology.nvidia.com/accelerator", "nvl-3"), TOPOGRAPH))
                .contains(new Placement("n", List.of("l7", "sp1"), "nvl-3", Placement.Source.TOPOGRAPH));
        assertThat(TopographLabels.placement("n", Map.of("network.topology.nvidia.com/block", "b2",
                "network.topology.nvidia.com/spine", "sp1", "network.topology.nvidia.com/datacenter", "dc"), TOPOGRAPH).orElseThrow()
                .switches()).containsExactly("b2", "sp1", "dc");
        assertThat(TopographLabels.placement("n", Map.of("rack", "r1"), TOPOGRAPH)).isEmpty();
    }

    @Test
    void keysAreConfigurable() {
        List<TopologyConfig.LabelFamily> own = List.of(new TopologyConfig.LabelFamily(List.of("site/tor", "site/agg"), "site/nvl"));
        assertThat(TopographLabels.placement("n", Map.of("site/tor", "tor-4", "fabric.topograph.run/tier-0", "x"), own).orElseThrow()
                .switches()).containsExactly("tor-4");
    }

    @Test
    void aLabelValueThatIsNoNameIsAnErrorNamingTheLabelNeverAPlacement() {
        assertThatThrownBy(() -> TopographLabels.placement("n", Map.of("fabric.topograph.run/tier-0", "leaf 7"), TOPOGRAPH))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("Node label fabric.topograph.run/tier-0=\"leaf 7\" is not a name");
        assertThatThrownBy(() -> TopographLabels.placement("n", Map.of("fabric.topograph.run/tier-0", "l1",
                "accelerator.topograph.run/domain", ""), TOPOGRAPH)).hasMessageContaining("accelerator.topograph.run/domain=\"\"");
        assertThatThrownBy(() -> TopographLabels.placement("n", Map.of("fabric.topograph.run/tier-1", "sp"), TOPOGRAPH))
                .hasMessageContaining("fabric.topograph.run/tier-1 is set but fabric.topograph.run/tier-0 (the leaf) is not");
        assertThatThrownBy(() -> TopographLabels.placement("n", Map.of("fabric.topograph.run/tier-0", "l", "fabric.topograph.run/tier-2",
                "c"), TOPOGRAPH)).hasMessageContaining("fabric.topograph.run/tier-2 is set but fabric.topograph.run/tier-1 below it is not");
    }

    @Test
    void theOrderOfTrustIsSlurmThenTopographThenRackThenPlainFile() {
        Topology slurm = TopologyFiles.parse("topology.conf", "SwitchName=ib-l1 Nodes=n1\n");
        Topology plain = TopologyFiles.parse("site.topology", "n1 leaf=file-l1\n");
        Optional<Placement> topograph = Optional.of(new Placement("n1", List.of("tg-l1"), null, Placement.Source.TOPOGRAPH));
        assertThat(PlacementResolver.resolve("n1", slurm, topograph, "r1").orElseThrow().source()).isEqualTo(Placement.Source.SLURM);
        assertThat(PlacementResolver.resolve("n1", plain, topograph, "r1").orElseThrow().leaf()).isEqualTo("tg-l1");
        assertThat(PlacementResolver.resolve("n1", plain, Optional.empty(), "r1"))
                .contains(new Placement("n1", List.of("r1"), null, Placement.Source.LABELS));
        assertThat(PlacementResolver.resolve("n1", plain, Optional.empty(), null).orElseThrow().source()).isEqualTo(Placement.Source.FILE);
        assertThat(PlacementResolver.resolve("n1", Topology.EMPTY, Optional.empty(), null)).isEmpty();
        // a file naming the node by its short name places the FQDN the agent goes by
        assertThat(PlacementResolver.resolve("n1.cluster.example", slurm, Optional.empty(), null).orElseThrow().leaf()).isEqualTo("ib-l1");
    }

    @Test
    void theHostsPlacementFollowsItsFileAndLabelsAndABadFilePlacesNothing() throws IOException {
        Path file = Files.writeString(tmp.resolve("topology.conf"), "SwitchName=l1 Nodes=node-1\nSwitchName=sp Switches=l1\n");
        Map<String, String> labels = new HashMap<>();
        String[] rack = {null};
        HostPlacement host = new HostPlacement(TopologyConfig.defaults(), file, () -> "node-1", () -> labels, () -> rack[0]);
        assertThat(host.refresh()).contains(new Placement("node-1", List.of("l1", "sp"), null, Placement.Source.SLURM));

        Files.writeString(file, "SwitchName=l1 Nodes=node-1\nSwitchName=l2 Nodes=node-1\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(System.currentTimeMillis() + 5000));
        assertThat(host.refresh()).as("a broken file places nothing").isEmpty();
        labels.put("fabric.topograph.run/tier-0", "leaf 1");
        assertThat(host.refresh()).as("nor does a bad label").isEmpty();
        rack[0] = "r9";
        assertThat(host.refresh()).contains(new Placement("node-1", List.of("r9"), null, Placement.Source.LABELS));
        labels.put("fabric.topograph.run/tier-0", "leaf-1");
        assertThat(host.refresh().orElseThrow().leaf()).isEqualTo("leaf-1");
    }

    @Test
    void theDefaultFileIsSlurmsWhereSlurmKeepsIt() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("slurm"));
        Files.writeString(dir.resolve("topology.conf"), "SwitchName=l1 Nodes=n1\n");
        TopologyConfig d = TopologyConfig.defaults();
        assertThat(d.fileToRead(true, dir.resolve("slurm.conf").toString())).isEqualTo(dir.resolve("topology.conf"));
        assertThat(d.fileToRead(false, dir.resolve("slurm.conf").toString())).as("a snapshot or the demo: not this machine's").isNull();
        assertThat(new TopologyConfig("none", null).fileToRead(true, dir.resolve("slurm.conf").toString())).isNull();
        assertThat(new TopologyConfig("/x/site.topology", null).fileToRead(false, null)).isEqualTo(Path.of("/x/site.topology"));
        Files.writeString(dir.resolve("topology.yaml"), "- topology: default\n  tree: {}\n");
        assertThat(d.fileToRead(true, dir.resolve("slurm.conf").toString())).as("Slurm reads topology.yaml instead").isNull();
    }

    @Test
    void theFileNamesTheHostInAnyCaseWithOrWithoutItsDomain() {
        Topology t = TopologyFiles.parse("site.topology", "roce-node-07.dc1.example leaf=l1\nGPU-01 leaf=l2\ngpu-02.dc1 leaf=l3\n");
        assertThat(PlacementResolver.inFile("roce-node-07", t).orElseThrow().leaf()).isEqualTo("l1");
        assertThat(PlacementResolver.inFile("ROCE-NODE-07.dc2.example", t).orElseThrow().leaf()).isEqualTo("l1");
        assertThat(PlacementResolver.inFile("gpu-01", t).orElseThrow().leaf()).isEqualTo("l2");
        assertThat(PlacementResolver.inFile("Gpu-02", t).orElseThrow().leaf()).isEqualTo("l3");
        assertThat(PlacementResolver.inFile("gpu-03", t)).isEmpty();
        Topology twice = TopologyFiles.parse("site.topology", "gpu1 leaf=l1\nGPU1.dc1 leaf=l2\n");
        assertThat(PlacementResolver.inFile("gpu1", twice).orElseThrow().leaf()).as("the exact name wins").isEqualTo("l1");
        assertThatThrownBy(() -> PlacementResolver.inFile("Gpu1.dc2", twice))
                .hasMessage("this host (Gpu1.dc2) is named more than once in the file, as gpu1, GPU1.dc1: fabricd matches names "
                        + "without case and domain; name the host once, as it calls itself");
    }

    @Test
    void aHostTheFileDoesNotNameIsSaidOnceAndARenamedHostFindsItsOwnLine() throws IOException {
        Path file = Files.writeString(tmp.resolve("site.topology"), "node-1 leaf=l1\nNODE-2.dc1 leaf=l2\n");
        String[] name = {"node-9"};
        HostPlacement host = new HostPlacement(TopologyConfig.defaults(), file, () -> name[0], Map::of, () -> null);
        List<String> logged = new ArrayList<>();
        Handler h = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger log = Logger.getLogger(HostPlacement.class.getName());
        log.addHandler(h);
        try {
            assertThat(host.refresh()).isEmpty();
            assertThat(host.refresh()).isEmpty();
            assertThat(logged).filteredOn(m -> m.contains("this host")).containsExactly("topology: this host (node-9) is not in " + file
                    + ": the file places it nowhere; add it to the file, by the name the host goes by (case and domain play no part)");
            name[0] = "node-2";
            assertThat(host.refresh().orElseThrow().leaf()).isEqualTo("l2");
            name[0] = "node-1";
            assertThat(host.refresh().orElseThrow().leaf()).isEqualTo("l1");
        } finally {
            log.removeHandler(h);
        }
    }
}
