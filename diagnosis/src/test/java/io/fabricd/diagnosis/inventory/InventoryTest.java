package io.fabricd.diagnosis.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.model.HostModel;
import io.fabricd.diagnosis.Hosts;
import java.nio.file.Path;
import java.time.Instant;
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
        Inventory back = Inventory.fromJson(inv.toJson());
        assertThat(back).isEqualTo(inv);
        assertThat(inv.toJson()).contains("\"origin\" : \"accepted\"").contains("\"expected_up\" : true");
        assertThatThrownBy(() -> Inventory.fromJson("{\"format\": 2}")).hasMessageContaining("format 2");
        assertThatThrownBy(() -> Inventory.fromJson("[1,2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Inventory.fromJson("{\"format\": 1, \"devices\": [{\"ports\": []}]}"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
