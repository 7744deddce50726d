package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.collectors.HostCollection;
import io.fabricd.collectors.model.HostModel;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.exporters.Exposition;
import io.fabricd.exporters.FabricMetrics;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Spec;

/** {@code fabricd metrics}: one collection, Prometheus text to stdout. */
@Command(name = "metrics", mixinStandardHelpOptions = true,
        description = "Collect the host once and print its metrics in Prometheus text format.")
public final class MetricsCommand implements Callable<Integer> {
    @Mixin
    HostOptions host;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        AgentConfig cfg = host.config();
        HostSource source = host.source(cfg);
        HostModel m = HostCollection.standard(cfg.collectorConfig()).collect(source);
        if (source instanceof AutoCloseable c) {
            try {
                c.close();
            } catch (Exception e) {
                // nothing to do
            }
        }
        byte[] body = Exposition.render(FabricMetrics.build(m, cfg.netdev.allStats), null).body();
        spec.commandLine().getOut().print(new String(body, StandardCharsets.UTF_8));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
