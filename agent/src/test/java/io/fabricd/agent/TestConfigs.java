package io.fabricd.agent;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ConfigLoader;
import io.fabricd.probes.ProbeConfig;
import io.fabricd.topology.TopologyConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Configurations as users write them: YAML lines read by {@link ConfigLoader}, defaults and checks included. */
final class TestConfigs {
    private TestConfigs() {
    }

    /** {@code c} with another probe section. */
    static AgentConfig withProbe(AgentConfig c, ProbeConfig p) {
        return new AgentConfig(c.listen(), c.collection(), c.stateDir(), c.http(), c.rdma(), c.netdev(), p, c.diagnosis(), c.bandwidth(), c.topology());
    }

    /** {@code c} with another topology section. */
    static AgentConfig withTopology(AgentConfig c, TopologyConfig t) {
        return new AgentConfig(c.listen(), c.collection(), c.stateDir(), c.http(), c.rdma(), c.netdev(), c.probe(), c.diagnosis(),
                c.bandwidth(), t);
    }

    static AgentConfig yaml(String... lines) {
        Path f = null;
        try {
            f = Files.createTempFile("fabricd-config", ".yaml");
            Files.writeString(f, String.join("\n", lines) + "\n");
            return ConfigLoader.load(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            if (f != null) {
                f.toFile().delete();
            }
        }
    }
}
