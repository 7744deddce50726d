package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.UnixOperatingSystemMXBean;
import io.fabricd.testing.PromText;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Idle TCP connection floods against a real {@code bin/fabricd run --demo} (its own JVM flags: a
 * small heap that exits on OutOfMemoryError) while a scraper keeps scraping: every scrape is
 * answered, the agent holds at most http.max_connections and survives. 20 000 connections from 20
 * addresses; up to 18 000 from 9 000 addresses into a 48 MiB heap. Loopback only, bounded in count
 * and time. The idle connections come from two other processes ({@link Holder}), up to 10 000 each:
 * one process may hold 20 000 descriptors on the CI machines.
 */
class IdleConnectionFloodIT {
    private static final int IDLE = 20_000;

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void twentyThousandIdleConnectionsDoNotStopScrapes() throws Exception {
        // two processes of 10 000 sockets each (a process may hold 20 000 descriptors here), from 10
        // source addresses each (127.0.1.1 on): 1 000 ports per address. Every one of the 20 000 is shed
        // or refused while at most 256 stay open
        Flooded f = flood("collection:\n  interval: 1s\nhttp:\n  max_connections: 256\n", null, IDLE / 2, h -> 257 + 10 * h, 1_000, 256);
        System.out.printf("%d idle connections held, %d scrapes answered meanwhile%n", IDLE, f.scrapes());
    }

    /**
     * A flood from thousands of source addresses, two connections each (127.2.x.y and 127.3.x.y, as
     * many as the descriptor limit lets two holder processes keep), against an agent with a 48 MiB
     * heap and no http.max_connections (what the heap allows): a bound per address alone let them
     * all in, and the connections waiting for the event loop filled the heap (OutOfMemoryError, the
     * agent exited). Now the agent stays up, every scrape meanwhile is answered, and the flood is
     * shed or refused at accept.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void aFloodFromThousandsOfAddressesDoesNotFillASmallHeap() throws Exception {
        Requirements.require(descriptorLimit() >= 3_000, "a limit of 3000 open files or more (ulimit -n)");
        int perHolder = (int) Math.min(9_000, descriptorLimit() - 1_000);
        // two connections per address, from 127.2.0.1 and 127.3.0.1 on. A 48 MiB heap allows some 230
        // connections (HeapBudget): every other one of the flood is shed or refused
        Flooded f = flood("collection:\n  interval: 1s\n", "-Xmx48m", perHolder, h -> (2 + h) << 16 | 1, 2, 400);
        assertThat(f.metrics().get("fabric_agent_http_connections_shed_total")).isPositive();
        System.out.printf("%d connections from %d addresses, %d scrapes answered meanwhile; %.0f shed, %.0f refused at accept%n",
                2 * perHolder, perHolder, f.scrapes(), f.metrics().get("fabric_agent_http_connections_shed_total"),
                f.metrics().get("fabric_agent_http_connections_refused_total"));
    }

    /** What a flood left: the agent's connection metrics once it was over, and the scrapes answered meanwhile. */
    private record Flooded(Map<String, Double> metrics, int scrapes) {
    }

