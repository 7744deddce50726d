package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Requests refused while their body is still coming, on paths that read no body (404, 405): the
 * answer comes at once and the connection closes once the sender's body is over, at most 2 s later
 * (docs/security.md, "Refused bodies"), however the body comes: with a length, in chunks, or
 * trickling a byte at a time. Kept open, each such connection stayed until http.idle_timeout (30 s
 * by default) while its sender kept it busy.
 */
class RefusedBodyCloseTest {
    /** The promised linger (LingeringClose.MAX_MS), and what a loaded test machine may add to it. */
    private static final long CLOSED_WITHIN_MS = 2_000 + 2_500;

    @Test
    void everyRefusalOfARequestWithABodyClosesWithinTwoSeconds() throws Exception {
        try (Agent a = new Agent(Fixtures.open("host-b-roce"), TestConfigs.yaml("collection: {interval: 1h}"),
                new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            int port = a.port();
            closesSoon(port, "POST /no/such/path", "Content-Length: 100000", 404, false);
            closesSoon(port, "POST /metrics", "Content-Length: 100000", 405, false);
            closesSoon(port, "PUT /healthz", "Content-Length: 100000", 405, false);
            closesSoon(port, "DELETE /api/v1/findings", "Transfer-Encoding: chunked", 405, false);
            // a sender that keeps sending its body is cut at the same time
            closesSoon(port, "POST /nothing-here", "Content-Length: 100000", 404, true);
            // the agent still answers on new connections
            assertThat(Http.get(port, "/healthz").statusCode()).isEqualTo(200);
        }
    }

    /**
     * Sends {@code head} with {@code framing} and a first piece of body, expects {@code status}, then
     * the connection closed by the agent within {@link #CLOSED_WITHIN_MS} of the answer.
     */
    private static void closesSoon(int port, String head, String framing, int status, boolean trickle) throws Exception {
        try (RawHttp c = new RawHttp("127.0.0.1", port)) {
            boolean chunked = framing.startsWith("Transfer-Encoding");
            c.write(head + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + framing + "\r\n\r\n" + (chunked ? "40\r\n" : "") + "x".repeat(64)
                    + (chunked ? "\r\n" : ""));
            RawHttp.Reply r = c.read();
            long answered = System.nanoTime();
            assertThat(r.status()).as(head).isEqualTo(status);
            Thread sender = null;
            if (trickle) {
                sender = new Thread(() -> {
                    try {
                        for (int i = 0; i < 300; i++) {
                            c.write("y");
                            Thread.sleep(100);
                        }
                    } catch (IOException | InterruptedException e) {
                        // closed by the agent: what the test waits for
                    }
                }, "trickle");
                sender.setDaemon(true);
                sender.start();
            }
            boolean closed;
            try {
                closed = c.closedByServer();
            } catch (IOException e) { // the read timed out: still open
                closed = false;
            }
            long ms = Duration.ofNanos(System.nanoTime() - answered).toMillis();
            assertThat(closed).as(head + ": closed by the agent").isTrue();
            assertThat(ms).as(head + ": closed %d ms after the answer", ms).isLessThanOrEqualTo(CLOSED_WITHIN_MS);
            if (sender != null) {
                sender.interrupt();
            }
        }
    }
}
