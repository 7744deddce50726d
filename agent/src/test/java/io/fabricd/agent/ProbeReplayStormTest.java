package io.fabricd.agent;

import static io.fabricd.testing.PromText.s;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.probes.ProbeKey;
import io.fabricd.probes.responder.ResponderStats;
import io.fabricd.probes.testing.CapturedProbes;
import io.fabricd.testing.PrivateFiles;
import io.fabricd.testing.PromText;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Captured probes replayed at an agent's probe port from thousands of new source ports, while
 * another agent probes it: the replays open no socket of the agent's and make it read no
 * /proc/net/udp, and the probing agent loses no probe.
 */
class ProbeReplayStormTest {
    /**
     * More captured probes than the responder keeps peer sockets (512; its first second answers
     * ~1 200 of them): on a socket each, they churned them.
     */
    private static final int CAPTURED = 2048;
    /**
     * Copies a second: each is taken off A's shared socket (its work budget is 4 000/s), so the first
     * copy of each captured probe is answered as far as A's answer budget (1 000/s) goes.
     */
    private static final int STORM_RATE = 2500;

    @Test
    void replayedProbesCostTheAgentNoSocketsAndItsPeerNoProbes(@TempDir Path tmp) throws Exception {
        Path keyFile = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY + "\n");
        ProbeKey key = new ProbeKey(AgentProbeTest.KEY.getBytes(StandardCharsets.UTF_8));
        try (Agent a = new Agent(Fixtures.open("host-a-ib"), AgentProbeTest.config(keyFile, List.of()), new ListenAddress("127.0.0.1", 0))
                .start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            String peerA = "127.0.0.1:" + a.port();
            int udpA = a.probes().endpoint().udpPort();
            ResponderStats stats = a.probes().responderStats();
            try (Agent b = new Agent(Fixtures.open("host-b-roce"), AgentProbeTest.config(keyFile, List.of(peerA)),
                    new ListenAddress("127.0.0.1", 0)).start()) {
                assertThat(b.awaitReady(Duration.ofSeconds(20))).isTrue();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (stats.peerSocketCount() < 1 || sent(b, peerA) < 40) { // B probes A, from a socket of its own at A
                    assertThat(System.nanoTime()).as("B probing A within 30 s").isLessThan(deadline);
                    Thread.sleep(50);
                }
                List<byte[]> captured = CapturedProbes.capture(key, CAPTURED);
                double sent0 = sent(b, peerA);
                double lost0 = lost(b, peerA);
                long opened = stats.peerSocketsOpened();
                long procfs = stats.procfsReads();

                long copies = 0;
                Set<Integer> ports = new HashSet<>();
                InetSocketAddress to = new InetSocketAddress("127.0.0.1", udpA);
                long due = System.nanoTime();
                long end = due + 3_000_000_000L;
                while (System.nanoTime() < end) { // each copy from a socket, a source port, of its own
                    long early = due - System.nanoTime();
                    if (early > 0) {
                        LockSupport.parkNanos(early);
                        continue;
                    }
                    due += 1_000_000_000L / STORM_RATE;
                    try (DatagramChannel ch = DatagramChannel.open()) {
                        ch.bind(new InetSocketAddress("127.0.0.1", 0));
                        ports.add(((InetSocketAddress) ch.getLocalAddress()).getPort());
                        ch.send(ByteBuffer.wrap(captured.get((int) (copies++ % captured.size()))), to);
                    }
                }
                long openedByStorm = stats.peerSocketsOpened() - opened;
                long procfsByStorm = stats.procfsReads() - procfs;
                // B's rounds during the storm, and one whole round after it (two sizes of 20 probes a round)
                double sentDuring = sent(b, peerA);
                deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (sent(b, peerA) < sentDuring + 40 + 40) {
                    assertThat(System.nanoTime()).as("B's rounds after the storm within 30 s").isLessThan(deadline);
                    Thread.sleep(50);
                }
                double sent = sent(b, peerA) - sent0;
                double lost = lost(b, peerA) - lost0;
                System.out.printf("replay storm at an agent: %d copies of %d captured probes from %d source ports; %d dropped as "
                        + "replayed; peer sockets opened %d, /proc/net/udp read %d times; its peer lost %.0f of %.0f probes%n",
                        copies, captured.size(), ports.size(), stats.droppedCount("replayed"), openedByStorm, procfsByStorm, lost, sent);

                assertThat(ports).as("the storm came from thousands of source ports").hasSizeGreaterThan(2000);
                assertThat(openedByStorm).as("sockets A opened for the replays").isZero();
                assertThat(stats.peerSocketCount()).as("A's peer sockets: B's").isEqualTo(1);
                assertThat(procfsByStorm).as("reads of /proc/net/udp during the storm").isZero();
                assertThat(stats.droppedCount("replayed")).isGreaterThan(CAPTURED);
                // B's probes reach its own socket at A with its own budget (1000/s; B sends 80/s), so none
                // is dropped; lost means unanswered for a whole second (probe.timeout) and more at the end
                // of B's session, which a descheduled responder on a loaded machine does not come near
                assertThat(lost).as("B's probes to A lost during and after the storm").isZero();
                assertThat(Http.get(a.port(), "/healthz").statusCode()).isEqualTo(200);
            }
        }
    }

    private static double sent(Agent b, String peer) throws Exception {
        return sum(b, "fabric_probe_sent_total", peer);
    }

    private static double lost(Agent b, String peer) throws Exception {
        return sum(b, "fabric_probe_lost_total", peer);
    }

    private static double sum(Agent b, String family, String peer) throws Exception {
        Map<String, Double> v = PromText.parse(Http.get(b.port(), "/metrics?name[]=" + family).body());
        double n = 0;
        for (String size : new String[] {"64", "1024"}) {
            n += v.getOrDefault(s(family, "peer", peer, "peer_rack", "r12", "transport", "udp", "size", size), 0.0);
        }
        return n;
    }
}
