package io.fabricd.agent.cli;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.collectors.snapshot.SnapshotWriter;
import io.fabricd.collectors.source.HostSource;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code fabricd snapshot --out DIR}: the host (or a snapshot) as a snapshot folder. */
@Command(name = "snapshot", mixinStandardHelpOptions = true,
        description = "Write what fabricd reads of this host (or of --root) as a snapshot folder (docs/fixtures.md).")
public final class SnapshotCommand implements Callable<Integer> {
    @Mixin
    HostOptions host;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "New or empty folder to write.")
    Path out;

    @Override
    public Integer call() throws Exception {
        AgentConfig cfg = host.config();
        HostSource source = host.source(cfg);
        SnapshotWriter.Result r = SnapshotWriter.write(source, cfg.collectorConfig(), out,
                Version.text());
        host.err().printf("fabricd: snapshot of %s (%d RDMA devices, %d netdevs) written to %s: "
                        + "%d files, %d links, %d unreadable paths%n", r.model().hostname(), r.model().devices().size(),
                r.model().netdevs().size(), out, r.files(), r.links(), r.unreadable());
        return 0;
    }
}
