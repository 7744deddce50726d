package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.bandwidth.BandwidthMessages;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.testing.PrivateFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bandwidth paths of a real agent that serves no tests (it reads a snapshot): the key is
 * checked before anything is said, and the answer says why there is no test. The tests
 * themselves run in the Soft-RoCE VM (BandwidthVmIT).
 */
class AgentBandwidthTest {
    private static final byte[] START = ("{\"client\":\"x\",\"size\":4096,\"qps\":1,\"durationMs\":1000,\"qp\":[{\"qpn\":100,\"psn\":7,"
            + "\"lid\":0,\"gid\":\"fe80:0000:0000:0000:0000:0000:0000:0001\",\"rkey\":4660,\"addr\":8323072,\"mtu\":1024}]}")
            .getBytes(StandardCharsets.UTF_8);

    @Test
    void aWrongKeyIsRefusedAndTheRightOneLearnsWhyThereIsNoTest(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        AgentConfig c = AgentProbeTest.config(key, List.of());
        try (Agent a = new Agent(Fixtures.open("host-b-roce"), c, new ListenAddress("127.0.0.1", 0)).start()) {
            String peer = "127.0.0.1:" + a.port();
            EndpointClient wrong = new EndpointClient(new ProbeKey("another-key-of-more-than-16-bytes".getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(5));
            assertThatThrownBy(() -> wrong.post(peer, BandwidthMessages.START_PATH, START)).isInstanceOf(IOException.class)
                    .hasMessageContaining("refused the probe key (401)");
            EndpointClient right = new EndpointClient(new ProbeKey(AgentProbeTest.KEY.getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(5));
            assertThatThrownBy(() -> right.post(peer, BandwidthMessages.START_PATH, START)).isInstanceOf(IOException.class)
                    .hasMessageContaining("answered 503").hasMessageContaining("reads a snapshot");

            HttpClient http = HttpClient.newHttpClient();
            HttpResponse<String> get = http.send(HttpRequest.newBuilder(URI.create("http://" + peer + BandwidthMessages.START_PATH)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(get.statusCode()).isEqualTo(405);
            assertThat(get.headers().firstValue("Allow")).contains("POST");
            // a body past 64 KiB is refused by its declared length, before it is read
            HttpResponse<String> big = http.send(HttpRequest.newBuilder(URI.create("http://" + peer + BandwidthMessages.START_PATH))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[70_000])).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(big.statusCode()).isEqualTo(413);
            // unsigned: 401, counted as the endpoint's refusals are
            HttpResponse<String> unsigned = http.send(HttpRequest.newBuilder(URI.create("http://" + peer + BandwidthMessages.STOP_PATH))
                    .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(unsigned.statusCode()).isEqualTo(401);
            assertThat(unsigned.body()).contains("(missing)");
            HttpResponse<String> go = http.send(HttpRequest.newBuilder(URI.create("http://" + peer + BandwidthMessages.GO_PATH))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"id\":\"x\"}")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(go.statusCode()).isEqualTo(401);
        }
    }

    @Test
    void withoutAKeyTheAgentSaysBandwidthTestsAreOff(@TempDir Path tmp) throws Exception {
        AgentConfig c = AgentHttpTest.config(Duration.ofHours(1));
        try (Agent a = new Agent(Fixtures.open("host-b-roce"), c, new ListenAddress("127.0.0.1", 0)).start()) {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + a.port() + BandwidthMessages.START_PATH)).POST(HttpRequest.BodyPublishers.ofString("{}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("no probe key");
        }
    }

    @Test
    void theCliSaysWhatIsWrongInOneLine(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        CliTest.Result noKey = CliTest.run("bw", "127.0.0.1:1");
        assertThat(noKey.code()).isEqualTo(2);
        assertThat(noKey.err()).contains("no probe key").doesNotContain("Exception");
        CliTest.Result qps = CliTest.run("bw", "127.0.0.1:1", "--key-file", key.toString(), "--qps", "0");
        assertThat(qps.code()).isEqualTo(2);
        assertThat(qps.err()).contains("--qps must be 1 to 64");
        assertThat(CliTest.run("bw", "127.0.0.1:1", "--key-file", key.toString(), "--duration", "2h").err())
                .contains("--duration must be 1ms to 60m");
        // numbers beyond their type or whose products would overflow: exit 2, one line, before anything is opened
        for (String[] bad : new String[][] {{"--size", "99999999999999999999"}, {"--size", "-9223372036854775808"},
            {"--size", "1073741825"}, {"--qps", "4294967297"}, {"--qps", "-2147483648"}, {"--duration", "9999999999999999999999h"},
            {"--duration", "106751991167301d"}, {"--duration", "0.0000001ms"}, {"--device", "mlx5_0:4294967297"},
            {"--device", "mlx5_0:0"}, {"--gid-index", "99999999999"}, {"--gid-index", "-1"}}) {
            CliTest.Result r = CliTest.run("bw", "127.0.0.1:1", "--key-file", key.toString(), bad[0], bad[1]);
            assertThat(r.code()).as(String.join(" ", bad)).isEqualTo(2);
            assertThat(r.err().lines().filter(l -> !l.startsWith("Try ")).count()).as(r.err()).isEqualTo(1);
            assertThat(r.err()).as(String.join(" ", bad)).contains(bad[0]).doesNotContain("Exception").doesNotContain("RDMA");
        }
        // this machine has no RDMA port (CI neither): said so, before any peer is asked
        CliTest.Result none = CliTest.run("bw", "127.0.0.1:1", "--key-file", key.toString());
        assertThat(none.code()).isEqualTo(2);
        assertThat(none.err()).containsAnyOf("no RDMA device on this host", "no ACTIVE RDMA port on this host", "verbs shim", "libibverbs").doesNotContain("Exception");
        assertThat(none.out()).isEmpty();
    }
}
