package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.collectors.run.HostCollection;
import io.fabricd.collectors.source.HostSource;
import io.fabricd.collectors.source.SnapshotHostSource;
import io.fabricd.collectors.source.SnapshotManifest;
import io.fabricd.diagnosis.run.Diagnosis;
import io.fabricd.diagnosis.run.Report;
import io.fabricd.model.HostModel;
import io.fabricd.model.finding.Severity;
import io.fabricd.model.probe.ProbeResults;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

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

    @Option(names = {"-v", "--verbose"},
            description = "Text: every finding with its evidence and fix, info too (by default info findings are counted in one line). "
                    + "JSON always has every finding.")
    boolean verbose;

    @Option(names = "--previous", paramLabel = "DIR",
            description = "An earlier `fabricd snapshot` of this host: the rate checks (errors rising, pause storm, QPs in ERR) "
                    + "compare it with this collection.")
    Path previous;

    @Override
    public Integer call() {
        AgentConfig cfg = host.config();
        HostModel m = host.collectOnce(cfg, host.err());
        HostModel before = null;
        if (previous != null) {
            if (host.snapshotRoot() != null) {
                m = m.withCollectedAt(capturedAt(SnapshotHostSource.open(host.snapshotRoot()), "--root " + host.snapshotRoot()));
            }
            before = previous(cfg, m);
            if (!before.collectedAt().isBefore(m.collectedAt())) {
                throw new IllegalArgumentException("--previous " + previous + " was captured at " + before.collectedAt()
                        + ", not before this collection (" + m.collectedAt() + ")");
            }
        }
        Report r = Diagnosis.run(m, before, host.storedInventory(cfg, m, host.err()), ProbeResults.NONE,
                host.placement(cfg, m).orElse(null), cfg.diagnosis());
        var out = host.out();
        out.print(format == Format.json ? r.toJson() : r.toText(System.console() != null, verbose));
        out.flush();
        boolean fail = switch (failOn) {
            case critical -> r.hasAtLeast(Severity.CRITICAL);
            case warning -> r.hasAtLeast(Severity.WARNING);
            case never -> false;
        };
        return fail ? 1 : 0;
    }

    /**
     * The --previous snapshot's collection, dated by its captured_at; the current one is re-dated by
     * its own captured_at when it is a snapshot too. Exit 2 when the two cannot be compared.
     */
    private HostModel previous(AgentConfig cfg, HostModel current) {
        if (!Files.isDirectory(previous)) {
            throw new IllegalArgumentException("--previous " + previous + " is not a folder");
        }
        SnapshotHostSource src = SnapshotHostSource.open(previous);
        Instant then = capturedAt(src, "--previous " + previous);
        HostModel before = HostCollection.standard(cfg.collectorConfig()).collect(src).withCollectedAt(then);
        if (!before.hostname().equals(current.hostname())) {
            throw new IllegalArgumentException("--previous " + previous + " is a snapshot of " + before.hostname() + ", not of "
                    + current.hostname());
        }
        return before;
    }

    static Instant capturedAt(HostSource src, String what) {
        String at = src.manifest().map(SnapshotManifest::capturedAt).orElse(null);
        if (at == null) {
            throw new IllegalArgumentException(what + " has no captured_at in fabricd-snapshot.json: rates need the time it was taken");
        }
        try {
            return Instant.parse(at);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException(what + ": captured_at '" + at + "' is not an ISO-8601 instant");
        }
    }
}
