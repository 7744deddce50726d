package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.cli.Version;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PromText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliTest {
    record Result(int code, String out, String err) {
    }

    static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.execute(args, new PrintWriter(out, true), new PrintWriter(err, true));
        return new Result(code, out.toString(), err.toString());
    }

    @Test
    void metricsPrintsOneCollection() {
        Result r = run("metrics", "--root", Fixtures.host("host-a-ib").toString());
        assertThat(r.code()).isZero();
        Map<String, Double> v = PromText.parse(r.out());
        assertThat(v).containsEntry(s("fabric_port_up", "device", "mlx5_0", "port", "1"), 1.0);
        assertThat(r.out()).contains("# TYPE fabric_port_pma_total counter");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void brokenSnapshotStillExitsZero() {
        Result r = run("metrics", "--root", Fixtures.host("host-broken").toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("fabric_port_up{device=\"mlx5_0\",port=\"1\"} 1.0");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void badInputExitsTwoWithAMessageAndNoStackTrace(@TempDir Path tmp) throws Exception {
        Result missing = run("metrics", "--root", tmp.resolve("nope").toString());
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).startsWith("fabricd: ").doesNotContain("\tat ");

        Path cfg = tmp.resolve("bad.yaml");
        Files.writeString(cfg, "collection:\n  intervall: 5s\n");
        Result unknown = run("metrics", "--config", cfg.toString(), "--root", Fixtures.host("host-a-ib").toString());
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("unknown key 'intervall'").doesNotContain("\tat ");

        Files.writeString(cfg, "collection:\n  interval: soon\n");
        assertThat(run("metrics", "--config", cfg.toString()).err()).contains("not a duration");

        Files.writeString(cfg, "rdma:\n  include_devices: ['mlx5_[0']\n");
        assertThat(run("metrics", "--config", cfg.toString()).err()).contains("unclosed");

        Result opt = run("metrics", "--bogus");
        assertThat(opt.code()).isEqualTo(2);
        assertThat(opt.err()).contains("Unknown option");

        assertThat(run("run", "--listen", "nowhere").code()).isEqualTo(2);
        assertThat(run("metrics", "--demo", "--root", tmp.toString()).err()).contains("exclude each other");
        assertThat(run().code()).isEqualTo(2);
    }

    @Test
    void anEmptyOrWrongRootIsRefusedAndAHostWithoutDevicesSaysSo(@TempDir Path tmp) throws Exception {
        for (String cmd : new String[] {"metrics", "diagnose", "snapshot"}) {
            Result empty = cmd.equals("snapshot") ? run(cmd, "--root", tmp.toString(), "--out", tmp.resolve("out").toString())
                    : run(cmd, "--root", tmp.toString());
            assertThat(empty.code()).as(cmd).isEqualTo(2);
            assertThat(empty.err()).contains("is not a snapshot folder").doesNotContain("\tat ");
        }
        Files.createDirectories(tmp.resolve("sys/class/net"));
        Result none = run("metrics", "--root", tmp.toString());
        assertThat(none.code()).isZero();
        assertThat(none.err()).contains("fabricd: no RDMA device in " + tmp + "/sys/class/infiniband");
        // a host without RDMA devices fails the preflight, unless it has none on purpose
        Result diag = run("diagnose", "--root", tmp.toString());
        assertThat(diag.code()).isEqualTo(1);
        assertThat(diag.err()).contains("no RDMA device");
        assertThat(diag.out()).contains("[hardware_missing]").contains("this host has no RDMA device");
        Path cfg = Files.writeString(tmp.resolve("none.yaml"), "diagnosis: {expect_rdma_devices: false}\n");
        assertThat(run("diagnose", "--root", tmp.toString(), "--config", cfg.toString()).code()).isZero();
    }

    @Test
    void configSelectsDevices(@TempDir Path tmp) throws Exception {
        Path cfg = tmp.resolve("fabricd.yaml");
        Files.writeString(cfg, "rdma:\n  exclude_devices: [\"mlx5_1\", \"mlx5_2\"]\n");
        Result r = run("metrics", "--config", cfg.toString(), "--root", Fixtures.host("host-broken").toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("device=\"mlx5_0\"").doesNotContain("device=\"mlx5_1\"").doesNotContain("device=\"mlx5_2\"");
    }

    @Test
    void demoMetrics() {
        Result r = run("metrics", "--demo");
        assertThat(r.code()).isZero();
        Map<String, Double> v = PromText.parse(r.out());
        assertThat(v.keySet()).filteredOn(k -> k.startsWith("fabric_port_info{")).hasSize(8);
        assertThat(v).containsEntry(s("fabric_port_pma_saturated", "device", "mlx5_3", "port", "1", "counter", "symbol_error"), 1.0);
    }

    @Test
    void diagnoseExitCodes() {
        Result healthy = run("diagnose", "--root", Fixtures.host("host-a-ib").toString());
        assertThat(healthy.code()).isZero();
        // one collection: the transport and link error counters' totals since the driver loaded, as info
        assertThat(healthy.out()).contains("INFO (2): 1 port_errors_rising, 1 transport_errors").doesNotContain("CRITICAL", "WARNING");
        assertThat(run("diagnose", "--root", Fixtures.host("host-a-ib").toString(), "--verbose").out())
                .contains("INFO (2)\n", "[transport_errors]", "[port_errors_rising]");
        Result bad = run("diagnose", "--root", Fixtures.host("host-d-topology").toString(), "--format", "json");
        assertThat(bad.code()).isEqualTo(1); // gpudirect_off is critical
        assertThat(bad.out()).contains("\"check\" : \"gpudirect_off\"");
        assertThat(run("diagnose", "--root", Fixtures.host("host-d-topology").toString(), "--fail-on", "never").code()).isZero();
        // the demo's planted problems: RoCE priority without PFC (critical), MTU 1500, a saturated counter, a far GPU
        Result demo = run("diagnose", "--demo");
        assertThat(demo.code()).isEqualTo(1);
        assertThat(demo.out()).contains("[pfc_missing] device=mlx5_7", "[mtu_mismatch] device=mlx5_6",
                "[counter_saturated] device=mlx5_3", "[numa_misaffinity] gpu=0000:dc:00.0", "Judged on totals only", "port_errors_rising");
        assertThat(run("diagnose", "--demo", "--fail-on", "never").code()).isZero();
        assertThat(run("diagnose", "--format", "yaml").code()).isEqualTo(2);
    }

    @Test
    void diagnoseWithAPreviousSnapshotJudgesRates(@TempDir Path tmp) throws Exception {
        Path before = copy(Fixtures.host("host-a-ib"), tmp.resolve("before"));
        Path after = copy(Fixtures.host("host-a-ib"), tmp.resolve("after"));
        Files.writeString(after.resolve("fabricd-snapshot.json"),
                Files.readString(after.resolve("fabricd-snapshot.json")).replace("2026-11-29T12:00:00Z", "2026-11-29T12:10:00Z"));
        Files.writeString(after.resolve("sys/class/infiniband/mlx5_0/ports/1/counters/symbol_error"), "500\n");
        Result r = run("diagnose", "--root", after.toString(), "--previous", before.toString(), "--format", "json");
        assertThat(r.code()).as(r.err()).isZero(); // warnings only
        assertThat(r.out()).contains("\"check\" : \"port_errors_rising\"", "\"interval_seconds\" : 600.0",
                "\"collected_at\" : \"2026-11-29T12:10:00Z\"", "\"checks_without_history\" : [ ]");
        assertThat(run("diagnose", "--root", after.toString(), "--previous", before.toString(), "--fail-on", "warning").code())
                .isEqualTo(1);
        // the wrong way round, another host, no captured_at, the demo, a missing folder: exit 2 with a message
        Result reversed = run("diagnose", "--root", before.toString(), "--previous", after.toString());
        assertThat(reversed.code()).isEqualTo(2);
        assertThat(reversed.err()).contains("not before this collection").doesNotContain("Exception");
        Result other = run("diagnose", "--root", after.toString(), "--previous", Fixtures.host("host-b-roce").toString());
        assertThat(other.code()).isEqualTo(2);
        assertThat(other.err()).contains("is a snapshot of roce-node-07, not of dgx-h100-01");
        Files.writeString(before.resolve("fabricd-snapshot.json"), "{\"format\": 1, \"hostname\": \"dgx-h100-01\"}");
        Result undated = run("diagnose", "--root", after.toString(), "--previous", before.toString());
        assertThat(undated.code()).isEqualTo(2);
        assertThat(undated.err()).contains("has no captured_at");
        assertThat(run("diagnose", "--demo", "--previous", before.toString()).code()).isEqualTo(2);
        assertThat(run("diagnose", "--root", after.toString(), "--previous", tmp.resolve("nope").toString()).err())
                .contains("is not a folder");
    }

    @Test
    void theReadmesPreviousExampleWorksOnTheDemo(@TempDir Path tmp) throws Exception {
        Path before = tmp.resolve("before");
        assertThat(run("snapshot", "--demo", "--out", before.toString()).code()).isZero();
        Thread.sleep(1100); // the demo's counters advance with the clock
        Result r = run("diagnose", "--demo", "--previous", before.toString(), "--format", "json");
        assertThat(r.code()).as(r.err()).isEqualTo(1); // the demo's planted criticals
        assertThat(r.out()).contains("\"checks_without_history\" : [ ]"); // every rate check had the earlier collection
    }

    private static Path copy(Path src, Path dst) throws Exception {
        assertThat(new ProcessBuilder("cp", "-a", src.toString(), dst.toString()).start().waitFor()).isZero();
        return dst;
    }

    @Test
    void helpAndVersion() {
        assertThat(run("--help").out()).contains("run", "metrics");
        var version = run("--version");
        assertThat(version.code()).isZero();
        // version, revision, Java, and whether verbs load (this machine builds the shim with libibverbs-dev)
        assertThat(version.out()).contains("fabricd " + Version.version(),
                "revision " + Version.revision(), "Java " + System.getProperty("java.runtime.version"), "verbs: ");
        assertThat(run("run", "--help").out()).contains("--listen", "--root", "--config", "--demo");
    }
}
