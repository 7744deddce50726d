package io.fabricd.diagnosis.checks;

import io.fabricd.diagnosis.Plain;
import static io.fabricd.diagnosis.Hosts.model;
import static io.fabricd.diagnosis.Hosts.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.diagnosis.Hosts;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RoceGidMissingTest {
    static final String CHECK = "roce_gid_missing";
    static final String PORT = "sys/class/infiniband/mlx5_0/ports/1/";
    static final String ZERO = "0000:0000:0000:0000:0000:0000:0000:0000\n";

    @Test
    void portsWithARoutableRoceV2GidAreFine() {
        assertThat(of(model("host-b-roce"), CHECK)).isEmpty();
        assertThat(of(model("host-e-roce-variants"), CHECK)).isEmpty();
        assertThat(of(model("real-softroce-6.1"), CHECK)).isEmpty();
        assertThat(of(model("host-a-ib"), CHECK)).isEmpty(); // InfiniBand GIDs are not RoCE
    }

    @Test
    void onlyLinkLocalGidsLeft(@TempDir Path tmp) {
        // the netdev lost its IPv4 address: the kernel removed the IPv4-mapped GIDs (slots 2 and 3)
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.write(b, PORT + "gids/2", ZERO);
        Hosts.write(b, PORT + "gids/3", ZERO);
        assertThat(of(Hosts.model(b), CHECK)).singleElement().satisfies(x -> {
            assertThat(x.severity()).isEqualTo(Severity.CRITICAL);
            assertThat(Plain.subject(x)).containsEntry("device", "mlx5_0").containsEntry("netdev", "ens1f0np0");
            assertThat(Plain.evidence(x).get("gids").toString()).contains("RoCE v2").contains("fe80");
        });
    }

    @Test
    void unreadableGidTypesAreOnlyInfo(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.delete(b, PORT + "gid_attrs/types/2");
        Hosts.delete(b, PORT + "gid_attrs/types/3");
        assertThat(of(Hosts.model(b), CHECK)).singleElement().satisfies(x -> assertThat(x.severity()).isEqualTo(Severity.INFO));
    }

    @Test
    void aDownPortIsLeftToLinkDown(@TempDir Path tmp) {
        Path b = Hosts.copy("host-b-roce", tmp.resolve("b"));
        Hosts.write(b, PORT + "gids/2", ZERO);
        Hosts.write(b, PORT + "gids/3", ZERO);
        Hosts.write(b, PORT + "state", "1: DOWN\n");
        assertThat(of(Hosts.model(b), CHECK)).isEmpty();
    }
}
