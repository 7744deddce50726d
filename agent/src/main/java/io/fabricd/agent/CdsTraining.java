package io.fabricd.agent;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.demo.DemoHost;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Walks fabricd's start-up once so that a class-data sharing archive can record its classes: the
 * build runs it with {@code -XX:ArchiveClassesAtExit=target/fabricd.jsa} (agent/pom.xml) and
 * {@code bin/fabricd} starts every later JVM with that archive — classes parsed and verified once,
 * start to ready on the demo ~0.6 s sooner (docs/benchmarks.md). Not a user command.
 */
public final class CdsTraining {
    private CdsTraining() {
    }

    public static void main(String[] args) throws Exception {
        Main.configureLogging();
        PrintWriter nowhere = new PrintWriter(OutputStream.nullOutputStream(), true);
        // the CLI: picocli, the config, the demo, every collector, the checks, the text exposition
        Main.execute(new String[] {"metrics", "--demo"}, nowhere, nowhere);
        Main.execute(new String[] {"diagnose", "--demo", "--format", "json"}, nowhere, nowhere);
        // the daemon: Vert.x, the HTTP API, Micrometer, the collection loop
        AgentConfig cfg = AgentConfig.defaults();
        cfg.validate();
        Agent agent = new Agent(DemoHost.open(), cfg, ListenAddress.parse("127.0.0.1:0")).start();
        try {
            agent.loop().awaitFirst(Duration.ofSeconds(30));
            for (String path : new String[] {"/readyz", "/healthz", "/metrics", "/api/v1/findings", "/api/v1/snapshot"}) {
                get(agent.port(), path);
            }
        } finally {
            agent.close();
        }
        System.exit(0);
    }

    private static void get(int port, String path) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            in.readAllBytes();
        }
    }
}
