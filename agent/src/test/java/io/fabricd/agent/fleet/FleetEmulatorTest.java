package io.fabricd.agent.fleet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.Endpoint;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.testing.PrivateFiles;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fleet emulator's wiring, quickly (the gate over it is FleetPreflightIT): each node's agent on
 * its own address, signing as its node and publishing its responder; a down node refusing; a
 * silent one accepting and saying nothing; the plan's placements and checks.
 */
class FleetEmulatorTest {
    private static final String KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    @Test
    void everyNodeAnswersAsItselfOnItsOwnAddress(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), KEY + "\n");
        FleetPlan plan = FleetPlan.healthy("n", 6, 4)
                .with("n0002", FleetPlan.CRITICAL, FleetPlan.NONE)
                .with("n0003", FleetPlan.HEALTHY, new FleetPlan.Fault.LossyUdp(0.5))
                .with("n0005", FleetPlan.HEALTHY, new FleetPlan.Fault.Down())
                .with("n0006", FleetPlan.HEALTHY, new FleetPlan.Fault.Silent());
        Path fixtures = Fixtures.host(FleetPlan.HEALTHY).getParent();
        try (FleetEmulator fleet = FleetEmulator.start(plan, fixtures, key)) {
            Map<String, String> at = fleet.addresses();
            assertThat(at.keySet()).containsExactly("n0001", "n0002", "n0003", "n0004", "n0005", "n0006");
            assertThat(at.get("n0001")).startsWith("127.10.0.1:");
            assertThat(at.get("n0006")).startsWith("127.10.0.6:");
            EndpointClient client = new EndpointClient(ProbeKey.fromFile(key), Duration.ofSeconds(10));
            for (String n : List.of("n0001", "n0002", "n0003", "n0004")) {
                Endpoint ep = client.fetch(at.get(n));
                assertThat(ep.host()).isEqualTo(n);
                assertThat(ep.udpPort()).isPositive();
            }
            // its own /metrics: its responder's series
            HttpResponse<String> metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://" + at.get("n0001")
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body()).contains("fabric_probe_responder_answered_total");
            assertThatThrownBy(() -> client.fetch(at.get("n0005"))).isInstanceOf(IOException.class).hasMessageContaining("connection refused");
            assertThatThrownBy(() -> new EndpointClient(ProbeKey.fromFile(key), Duration.ofMillis(500)).fetch(at.get("n0006")))
                    .isInstanceOf(IOException.class).hasMessageContaining("no complete answer within");
            String[] silent = at.get("n0006").split(":");
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(silent[0], Integer.parseInt(silent[1])), 2000);
                assertThat(s.isConnected()).isTrue();
            }
            assertThat(Files.readAllLines(fleet.writeNodes(tmp.resolve("nodes.txt"))))
                    .containsExactly(at.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new));
        }
    }

    @Test
    void thePlanPlacesNodesUnderLeavesAndSpines() {
        FleetPlan plan = FleetPlan.healthy("gpu", 40, 4);
        assertThat(plan.node("gpu0001").placement().switches()).containsExactly("leaf-001", "spine-01");
        assertThat(plan.node("gpu0004").placement().leaf()).isEqualTo("leaf-001");
        assertThat(plan.node("gpu0005").placement().leaf()).isEqualTo("leaf-002");
        // sixteen leaves to a spine: the 65th node's leaf is the seventeenth, under the second spine
        assertThat(FleetPlan.healthy("gpu", 65, 4).node("gpu0065").placement().switches()).containsExactly("leaf-017", "spine-02");
        assertThat(plan.topology().path("gpu0001", "gpu0005")).isPresent();
        assertThatThrownBy(() -> plan.with("gpu0099", FleetPlan.HEALTHY, FleetPlan.NONE)).hasMessageContaining("no node gpu0099");
        assertThatThrownBy(() -> new FleetPlan.Fault.LossyUdp(1.5)).hasMessageContaining("not between 0 and 1");
        FleetPlan.Node one = plan.node("gpu0001");
        assertThatThrownBy(() -> new FleetPlan(List.of(one, one))).hasMessageContaining("planned twice");
    }
}
