package io.fabricd.diagnosis.checks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.diagnosis.Hosts;
import io.fabricd.diagnosis.Plain;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Finding;
import io.fabricd.model.finding.Severity;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A pinned counter is blind, whatever it counts: errors, congestion or traffic, each said in its
 * own words; congestion is never blamed on the cable.
 */
class CounterSaturatedTest {
    static final String PORT = "sys/class/infiniband/mlx5_0/ports/1/counters/";

    /** Counters pinned on host A's InfiniBand port, and what the finding must and must not say. */
    static Stream<Arguments> pinned() {
        return Stream.of(
                Arguments.of(Map.of("port_xmit_wait", "4294967295"), "new congestion is invisible", "errors are invisible"),
                Arguments.of(Map.of("symbol_error", "65535"), "new errors are invisible", "congestion"),
                Arguments.of(Map.of("symbol_error", "65535", "port_xmit_wait", "4294967295"), "new errors and congestion are invisible",
                        "traffic"),
                Arguments.of(Map.of("link_downed", "255", "port_xmit_wait", "4294967295", "port_rcv_data", "4294967295"),
                        "new errors, congestion and traffic are invisible", "new errors are invisible"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pinned")
    void everyPinnedCounterIsReportedInTheWordsOfWhatItCounts(Map<String, String> values, String says, String saysNot,
            @TempDir Path tmp) {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        values.forEach((c, v) -> Hosts.write(root, PORT + c, v + "\n"));
        if (values.containsKey("port_rcv_data")) {
            // a PMA without the 64-bit extended counters: its data counters are 32-bit
            for (String c : List.of("unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets", "multicast_rcv_packets")) {
                Hosts.delete(root, PORT + c);
            }
        }
        HostModel m = Hosts.model(root);
        assertThat(Hosts.of(m, "counter_saturated")).singleElement().satisfies(f -> {
            assertThat(f.severity()).isEqualTo(Severity.WARNING);
            assertThat(f.summary()).contains(says).doesNotContain(saysNot);
            assertThat(countersIn(f)).containsExactlyInAnyOrderElementsOf(values.keySet());
        });
    }

    @Test
    void aPinnedCongestionCounterSaysCongestionNotErrorsAndBlamesNoCable(@TempDir Path tmp) {
        Path root = Hosts.copy("host-a-ib", tmp.resolve("h"));
        Hosts.write(root, PORT + "port_xmit_wait", "4294967295\n");
        assertThat(Hosts.of(Hosts.model(root), "counter_saturated")).singleElement().satisfies(f -> {
            assertThat(f.summary()).startsWith("port_xmit_wait on mlx5_0 port 1 is pinned").contains("congestion, not errors");
            assertThat(f.remediation()).contains("perfquery -R").contains("congestion").doesNotContain("cable")
                    .doesNotContain("cause of the errors");
            assertThat(Plain.evidence(f).get("saturated")).isEqualTo(List.of(Map.of("counter", "port_xmit_wait", "kind", "congestion",
                    "value", "4294967295", "width_bits", 32)));
        });
        // one below the maximum counts on; above it the counter is proven wider
        for (String v : List.of("4294967294", "4294967296")) {
            Hosts.write(root, PORT + "port_xmit_wait", v + "\n");
            assertThat(Hosts.of(Hosts.model(root), "counter_saturated")).as(v).isEmpty();
        }
    }

    @Test
    void aRealMlx4PortsPinnedXmitWaitIsReported(@TempDir Path tmp) {
        // node_exporter's mlx4_0 (a real tree): port_xmit_wait 4294967295 on port 1
        HostModel m = Hosts.model(Fixtures.nodeExporter(tmp));
        assertThat(Hosts.of(m, "counter_saturated")).singleElement().satisfies(f -> {
            assertThat(Plain.subject(f)).containsEntry("device", "mlx4_0").containsEntry("port", 1);
            assertThat(f.summary()).contains("congestion, not errors");
        });
    }

    @Test
    void aPinned32BitDataCounterWhose64BitTwinCountsOnBlindsNothing(@TempDir Path tmp) {
        // node_exporter's mlx4_0 has counters_ext/ (port_xmit_data_64, ...); as a kernel before 4.5 shows it (counters/
        // without the extended-only unicast_* files), its counters/ data counters are the 32-bit ones, and may pin
        Path root = Fixtures.nodeExporter(tmp);
        String port = "sys/class/infiniband/mlx4_0/ports/2/counters/";
        for (String c : List.of("unicast_xmit_packets", "unicast_rcv_packets", "multicast_xmit_packets", "multicast_rcv_packets")) {
            Hosts.delete(root, port + c);
        }
        Hosts.write(root, port + "port_xmit_data", "4294967295\n");
        HostModel m = Hosts.model(root);
        assertThat(m.port("mlx4_0", 2).orElseThrow().saturated()).contains("port_xmit_data");
        assertThat(Hosts.of(m, "counter_saturated")).noneMatch(f -> Plain.subject(f).get("port").equals(2));
    }

    @SuppressWarnings("unchecked")
    static List<String> countersIn(Finding f) {
        return ((List<Map<String, Object>>) Plain.evidence(f).get("saturated")).stream().map(e -> (String) e.get("counter")).toList();
    }
}
