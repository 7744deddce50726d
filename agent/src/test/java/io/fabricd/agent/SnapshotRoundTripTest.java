package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PromText;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** metrics of a snapshot of a snapshot equal metrics of the original (collector timings aside). */
class SnapshotRoundTripTest {

    static Map<String, Double> metrics(Path root) {
        CliTest.Result r = CliTest.run("metrics", "--root", root.toString());
        assertThat(r.code()).as(r.err()).isZero();
        Map<String, Double> m = new TreeMap<>(PromText.parse(r.out()));
        m.keySet().removeIf(k -> k.startsWith("fabric_collector_duration_seconds"));
        return m;
    }

    @ParameterizedTest
    @ValueSource(strings = {"host-a-ib", "host-b-roce", "host-c-rxe", "host-d-topology", "host-e-roce-variants",
        "real-softroce-6.1", "host-broken"})
    void roundTrip(String fixture, @TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("snap");
        CliTest.Result r = CliTest.run("snapshot", "--root", Fixtures.host(fixture).toString(), "--out", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("written to");
        assertThat(out.resolve("fabricd-snapshot.json")).exists();
        Map<String, Double> original = metrics(Fixtures.host(fixture));
        Map<String, Double> copy = metrics(out);
        if (fixture.equals("host-broken")) {
            // its links that lead out of the folder (EXDEV) and loop (ELOOP) cannot be copied
            String errors = "fabric_collector_read_errors{collector=\"rdma\"}";
            assertThat(original.remove(errors) - copy.remove(errors)).isEqualTo(2.0);
        }
        assertThat(copy).isEqualTo(original);
        // and once more: a snapshot of the snapshot
        Path again = tmp.resolve("again");
        assertThat(CliTest.run("snapshot", "--root", out.toString(), "--out", again.toString()).code()).isZero();
        assertThat(metrics(again)).isEqualTo(metrics(out));
    }

    @Test
    void linksStayRelativeAndInside(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("snap");
        assertThat(CliTest.run("snapshot", "--root", Fixtures.host("host-a-ib").toString(), "--out", out.toString()).code()).isZero();
        Path link = out.resolve("sys/class/infiniband/mlx5_0");
        assertThat(Files.isSymbolicLink(link)).isTrue();
        assertThat(Files.readSymbolicLink(link).toString()).startsWith("../../devices/pci0000:15/");
        assertThat(Files.readString(out.resolve("fabricd/unreadable.txt"))).contains("gid_attrs/ndevs/0 EINVAL");
        assertThat(out.resolve("sys/devices/pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:01.0/0000:19:00.0/infiniband/mlx5_0/ports/1/counters/symbol_error")).exists();
    }

    @Test
    void refusesANonEmptyFolder(@TempDir Path tmp) throws Exception {
        Files.writeString(tmp.resolve("x"), "x");
        CliTest.Result r = CliTest.run("snapshot", "--root", Fixtures.host("host-a-ib").toString(), "--out", tmp.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("not an empty folder");
    }
}
