package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.peers.EndpointClient;
import io.fabricd.testing.PrivateFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Without probe.node_name an agent goes by its host's name as the latest collection read it: a host
 * renamed after the agent started (cloud-init, DHCP, hostnamectl) is known to its peers and to the
 * job gate by its new name, not by the one it had at start.
 */
class NodeNameRenameTest {
    @Test
    void aRenamedHostAnswersUnderItsNewNameAfterTheNextCollection(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        Path root = tmp.resolve("host");
        Path hostname = root.resolve("proc/sys/kernel/hostname");
        Files.createDirectories(hostname.getParent());
        Files.createDirectories(root.resolve("sys/class/infiniband"));
        Files.writeString(hostname, "node-before\n");
        EndpointClient client = new EndpointClient(new ProbeKey(AgentProbeTest.KEY.getBytes(StandardCharsets.UTF_8)), Duration.ofSeconds(5));
        try (Agent a = new Agent(SnapshotHostSource.open(root),
                TestConfigs.withProbe(AgentHttpTest.config(Duration.ofMillis(200)), AgentProbeTest.probe(key, "peers: []")),
                new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            String self = "127.0.0.1:" + a.port();
            assertThat(client.fetch(self).host()).isEqualTo("node-before");

            Files.writeString(hostname, "node-after\n");
            String seen = null;
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < deadline && !"node-after".equals(seen)) {
                Thread.sleep(100);
                seen = client.fetch(self).host();
            }
            assertThat(seen).isEqualTo("node-after");
        }
    }
}
