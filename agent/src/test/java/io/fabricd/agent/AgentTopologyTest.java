package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.model.topology.Placement;
import io.fabricd.testing.PrivateFiles;
import io.fabricd.testing.PromText;
import io.fabricd.topology.TopologyConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where each host sits (docs/topology.md), in real agents: the info series, the leaf as the probe
 * rack its peers label their series with, and a broken topology file that leaves the agent serving.
 */
class AgentTopologyTest {
    /** The two fixture hosts (host-a-ib is dgx-h100-01, host-b-roce is roce-node-07) under two leaves of one spine. */
    static final String TREE = """
            # two racks under one spine
            SwitchName=leaf-07 Nodes=dgx-h100-01
            SwitchName=leaf-09 Nodes=roce-node-[01-08]
            SwitchName=spine-1 Switches=leaf-[07,09]
            BlockName=nvl-1 Nodes=dgx-h100-01
            """;

    static AgentConfig config(Path key, Path topology, List<String> peers, String node) {
        return TestConfigs.withTopology(AgentProbeTest.config(key, peers, "node_name: " + node), new TopologyConfig(topology.toString(),
                null));
    }

    @Test
    void theLeafIsTheProbeRackAndTheInfoSeriesSaysWhereTheHostSits(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        Path tree = Files.writeString(tmp.resolve("topology.conf"), TREE);
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), config(key, tree, List.of(), "dgx-h100-01"),
                new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            assertThat(a.placement().placement()).contains(new Placement("dgx-h100-01", List.of("leaf-07", "spine-1"), "nvl-1",
                    Placement.Source.SLURM));
            Map<String, Double> info = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_topology_info").body());
            assertThat(info).containsExactly(Map.entry(s("fabric_topology_info", "accelerator", "nvl-1", "core", "", "leaf", "leaf-07",
                    "source", "slurm", "spine", "spine-1"), 1.0));
            // its endpoint's rack is its leaf, not its host label r12: the peer's series carry it
            assertThat(a.probes().endpoint().labels()).containsEntry("rack", "leaf-07");

