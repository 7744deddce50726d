package io.fabricd.collectors.topology;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabricd.collectors.CollectorConfig;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.LiveHostSource;
import io.fabricd.model.HostModel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** OSHI on this machine supplies the live host's facts. */
class HostFactsLiveTest {

    @Test
    void oshiFactsOfThisHost() {
        try (LiveHostSource live = new LiveHostSource(Path.of("/"), Duration.ofSeconds(2))) {
            HostModel m = new HostCollection(List.of(new HostFactsCollector()), CollectorConfig.DEFAULT,
                    Clock.systemUTC()).collect(live);
            assertThat(m.facts().memoryBytes()).isGreaterThan(0L);
            assertThat(m.facts().numaCpus().values().stream().mapToInt(Integer::intValue).sum())
                    .isGreaterThanOrEqualTo(Runtime.getRuntime().availableProcessors()); // cgroups may limit the JVM
            assertThat(m.facts().kernel()).isEqualTo(System.getProperty("os.version"));
            assertThat(m.collector("host").orElseThrow().errors()).isEmpty();
        }
    }
}
