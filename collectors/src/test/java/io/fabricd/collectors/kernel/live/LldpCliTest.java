package io.fabricd.collectors.kernel.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.kernel.HostReadException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How fabricd runs lldpcli, tried with real processes standing in for it. */
class LldpCliTest {
    @Test
    void whatItPrintsIsTheAnswer() throws HostReadException {
        assertThat(LldpCli.run(List.of("/bin/sh", "-c", "printf '{\"lldp\": {}}\\n'"))).isEqualTo("{\"lldp\": {}}\n");
    }

    @Test
    void aFailureSaysWhatLldpcliSaidAndWhatToCheck() {
        assertThatThrownBy(() -> LldpCli.run(List.of("/bin/sh", "-c", "echo 'cannot find lldpd socket' >&2; exit 1")))
                .isInstanceOf(HostReadException.class)
                .hasMessageContaining("lldpcli exited 1: cannot find lldpd socket")
                .hasMessageContaining("is lldpd running");
    }

    @Test
    void aHungLldpcliIsCutOff() {
        long t0 = System.nanoTime();
        assertThatThrownBy(() -> LldpCli.run(List.of("/bin/sleep", "30")))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ETIMEDOUT"));
        assertThat((System.nanoTime() - t0) / 1e9).isLessThan(20);
    }

    @Test
    void endlessOutputIsCutOff() {
        assertThatThrownBy(() -> LldpCli.run(List.of("/usr/bin/yes")))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("EFBIG"));
    }
}
