package io.fabricd.diagnosis.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.diagnosis.DiagnosisConfig;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.model.HostModel;
import java.nio.file.Path;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The inventory: learned, grown (never shrunk), written and read back. */
class InventoryTest {
    static final Instant AT = Instant.parse("2026-11-01T00:00:00Z");

    @Test
    void aPortThatComesUpIsExpectedUpFromThenOnWithItsBestRate(@TempDir Path tmp) {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/phys_state", "2: Polling\n");
        Inventory inv = Inventory.of(Hosts.model(root), AT, Inventory.LEARNED);
        assertThat(inv.devices().get(0).port(1).orElseThrow().expectedUp()).isFalse();

        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE\n");
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/phys_state", "5: LinkUp\n");
        HostModel up = Hosts.model(root);
        Inventory grown = inv.learn(up);
        assertThat(grown).isNotSameAs(inv);
        Inventory.Port p = grown.devices().get(0).port(1).orElseThrow();
        assertThat(p.expectedUp()).isTrue();
        assertThat(p.rate()).isEqualTo("400 Gb/sec (4X NDR)");
        assertThat(grown.acceptedAt()).isEqualTo(inv.acceptedAt());

        // down again: still expected up, still the best rate
        Hosts.write(root, "sys/class/infiniband/mlx5_0/ports/1/state", "1: DOWN\n");
        Inventory after = grown.learn(Hosts.model(root));
        assertThat(after).isSameAs(grown);
    }

    @Test
    void itSurvivesItsJsonAndRefusesWhatIsNotOne() {
        Inventory inv = Inventory.of(Hosts.model("host-f-big"), AT, Inventory.ACCEPTED);
        Inventory back = InventoryFile.read(InventoryFile.write(inv));
        assertThat(back).isEqualTo(inv);
        assertThat(InventoryFile.write(inv)).contains("\"origin\" : \"accepted\"").contains("\"expected_up\" : true");
        assertThatThrownBy(() -> InventoryFile.read("{\"format\": 2}")).hasMessageContaining("format 2");
        assertThatThrownBy(() -> InventoryFile.read("[1,2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InventoryFile.read("{\"format\": 1, \"devices\": [{\"ports\": []}]}"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aStoredFileIsCheckedFieldByField() {
        String good = InventoryFile.write(Inventory.of(Hosts.model("host-a-ib"), AT, Inventory.ACCEPTED));
        assertThat(InventoryFile.read(good).devices()).hasSize(1);
        for (String[] bad : new String[][] {
                {"\"port\" : 1", "\"port\" : null"},
                {"\"port\" : 1", "\"port\" : \"1\""},
                {"\"port\" : 1", "\"port\" : 0"},
                {"\"format\" : 1", "\"format\" : \"1\""},
                {"\"origin\" : \"accepted\"", "\"origin\" : \"o\\u001b[31mred\""},
                {"\"name\" : \"mlx5_0\"", "\"name\" : \"../../etc\""},
                {"\"kind\" : \"gpu\"", "\"kind\" : null"},
                {"\"kind\" : \"gpu\"", "\"kind\" : \"toaster\""},
                {"\"address\" : \"0000:", "\"address\" : \"fake-0000:"},
                {"\"width\" : 16", "\"width\" : 16.5"},
                {"\"accepted_at\" : \"", "\"accepted_at\" : \"yesterday"}}) {
            assertThat(good).as(bad[0]).contains(bad[0]);
            String json = good.replaceFirst(Pattern.quote(bad[0]), Matcher.quoteReplacement(bad[1]));
            assertThatThrownBy(() -> InventoryFile.read(json)).as(bad[1]).isInstanceOf(IllegalArgumentException.class);
        }
        // thousands of planted functions: refused, not exported
        StringBuilder many = new StringBuilder("{\"format\":1,\"origin\":\"learned\",\"accepted_at\":\"2026-11-01T00:00:00Z\","
                + "\"updated_at\":\"2026-11-01T00:00:00Z\",\"pci\":[");
        for (int i = 0; i < 5000; i++) {
            many.append(i == 0 ? "" : ",").append(String.format("{\"address\":\"0000:%02x:%02x.0\",\"kind\":\"gpu\"}", i / 256, i % 256));
        }
        assertThatThrownBy(() -> InventoryFile.read(many + "]}")).hasMessageContaining("more than");
    }

    @Test
    void aCardReplacedInItsSlotTakesItsEntryAndADeadCardsNameMayBeTakenOver(@TempDir Path tmp) {
        Path root = Hosts.copy("host-f-big", tmp.resolve("h"));
        Inventory inv = Inventory.of(Hosts.model(root), AT, Inventory.LEARNED);
        // a new card in mlx5_0's slot: another GUID, the same name and PCI address
        Hosts.write(root, "sys/class/infiniband/mlx5_0/node_guid", "b83f:d2ff:fe00:0001\n");
        HostModel swapped = Hosts.model(root);
        Inventory after = inv.learn(swapped);
        assertThat(after.devices()).hasSize(16);
        assertThat(after.devices()).filteredOn(d -> d.name().equals("mlx5_0")).singleElement()
                .satisfies(d -> assertThat(d.nodeGuid()).isEqualTo("b83f:d2ff:fe00:0001"));
        assertThat(Diagnosis.run(swapped, null, after, DiagnosisConfig.DEFAULT).findings())
                .noneMatch(f -> f.check().equals("hardware_missing"));
    }
}
