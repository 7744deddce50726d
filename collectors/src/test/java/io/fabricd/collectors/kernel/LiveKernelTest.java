package io.fabricd.collectors.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.kernel.live.LiveKernel;
import io.fabricd.natives.LibC;
import io.fabricd.natives.VerbsShim;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The JNA paths against this machine's real kernel (no RDMA needed). */
class LiveKernelTest {
    final LiveKernel k = new LiveKernel(LibC.load(), VerbsShim.load());

    @Test
    void loopbackHasNoDcbAndNoDriverStatistics() throws Exception {
        assertThat(k.dcb("lo").supported()).isFalse();
        assertThat(k.ethtoolStats("lo").stats()).isEmpty();
    }

    @Test
    void missingNetdevFailsWithItsErrno() {
        assertThatThrownBy(() -> k.ethtoolStats("nosuchdev0"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ENODEV"));
        assertThatThrownBy(() -> k.dcb("nosuchdev0"))
                .isInstanceOfSatisfying(HostReadException.class, e -> assertThat(e.errno()).isEqualTo("ENODEV"));
    }

    @Test
    void aRealNicAnswersTheIoctls() throws Exception {
        String nic = null;
        for (String n : new String[] {"eth0", "ens3", "enp0s3", "ens4"}) {
            if (Files.exists(Path.of("/sys/class/net", n, "device"))) {
                nic = n;
                break;
            }
        }
        Assumptions.assumeTrue(nic != null, "no physical-looking NIC on this machine");
        EthtoolStats s = k.ethtoolStats(nic);
        assertThat(s.driver()).isNotBlank();
        k.pauseParams(nic); // answers or says not supported; never throws for a real NIC
        assertThat(k.dcb(nic)).isNotNull();
    }

    @Test
    void verbsWithoutRdmaIsEmptyNotACrash() throws Exception {
        // on a kernel without RDMA ibv_get_device_list returns NULL; the shim must not free it
        if (!Files.exists(Path.of("/sys/class/infiniband/rxe0"))) {
            assertThat(k.verbs("rxe0")).isEmpty();
            assertThat(k.verbs("mlx5_0")).isEmpty();
        }
    }

    @Test
    void rdmaNetlinkAnswersWithoutRdmaDevices() throws Exception {
        // with no RDMA device the dump is empty (or RDMA netlink is absent): never an exception
        assertThat(k.queuePairs()).isNotNull();
    }
}
