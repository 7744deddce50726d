package io.fabricd.diagnosis.checks;

import static io.fabricd.diagnosis.checks.ProbeChecks.of;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.model.probe.ProbeResults;
import java.util.List;
import org.junit.jupiter.api.Test;

class PathMtuMismatchTest {

    @Test
    void crossHostMtuMismatch() {
        ProbeResults paths = new ProbeResults(List.of(), List.of(new ProbeResults.PathMtu("a:1", "mlx5_0", 4096, "mlx5_3", 1024),
                new ProbeResults.PathMtu("b:1", "mlx5_0", 4096, "mlx5_0", 4096)), List.of());
        assertThat(of(paths, "mtu_mismatch")).singleElement().satisfies(x -> {
            assertThat(x.subject().peer()).isEqualTo("a:1");
            assertThat(x.subject().device()).isEqualTo("mlx5_0");
            assertThat(x.evidence().number("peer_active_mtu")).isEqualTo(1024);
        });
    }
}
