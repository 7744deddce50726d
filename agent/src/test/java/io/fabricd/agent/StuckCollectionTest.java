package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.collectors.Fixtures;
import io.fabricd.collectors.kernel.HostReadException;
import io.fabricd.collectors.source.ForwardingHostSource;
import io.fabricd.testing.PromText;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A collection that hangs (a read no timeout reaches) shows: /readyz 503, the running gauge; ready again once it ends. */
class StuckCollectionTest {
    /** host-a-ib, whose reads of one counter hang while {@code hang} is set, until {@code release}. */
    static final class Hanging extends ForwardingHostSource {
        final AtomicBoolean hang = new AtomicBoolean();
        final CountDownLatch release = new CountDownLatch(1);

        Hanging() {
            super(Fixtures.open("host-a-ib"));
        }

        @Override
        public String read(String path) throws HostReadException {
            if (hang.get() && path.endsWith("counters/symbol_error")) {
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.read(path);
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aHangingCollectionMakesTheAgentNotReadyUntilItEnds() throws Exception {
        Hanging source = new Hanging();
        AgentConfig c = TestConfigs.yaml("collection: {interval: 200ms, stuck_after: 1s}");
        try (Agent a = new Agent(source, c, new ListenAddress("127.0.0.1", 0)).start()) {
            assertThat(a.awaitReady(Duration.ofSeconds(20))).isTrue();
            assertThat(Http.get(a.port(), "/readyz").statusCode()).isEqualTo(200);
            source.hang.set(true);
            HttpResponse<String> r = null;
            for (int i = 0; i < 100; i++) {
                r = Http.get(a.port(), "/readyz");
                if (r.statusCode() == 503) {
                    break;
                }
                Thread.sleep(50);
            }
            assertThat(r.statusCode()).isEqualTo(503);
            assertThat(r.body()).contains("a collection has been running for", "a read of the host hangs");
            Map<String, Double> m = PromText.parse(Http.get(a.port(), "/metrics?name[]=fabric_agent_collection_running_seconds"
                    + "&name[]=fabric_agent_ready&name[]=fabric_port_up").body());
            assertThat(m.get("fabric_agent_collection_running_seconds")).isGreaterThanOrEqualTo(1.0);
            assertThat(m.get("fabric_agent_ready")).isZero();
            // the last finished collection is still served
            assertThat(m).containsKey("fabric_port_up{device=\"mlx5_0\",port=\"1\"}");
            // the whole body too, as of each scrape: not ready, and the stuck collection's age growing
            Map<String, Double> whole = PromText.parse(Http.get(a.port(), "/metrics").body());
            assertThat(whole.get("fabric_agent_ready")).isZero();
            Thread.sleep(300);
            Map<String, Double> later = PromText.parse(Http.get(a.port(), "/metrics").body());
            assertThat(later.get("fabric_agent_ready")).isZero();
            assertThat(later.get("fabric_agent_collection_running_seconds"))
                    .isGreaterThanOrEqualTo(whole.get("fabric_agent_collection_running_seconds") + 0.25);
            assertThat(later).containsKey("fabric_port_up{device=\"mlx5_0\",port=\"1\"}");

            source.hang.set(false);
            source.release.countDown();
            for (int i = 0; i < 100 && Http.get(a.port(), "/readyz").statusCode() != 200; i++) {
                Thread.sleep(50);
            }
            assertThat(Http.get(a.port(), "/readyz").statusCode()).isEqualTo(200);
        }
    }
}
