package io.fabricd.probes.bandwidth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fabricd.model.LinkRate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CeilingTest {

    @ParameterizedTest(name = "{0} on {1}: {2} Gb/s of data")
    @CsvSource({
            // 8b/10b: the kernel prints the signalling rate
            "'10 Gb/sec (4X SDR)', InfiniBand, 8",
            "'20 Gb/sec (4X DDR)', InfiniBand, 16",
            "'40 Gb/sec (4X QDR)', InfiniBand, 32",
            // FDR prints 14 Gb/s lanes, carries 64b/66b
            "'56 Gb/sec (4X FDR)', InfiniBand, 54.303",
            // FDR10 and later print the data rate
            "'40 Gb/sec (4X FDR10)', InfiniBand, 40",
            "'100 Gb/sec (4X EDR)', InfiniBand, 100",
            "'200 Gb/sec (4X HDR)', InfiniBand, 200",
            "'400 Gb/sec (4X NDR)', InfiniBand, 400",
            // RoCE: the Ethernet speed, mapped to IB names by the kernel, is a data rate already
            "'40 Gb/sec (4X QDR)', Ethernet, 40",
            "'100 Gb/sec (4X EDR)', Ethernet, 100",
            "'10 Gb/sec (1X QDR)', Ethernet, 10"})
    void linkDataRate(String rate, String linkLayer, double gbps) {
        assertThat(Ceiling.linkData(LinkRate.parse(rate), linkLayer) / 1e9).isCloseTo(gbps, within(0.001));
    }

    @ParameterizedTest(name = "{0} GT/s x{1}: {2} Gb/s")
    @CsvSource({
            "2.5, 8, 16",        // Gen1 8b/10b
            "5, 8, 32",          // Gen2 8b/10b
            "8, 16, 126.031",    // Gen3 128b/130b
            "16, 16, 252.062",   // Gen4
            "32, 16, 504.123",   // Gen5
            "64, 16, 968.0"})    // Gen6 FLIT: 242 of 256
    void pcieDataRate(double gts, int width, double gbps) {
        assertThat(Ceiling.pcieData(Math.round(gts * 1e9), width) / 1e9).isCloseTo(gbps, within(0.001));
    }

    @Test
    void unknownPartsAreLeftOutNeverGuessed() {
        assertThat(Ceiling.linkData(null, "Ethernet")).isNull();
        assertThat(Ceiling.pcieData(null, 16)).isNull();
        assertThat(Ceiling.pcieData(16_000_000_000L, null)).isNull();
        Ceiling none = new Ceiling(null, null, null);
        assertThat(none.bps()).isNull();
        assertThat(none.limit()).isEqualTo("unknown");
        // rxe: a link, no PCIe function
        assertThat(new Ceiling(10e9, null, null).limit()).isEqualTo("link");
    }

    @Test
    void theLowestPartLimits() {
        // a ConnectX-7 at 400G NDR in a Gen4 x16 slot: PCIe (252 Gb/s) limits, not the link
        Ceiling c = new Ceiling(400e9, Ceiling.pcieData(16_000_000_000L, 16), Ceiling.pcieData(32_000_000_000L, 16));
        assertThat(c.limit()).isEqualTo("local_pcie");
        assertThat(c.bps() / 1e9).isCloseTo(252.06, within(0.01));
        assertThat(new Ceiling(c.linkBps(), c.localPcieBps(), Ceiling.pcieData(8_000_000_000L, 16)).limit()).isEqualTo("peer_pcie");
        assertThat(new Ceiling(100e9, 252e9, 504e9).limit()).isEqualTo("link");
    }
}
