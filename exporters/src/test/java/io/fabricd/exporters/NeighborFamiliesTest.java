package io.fabricd.exporters;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.HostModel;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** fabric_port_neighbor_info and _changes_total of host-b-roce with lldpd's neighbour planted (lldpcli -f json's shape). */
class NeighborFamiliesTest {
    static final String INFO = "fabric_port_neighbor_info";

    static Map<String, Double> metrics(Path root) {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(SnapshotHostSource.open(root));
        return PromText.parse(new String(Exposition.render(FabricMetrics.build(m, false, List.of()), null).body(), StandardCharsets.UTF_8));
    }

    static Path host(Path tmp, String age) throws IOException {
        Path h = Fixtures.copy("host-b-roce", tmp.resolve("h"));
        Files.createDirectories(h.resolve("fabricd/lldp"));
        Files.writeString(h.resolve("fabricd/lldp/neighbors.json"), "{\"lldp\": {\"interface\": {\"ens1f0np0\": {\"via\": \"LLDP\", "
                + "\"age\": \"" + age + "\", \"chassis\": {\"leaf-07\": {\"id\": {\"type\": \"mac\", \"value\": \"0c:42:a1:5e:7f:00\"}}}, "
                + "\"port\": {\"id\": {\"type\": \"local\", \"value\": \"Ethernet12\"}, \"descr\": \"to gpu-node-17\"}}}}}\n");
        return h;
    }

    @Test
    void aStableNeighbourIsOneInfoSeries(@TempDir Path tmp) throws IOException {
        Map<String, Double> v = metrics(host(tmp, "0 day, 01:00:00"));
        assertThat(v).containsEntry(s(INFO, "device", "mlx5_0", "port", "1", "netdev", "ens1f0np0", "switch", "leaf-07",
                "switch_port", "Ethernet12", "chassis_id", "0c:42:a1:5e:7f:00", "learned", "lldp"), 1.0);
        assertThat(v).containsEntry(s("fabric_port_neighbor_changes_total", "device", "mlx5_0", "port", "1", "netdev", "ens1f0np0"), 0.0);
    }

    @Test
    void announcedNamesThatAreNoNamesAreNoLabels(@TempDir Path tmp) throws IOException {
        Path h = host(tmp, "0 day, 01:00:00");
        Path f = h.resolve("fabricd/lldp/neighbors.json");
        Files.writeString(f, Files.readString(f).replace("leaf-07", "leaf-07\\u001b[31m\\u202e").replace("Ethernet12", "Eth12`reboot`"));
        Map<String, Double> v = metrics(h);
        assertThat(v).containsEntry(s(INFO, "device", "mlx5_0", "port", "1", "netdev", "ens1f0np0", "switch", "",
                "switch_port", "", "chassis_id", "0c:42:a1:5e:7f:00", "learned", "lldp"), 1.0);
    }

    @Test
    void aNeighbourJustChangedHasNoInfoYet(@TempDir Path tmp) throws IOException {
        Map<String, Double> v = metrics(host(tmp, "0 day, 00:00:20"));
        assertThat(v.keySet()).noneMatch(k -> k.startsWith(INFO));
        assertThat(v).containsKey(s("fabric_port_neighbor_changes_total", "device", "mlx5_0", "port", "1", "netdev", "ens1f0np0"));
    }

    @Test
    void withoutLldpdNoNeighbourSeries() {
        HostModel m = HostCollection.standard(CollectorConfig.DEFAULT).collect(Fixtures.open("host-b-roce"));
        String text = new String(Exposition.render(FabricMetrics.build(m, false, List.of()), null).body(), StandardCharsets.UTF_8);
        assertThat(text).doesNotContain("fabric_port_neighbor_info{").doesNotContain("fabric_port_neighbor_changes_total{");
    }
}
