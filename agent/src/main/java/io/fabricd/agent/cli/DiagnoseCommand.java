package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.collectors.model.HostModel;
import io.fabricd.diagnosis.Diagnosis;
import io.fabricd.diagnosis.Report;
import io.fabricd.diagnosis.Severity;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code fabricd diagnose}: one collection, every check, a report; exit 1 on findings at or above --fail-on. */
@Command(name = "diagnose", mixinStandardHelpOptions = true,
        description = "Collect the host once, run the checks, print the findings (docs/checks.md). "
                + "Exit 1 when a finding at or above --fail-on exists: usable as a node preflight.")
public final class DiagnoseCommand implements Callable<Integer> {
    enum Format { text, json }

    enum FailOn { critical, warning, never }

    @Mixin
    HostOptions host;

    @Option(names = "--format", defaultValue = "text", description = "text or json (default: ${DEFAULT-VALUE}).")
    Format format;

    @Option(names = "--fail-on", defaultValue = "critical",
            description = "critical, warning or never (default: ${DEFAULT-VALUE}).")
    FailOn failOn;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        AgentConfig cfg = host.config();
        HostModel m = host.collectOnce(cfg);
        Report r = Diagnosis.run(m, null);
        var out = spec.commandLine().getOut();
        out.print(format == Format.json ? r.toJson() : r.toText(System.console() != null));
        out.flush();
        boolean fail = switch (failOn) {
            case critical -> r.hasAtLeast(Severity.CRITICAL);
            case warning -> r.hasAtLeast(Severity.WARNING);
            case never -> false;
        };
        return fail ? 1 : 0;
    }
}
