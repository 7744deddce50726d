package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.testing.PromText;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A real agent at its connection budget (http.max_connections 16) under a flood from 40 addresses
 * whose connections keep sending requests they are refused (404), reconnecting when closed, while a
 * known scraper opens a new connection for each scrape: the refused connections are closed to make
 * room, never the scraper's, and every scrape is answered. Before, a connection that had just been
 * refused counted as recently used, and the scraper's unread new connection was closed first: some
 * 5-10 % of its scrapes failed.
 */
class RefusedConnectionFloodTest {
    private static final int FLOOD_ADDRESSES = 40;
    private static final int SCRAPES = 150;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aKnownScrapersNewConnectionsGetInWhileRefusedConnectionsKeepSending() throws Exception {
        try (Agent a = new Agent(Fixtures.open("host-b-roce"),
                TestConfigs.yaml("collection: {interval: 1h}", "http: {max_connections: 16, max_requests: 8}"),
                new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            int port = a.port();
            assertThat(scrape(port)).isEqualTo(200); // 127.0.0.1 is a known source from now on
            AtomicBoolean flooding = new AtomicBoolean(true);
            AtomicInteger refusals = new AtomicInteger();
            List<Thread> flood = new ArrayList<>();
            for (int i = 0; i < FLOOD_ADDRESSES; i++) {
                String from = "127.0.10." + (1 + i);
                Thread t = new Thread(() -> keepSendingRefused(from, port, flooding, refusals), "flood-" + from);
                t.setDaemon(true);
                t.start();
                flood.add(t);
            }
            try {
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (refusals.get() < 5 * FLOOD_ADDRESSES && System.nanoTime() < deadline) {
                    Thread.sleep(20); // the flood is up and at the budget
                }
                List<String> failed = new ArrayList<>();
                for (int i = 0; i < SCRAPES; i++) {
                    try {
                        int status = scrape(port);
                        if (status != 200) {
                            failed.add("scrape " + i + ": " + status);
                        }
                    } catch (IOException e) {
                        failed.add("scrape " + i + ": " + e.getMessage());
                    }
                    Thread.sleep(10);
                }
                assertThat(refusals.get()).as("refused requests meanwhile").isGreaterThan(SCRAPES);
                assertThat(failed).as("scrapes that failed, of " + SCRAPES).isEmpty();
            } finally {
                flooding.set(false);
                for (Thread t : flood) {
                    t.join(10_000);
                }
            }
            String m = Http.get(port, "/metrics?name[]=fabric_agent_http_connections_shed_total").body();
            assertThat(PromText.parse(m).get("fabric_agent_http_connections_shed_total")).as("closed for room").isPositive();
        }
    }

    /** One scrape on a new connection from the known address: its status. */
    private static int scrape(int port) throws IOException {
        try (RawHttp c = new RawHttp("127.0.0.1", port)) {
            c.write("GET /metrics?name[]=fabric_agent_ready HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
            return c.read().status();
        }
    }

    /** Requests answered 404, one after the other on one connection from {@code from}, a new one whenever it is closed. */
    private static void keepSendingRefused(String from, int port, AtomicBoolean flooding, AtomicInteger refusals) {
        while (flooding.get()) {
            try (RawHttp c = new RawHttp(from, port)) {
                while (flooding.get()) {
                    c.write("GET /nope HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
                    if (c.read().status() == 404) {
                        refusals.incrementAndGet();
                    }
                    Thread.sleep(20);
                }
            } catch (IOException e) {
                // closed for room: again, as a flood does
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
