package io.fabricd.agent;

import io.fabricd.agent.cli.HostOptions;
import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.state.NodeNameLock;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code fabricd run}: the daemon; beside {@link Agent}, which it starts, so that the commands need nothing of this package. */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Collect the host on an interval, diagnose it, answer and send probes (with a probe key), and serve "
                + "/metrics, /healthz, /readyz, /api/v1/findings, /api/v1/snapshot, /api/v1/probe/endpoint.")
public final class RunCommand implements Callable<Integer> {
    @Mixin
    HostOptions host;

    @Option(names = "--listen", paramLabel = "HOST:PORT",
            description = "HTTP listen address (default: the config's listen, 0.0.0.0:9530).")
    String listen;

    @Option(names = "--web.config.file", paramLabel = "FILE",
            description = "TLS and basic auth, in the Prometheus exporters' web config format (docs/security.md); "
                    + "overrides http.web_config_file.")
    String webConfigFile;

    @Override
    public Integer call() throws Exception {
        AgentConfig file = host.config();
        AgentConfig withWeb = webConfigFile == null ? file : file.withHttp(file.http().withWebConfigFile(webConfigFile));
        Path state = host.stateDir(withWeb);
        AgentConfig cfg = withWeb.withStateDir(state == null ? null : state.toString());
        ListenAddress addr = ListenAddress.parse(listen != null ? listen : cfg.listen());
        Agent agent = new Agent(host.source(cfg), cfg, addr).nodeLocks(NodeNameLock.defaultDir()).start();
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            agent.close();
            stop.countDown();
        }, "fabricd-shutdown"));
        stop.await();
        return 0;
    }
}
