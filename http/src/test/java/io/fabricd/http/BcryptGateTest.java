package io.fabricd.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The bounds on bcrypt work, with a clock of the test's (the flood itself: BasicAuthFloodTest). */
class BcryptGateTest {
    private final Vertx vertx = Vertx.vertx();
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final AtomicInteger started = new AtomicInteger();
    private final BcryptGate gate = new BcryptGate(vertx, started::incrementAndGet, now::get);

    @AfterEach
    void close() {
        vertx.close().await();
    }

    /** Submits a check answering {@code ok}; waits for its answer. Null when it ran, else the refusal. */
    private BcryptGate.Refusal run(String source, boolean ok) throws Exception {
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        BcryptGate.Refusal no = gate.submit(source, () -> ok, done::complete);
        if (no == null) {
            assertThat(done.get(20, TimeUnit.SECONDS)).isEqualTo(ok);
        }
        return no;
    }

    @Test
    void aSourceIsRefusedAfterItsFailuresUntilTheMinuteIsOver() throws Exception {
        for (int i = 0; i < BcryptGate.MAX_FAILURES; i++) {
            assertThat(run("10.0.0.1", false)).isNull();
        }
        BcryptGate.Refusal no = run("10.0.0.1", true);
        assertThat(no.status()).isEqualTo(429);
        assertThat(no.retryAfter()).isEqualTo(60);
        assertThat(no.message()).isEqualTo("too many failed logins from 10.0.0.1, try again in 60 s");
        assertThat(run("10.0.0.2", false)).isNull(); // another source is not concerned
        now.addAndGet(TimeUnit.SECONDS.toNanos(59) + 1);
        assertThat(run("10.0.0.1", true).retryAfter()).isEqualTo(1);
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(run("10.0.0.1", false)).isNull(); // a new minute: verified again
        assertThat(started.get()).isEqualTo(BcryptGate.MAX_FAILURES + 2);
    }

    @Test
    void oneVerificationPerSourceAndSixteenInAll() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger answered = new AtomicInteger();
        for (int i = 0; i < BcryptGate.MAX_PENDING; i++) {
            assertThat(gate.submit("10.0.1." + i, () -> release.await(20, TimeUnit.SECONDS), ok -> answered.incrementAndGet())).isNull();
        }
        BcryptGate.Refusal busy = gate.submit("10.0.1.0", () -> true, ok -> { });
        assertThat(busy.status()).isEqualTo(429);
        assertThat(busy.retryAfter()).isEqualTo(1);
        BcryptGate.Refusal full = gate.submit("10.0.2.1", () -> true, ok -> { });
        assertThat(full.status()).isEqualTo(503);
        assertThat(full.message()).isEqualTo("too many logins being checked, try again in 1 s");
        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (gate.pending() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(gate.pending()).isZero();
        assertThat(run("10.0.2.1", true)).isNull();
        assertThat(started.get()).isEqualTo(BcryptGate.MAX_PENDING + 1);
    }

    @Test
    void anIpv6SourceIsItsSlash64() {
        assertThat(BcryptGate.source(SocketAddress.inetSocketAddress(1, "2001:db8:1:2:3:4:5:6"))).isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(BcryptGate.source(SocketAddress.inetSocketAddress(1, "2001:db8:1:2:ffff::1"))).isEqualTo("2001:db8:1:2:0:0:0:0/64");
        assertThat(BcryptGate.source(SocketAddress.inetSocketAddress(1, "192.0.2.7"))).isEqualTo("192.0.2.7");
        assertThat(BcryptGate.source(null)).isEmpty();
    }
}