    /**
     * Starts {@code bin/fabricd run --demo} with {@code config} (and {@code heap} flags after the
     * launcher's, when not null), floods it from two {@link Holder} processes of {@code perHolder}
     * idle connections each ({@code perAddress} per source address, the first address of holder h
     * {@code firstAddress.applyAsInt(h)}) while a scraper keeps scraping, and checks that the agent
     * survived, answered every scrape 200, never held more than {@code bound} connections, and shed or
     * refused all but {@code bound} of the flood (those still in the kernel's accept queue when the
     * holders were done are accepted, and shed, after).
     */
    private static Flooded flood(String config, String heap, int perHolder, IntUnaryOperator firstAddress,
                                 int perAddress, int bound) throws Exception {
        Path repo = Requirements.repoRoot();
        int port = NodeExporterParityIT.freePort();
        Path cfg = Files.createTempFile("fabricd", ".yaml");
        Files.writeString(cfg, config);
        Path log = Files.createTempFile("fabricd-flood", ".log");
        ProcessBuilder pb = new ProcessBuilder(repo.resolve("bin/fabricd").toString(), "run", "--demo",
                "--listen", "127.0.0.1:" + port, "--config", cfg.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
        if (heap != null) {
            pb.environment().put("FABRICD_EXTRA_JAVA_OPTS", heap);
        }
        Process agent = pb.start();
        List<Process> holders = new ArrayList<>();
        int total = 2 * perHolder;
        try {
            awaitReady(port);
            AtomicBoolean flooding = new AtomicBoolean(true);
            List<String> scrapes = new CopyOnWriteArrayList<>();
            Thread scraper = new Thread(() -> {
                while (flooding.get()) {
                    scrapes.add(scrape(port, "/metrics"));
                }
            }, "scraper");
            scraper.start();
            String java = ProcessHandle.current().info().command().orElse("java");
            String classes = Path.of(Holder.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
            for (int h = 0; h < 2; h++) {
                holders.add(new ProcessBuilder(java, "-cp", classes, Holder.class.getName(), Integer.toString(port),
                        Integer.toString(perHolder), Integer.toString(firstAddress.applyAsInt(h)), Integer.toString(perHolder / perAddress))
                        .redirectErrorStream(true).start());
            }
            for (Process h : holders) {
                String line = new BufferedReader(new InputStreamReader(h.getInputStream())).readLine();
                assertThat(line).isEqualTo("holding " + perHolder);
            }
            // all are held; a few more scrapes with the flood in place
            for (int i = 0; i < 5; i++) {
                scrapes.add(scrape(port, "/metrics"));
            }
            flooding.set(false);
            scraper.join(30_000);
            assertThat(agent.isAlive()).as("the agent survived the flood:\n" + Files.readString(log)).isTrue();
            assertThat(scrapes).hasSizeGreaterThanOrEqualTo(5);
            assertThat(scrapes.stream().map(s -> s.lines().findFirst().orElse("(nothing)")).filter(s -> !s.startsWith("HTTP/1.1 200")))
                    .as("scrapes not answered 200, of " + scrapes.size()).isEmpty();
            Map<String, Double> m = Map.of();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline) {
                String last = scrape(port, "/metrics?name[]=fabric_agent_http_connections&name[]=fabric_agent_http_connections_shed_total"
                        + "&name[]=fabric_agent_http_connections_refused_total");
                assertThat(last).startsWith("HTTP/1.1 200");
                m = PromText.parse(last.substring(last.indexOf("\r\n\r\n") + 4));
                assertThat(m.get("fabric_agent_http_connections")).isLessThanOrEqualTo(bound);
                if (closedForRoom(m) >= total - bound) {
                    break;
                }
                Thread.sleep(200);
            }
            assertThat(closedForRoom(m)).isGreaterThanOrEqualTo(total - bound);
            assertThat(agent.isAlive()).isTrue();
            return new Flooded(m, scrapes.size());
        } finally {
            for (Process h : holders) {
                h.getOutputStream().close(); // end of input: the holder closes its sockets and exits
                if (!h.waitFor(20, TimeUnit.SECONDS)) {
                    h.destroyForcibly();
                }
            }
            agent.destroy();
            assertThat(agent.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * http.max_connections 600 000 000: four times it overflowed an int and every address's third
     * connection was reset. It is refused at start, in one line naming the key and its range.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void aConnectionLimitBeyondItsRangeIsRefusedAtStart() throws Exception {
        Path repo = Requirements.repoRoot();
        int port = NodeExporterParityIT.freePort();
        Path cfg = Files.createTempFile("fabricd", ".yaml");
        Files.writeString(cfg, "http:\n  max_connections: 600000000\n");
        Path log = Files.createTempFile("fabricd-range", ".log");
        Process agent = new ProcessBuilder(repo.resolve("bin/fabricd").toString(), "run", "--demo",
                "--listen", "127.0.0.1:" + port, "--config", cfg.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            boolean exited = agent.waitFor(60, TimeUnit.SECONDS);
            String out = Files.readString(log);
            assertThat(exited).as("the agent started:\n" + out).isTrue();
            assertThat(agent.exitValue()).as(out).isEqualTo(2);
            assertThat(out).contains("http.max_connections must be 0 (what the heap allows) or between 4 and 1048576, not 600000000")
                    .doesNotContain("Exception");
        } finally {
            agent.destroyForcibly();
        }
    }

    /** How many descriptors a process may open here (a child's limit is its parent's). */
    private static long descriptorLimit() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof UnixOperatingSystemMXBean u ? u.getMaxFileDescriptorCount() : 4_096;
    }

    /**
     * A flood client: opens COUNT connections to 127.0.0.1:PORT from ADDRESSES source addresses
     * (round robin), the first 127.0.0.0 + FIRST (FIRST 257: 127.0.1.1), says "holding COUNT", and
     * keeps them until its input ends (at most 3 minutes). A connection the agent resets while it is
     * being made counts as made.
     */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            int port = Integer.parseInt(args[0]);
            int count = Integer.parseInt(args[1]);
            int first = Integer.parseInt(args[2]);
            int addresses = Integer.parseInt(args[3]);
            List<SocketChannel> held = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                int n = first + i % addresses;
                SocketChannel ch = SocketChannel.open();
                ch.bind(new InetSocketAddress("127." + (n >> 16 & 255) + "." + (n >> 8 & 255) + "." + (n & 255), 0));
                try {
                    ch.connect(new InetSocketAddress("127.0.0.1", port));
                    held.add(ch);
                } catch (IOException e) {
                    // the agent shedding connections at http.max_connections may reset one as it
                    // is made ("Connection reset by peer"): it was still made, and shed; go on
                    ch.close();
                }
            }
            System.out.println("holding " + count);
            System.out.flush();
            Thread stop = new Thread(() -> {
                try {
                    System.in.read();
                } catch (IOException e) {
                    // ended all the same
                }
            });
            stop.setDaemon(true);
            stop.start();
            stop.join(180_000);
            for (SocketChannel ch : held) {
                ch.close();
            }
        }
    }

    /** Connections the agent closed to stay within its limits: shed after accept, or refused at accept. */
    private static double closedForRoom(Map<String, Double> m) {
        return m.getOrDefault("fabric_agent_http_connections_shed_total", 0.0) + m.getOrDefault("fabric_agent_http_connections_refused_total", 0.0);
    }

    /** One GET over a new connection ("Connection: close"), the whole answer; "ERROR ..." when it failed. */
    static String scrape(int port, String path) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
            s.setSoTimeout(20_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "ERROR " + e;
        }
    }

    static void awaitReady(int port) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (scrape(port, "/readyz").startsWith("HTTP/1.1 200")) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the agent did not get ready");
    }
}
