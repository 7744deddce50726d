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
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code fabricd metrics}: one collection, Prometheus text to stdout. */
@Command(name = "metrics", mixinStandardHelpOptions = true,
        description = "Collect the host once and print its metrics in Prometheus text format.")
public final class MetricsCommand implements Callable<Integer> {
    @Mixin
    HostOptions host;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        AgentConfig cfg = host.config();
        HostModel m = host.collectOnce(cfg, spec.commandLine().getErr());
        Inventory judged = host.storedInventory(cfg, m, spec.commandLine().getErr());
        Report r = Diagnosis.run(m, null, judged, cfg.diagnosis());
        byte[] body = FabricMetrics.text(m, cfg.netdev().allStats(), r.findings(), r.notJudged(), judged);
        spec.commandLine().getOut().print(new String(body, StandardCharsets.UTF_8));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
