package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.Helm;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The configuration file the chart renders is one fabricd itself accepts (bin/fabricd, the built jar). */
class ChartConfigIT {
    @Test
    void fabricdAcceptsTheRenderedConfiguration(@TempDir Path tmp) throws Exception {
        Path custom = Files.writeString(tmp.resolve("custom.yaml"), """
                config:
                  collection: {interval: 30s, read_timeout: 1s}
                  diagnosis: {roce: {priority: 3, trust: dscp}, disabled_checks: [pcie_degraded]}
                probe: {rackLabels: [example.com/tor], udpPort: 9700}
                """);
        for (Path values : new Path[] {null, custom}) {
            List<HasMetadata> objects = HelmChartTest.render(t -> values == null ? t : t.withValuesFile(values));
            String cfg = HelmChartTest.all(objects, ConfigMap.class).stream().filter(m -> m.getData().containsKey("fabricd.yaml"))
                    .findFirst().orElseThrow().getData().get("fabricd.yaml");
            Path file = Files.writeString(tmp.resolve("fabricd.yaml"), cfg);
            // `metrics` loads and validates the whole file (probe and kubernetes sections included), then reads the demo
            Process p = new ProcessBuilder(Paths.repo().resolve("bin/fabricd").toString(), "metrics", "--demo", "--config",
                    file.toString()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(cfg + "\n" + out).isZero();
            assertThat(out).contains("fabric_port_up{");
        }
    }
}
