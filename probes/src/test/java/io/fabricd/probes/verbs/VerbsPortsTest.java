package io.fabricd.probes.verbs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** GID index choice from real sysfs layouts (the project's fixtures). */
class VerbsPortsTest {
    static Path sys(String fixture) {
        return Path.of("..", "collectors", "src", "test", "fixtures", fixture, "sys").toAbsolutePath().normalize();
    }

    @Test
    void roceV2OnIpv4IsPreferred() {
        // host B: 0/1 link-local v1/v2, 2/3 IPv4 v1/v2
        assertThat(VerbsPorts.discover(sys("host-b-roce"))).containsExactly(new VerbsPorts.Port("mlx5_0", 1, 3, "Ethernet"));
    }

    @Test
    void infinibandUsesIndexZeroAndDownPortsAreLeftOut() {
        assertThat(VerbsPorts.discover(sys("host-a-ib"))).containsExactly(new VerbsPorts.Port("mlx5_0", 1, 0, "InfiniBand"));
        assertThat(VerbsPorts.of(sys("host-a-ib"), "mlx5_9", 1)).isNull();
        assertThat(VerbsPorts.discover(Path.of("/nonexistent"))).isEmpty();
    }

    @Test
    void gidTextRoundTrip() {
        String g = "fe80:0000:0000:0000:ba3f:d2ff:fe12:3456";
        assertThat(VerbsUd.gidText(VerbsUd.gidBytes(g))).isEqualTo(g);
    }
}
