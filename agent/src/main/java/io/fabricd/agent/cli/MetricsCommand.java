package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.diagnosis.inventory.Inventory;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.exporters.FabricMetrics;
import io.fabricd.model.HostModel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code fabricd metrics}: one collection, Prometheus text to stdout. */
@Command(name = "metrics", mixinStandardHelpOptions = true,
        description = "Collect the host once and print its metrics in Prometheus text format.")
public final class MetricsCommand implements Callable<Integer> {
    @Mixin
    HostOptions host;

    @Override
    public Integer call() {
        AgentConfig cfg = host.config();
        HostModel m = host.collectOnce(cfg, host.err());
        Inventory judged = host.storedInventory(cfg, m, host.err());
        Report r = Diagnosis.run(m, null, judged, cfg.diagnosis());
        byte[] body = FabricMetrics.text(m, cfg.netdev().allStats(), r.findings(), r.notJudged(), judged);
        host.out().print(new String(body, StandardCharsets.UTF_8));
        host.out().flush();
        return 0;
    }
}