            String peerA = "127.0.0.1:" + a.port();
            try (Agent b = new Agent(Fixtures.open("host-b-roce"), config(key, tree, List.of(peerA), "roce-node-07"),
                    new ListenAddress("127.0.0.1", 0)).start()) {
                assertThat(b.awaitReady(Duration.ofSeconds(20))).isTrue();
                String sent = s("fabric_probe_sent_total", "peer", peerA, "peer_rack", "leaf-07", "transport", "udp", "size", "64");
                Map<String, Double> v = Map.of();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (System.nanoTime() < deadline && v.getOrDefault(sent, 0.0) < 20) {
                    Thread.sleep(100);
                    v = PromText.parse(Http.get(b.port(), "/metrics?name[]=fabric_probe_sent_total&name[]=fabric_topology_info").body());
                }
                assertThat(v.get(sent)).isGreaterThanOrEqualTo(20.0);
                assertThat(v).containsEntry(s("fabric_topology_info", "accelerator", "", "core", "", "leaf", "leaf-09", "source", "slurm",
                        "spine", "spine-1"), 1.0);
            }
        }
    }

    /**
     * topograph's labels on the agent's Kubernetes Node (fabric8's API server emulation), read with
     * the rack label by the pingmesh's one Node read: they place the host over its rack label, and a
     * label that is not a name places nothing, so the rack label does again.
     */
    @Test
    void topographNodeLabelsPlaceTheHostAndABadOnePlacesNothing(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(),
                new KubernetesCrudDispatcher(), false);
        server.init();
        try (NamespacedKubernetesClient kube = server.createClient()) {
            kube.resource(new NodeBuilder().withNewMetadata().withName("node-b").addToLabels("fabricd.io/rack", "r3")
                    .addToLabels("fabric.topograph.run/tier-0", "leaf-3").addToLabels("fabric.topograph.run/tier-1", "spine-1")
                    .addToLabels("accelerator.topograph.run/domain", "nvl-2").endMetadata().build()).create();
            AgentConfig probing = AgentProbeTest.config(key, List.of(), "kubernetes: {service: fabricd, "
                    + "namespace: fabric, node_refresh: 100ms, api_server: '" + kube.getConfiguration().getMasterUrl() + "'}",
                    "node_name: node-b");
            // the placement is resolved again with each collection (here every 500 ms): the labels the probes read reach it then
            AgentConfig cb = TestConfigs.withTopology(TestConfigs.withProbe(AgentHttpTest.config(Duration.ofMillis(500)), probing.probe()),
                    new TopologyConfig("none", null));
            try (Agent b = new Agent(Fixtures.open("host-b-roce"), cb, new ListenAddress("127.0.0.1", 0)).start()) {
                assertThat(b.awaitReady(Duration.ofSeconds(20))).isTrue();
                String topograph = s("fabric_topology_info", "accelerator", "nvl-2", "core", "", "leaf", "leaf-3", "source", "topograph",
                        "spine", "spine-1");
                assertThat(awaitInfo(b, topograph)).containsOnlyKeys(topograph);
                assertThat(b.probes().endpoint().labels()).containsEntry("rack", "leaf-3");

                kube.nodes().withName("node-b").edit(n -> new NodeBuilder(n).editMetadata()
                        .addToLabels("fabric.topograph.run/tier-0", "").endMetadata().build());
                String rack = s("fabric_topology_info", "accelerator", "", "core", "", "leaf", "r3", "source", "labels", "spine", "");
                assertThat(awaitInfo(b, rack)).containsOnlyKeys(rack);
                assertThat(b.probes().endpoint().labels()).containsEntry("rack", "r3");
            }
        } finally {
            try {
                server.destroy();
            } catch (IllegalStateException e) { // the emulator's shutdown timing out on a watch: not under test
                System.err.println("KubernetesMockServer teardown: " + e.getMessage());
            }
        }
    }

    /** The agent's fabric_topology_info series once {@code series} is among them (or after 20 s). */
    private static Map<String, Double> awaitInfo(Agent a, String series) throws Exception {
        Map<String, Double> v = Map.of();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline && !v.containsKey(series)) {
            Thread.sleep(100);
            v = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_topology_info").body());
        }
        return v;
    }

    @Test
    void aBrokenTopologyFileLeavesTheAgentServingOnItsRackLabel(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        Path broken = Files.writeString(tmp.resolve("topology.conf"), "SwitchName=leaf-07 Nodes=dgx-h100-01\n"
                + "SwitchName=leaf-08 Nodes=dgx-h100-[01-02]\n");
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), config(key, broken, List.of(), "dgx-h100-01"),
                new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            assertThat(Http.get(a.port(), "/readyz").statusCode()).isEqualTo(200);
            // the file places nothing; the host's rack label (r12) still does, as before there were topology files
            Map<String, Double> info = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_topology_info").body());
            assertThat(info).containsExactly(Map.entry(s("fabric_topology_info", "accelerator", "", "core", "", "leaf", "r12",
                    "source", "labels", "spine", ""), 1.0));
            assertThat(a.probes().endpoint().labels()).containsEntry("rack", "r12");
        }
        // a host without a rack label and a broken file: one series, every label empty (unknown)
        try (Agent b = new Agent(Fixtures.open("host-b-roce"), config(key, broken, List.of(), "roce-node-07"),
                new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(b.awaitReady(Duration.ofSeconds(20))).isTrue();
            assertThat(PromText.parse(Http.get(b.port(), "/metrics?name[]=fabric_topology_info").body())).containsExactly(Map.entry(
                    s("fabric_topology_info", "accelerator", "", "core", "", "leaf", "", "source", "", "spine", ""), 1.0));
        }
    }

    /** A topology file that is a pipe no one writes: the agent starts and serves on its rack label, never blocked opening it. */
    @Test
    void aPipeForATopologyFileNeitherBlocksTheStartNorPlaces(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        Path fifo = tmp.resolve("topology.conf");
        assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
        assertTimeoutPreemptively(Duration.ofSeconds(60), () -> {
            try (Agent a = new Agent(Fixtures.open("host-a-ib"), config(key, fifo, List.of(), "dgx-h100-01"),
                    new ListenAddress("127.0.0.1", 0)).start()) {
                assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
                assertThat(PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_topology_info").body())).containsExactly(Map.entry(
                        s("fabric_topology_info", "accelerator", "", "core", "", "leaf", "r12", "source", "labels", "spine", ""), 1.0));
            }
        });
    }

    @Test
    void theTopologySectionIsReadAndItsMistakesNamedWithTheirLine(@TempDir Path tmp) throws Exception {
        AgentConfig c = TestConfigs.yaml("topology:", "  file: /etc/site.topology", "  labels:",
                "    - {tiers: [site/tor, site/agg], accelerator: site/nvl}");
        assertThat(c.topology()).isEqualTo(new TopologyConfig("/etc/site.topology",
                List.of(new TopologyConfig.LabelFamily(List.of("site/tor", "site/agg"), "site/nvl"))));
        assertThat(TestConfigs.yaml("listen: 127.0.0.1:0").topology().labels()).isEqualTo(TopologyConfig.TOPOGRAPH);
        Path bad = Files.writeString(tmp.resolve("bad.yaml"), "topology:\n  fil: x\n  labels:\n    - {tiers: []}\n");
        assertThatThrownBy(() -> ConfigLoader.load(bad)).hasMessageContaining("unknown key 'fil' in topology (line 2)");
        Path empty = Files.writeString(tmp.resolve("empty.yaml"), "topology:\n  labels:\n    - {tiers: []}\n");
        assertThatThrownBy(() -> ConfigLoader.load(empty)).hasMessageContaining("topology.labels: each family needs tiers");
    }

    @Test
    void fabricdMetricsAndDiagnoseGoOnWithABrokenFile(@TempDir Path tmp) throws Exception {
        Path broken = Files.writeString(tmp.resolve("site.topology"), "dgx-h100-01 leaf=leaf-07 rack=r1\n");
        Path good = Files.writeString(tmp.resolve("topology.conf"), "SwitchName=leaf-07 Nodes=dgx-h100-01\n");
        Path host = Fixtures.host("host-a-ib");
        for (String[] c : new String[][] {{broken.toString(), "leaf=\"r12\"", "source=\"labels\""},
                {good.toString(), "leaf=\"leaf-07\"", "source=\"slurm\""}, {"none", "leaf=\"r12\"", "source=\"labels\""}}) {
            Path cfg = Files.writeString(tmp.resolve("fabricd.yaml"), "topology:\n  file: '" + c[0] + "'\n");
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = Main.execute(new String[] {"metrics", "--root", host.toString(), "--config", cfg.toString()},
                    new PrintWriter(out, true), new PrintWriter(err, true));
            assertThat(code).as("%s", err).isZero();
            assertThat(out.toString()).contains("fabric_topology_info{").contains(c[1]).contains(c[2]);
            code = Main.execute(new String[] {"diagnose", "--root", host.toString(), "--config", cfg.toString(), "--fail-on", "never"},
                    new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
            assertThat(code).as("%s", err).isZero();
        }
    }
}
