package io.fabricd.agent;

import io.fabricd.agent.config.AgentConfig;
import io.fabricd.agent.config.ListenAddress;
import io.fabricd.agent.state.NodeNameLock;
import io.fabricd.collectors.files.FolderChain;
import java.io.IOException;
import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * The name peers know an agent by, and its claim on this host. Peers answering with an agent's own
 * name are taken for itself and not probed, and bandwidth results are kept by node name: two agents
 * on one host under one name confuse both, so the second to start says so ({@link NodeNameLock}).
 */
final class NodeName {
    private static final Logger LOG = Logger.getLogger(Agent.class.getName());

    private NodeName() {
    }

    /** probe.node_name (or NODE_NAME), else the host's name. */
    static String of(AgentConfig config, String hostname) {
        return config.nodeName(hostname);
    }

    /**
     * Takes {@code name}'s lock in {@code dir} for the agent serving HTTP on {@code http} with its
     * state in {@code stateDir} (null: none); the lock, to hold while the agent runs, or null (with a
     * warning that says what to do) when another agent holds it. A folder that cannot be used only
     * skips the check.
     */
    static NodeNameLock claim(Path dir, String name, ListenAddress http, String stateDir) {
        String self = "pid " + ProcessHandle.current().pid() + ", HTTP " + http + (stateDir == null ? "" : ", state folder " + stateDir);
        try {
            NodeNameLock l = NodeNameLock.take(dir, name, self);
            if (l.heldByAnother() == null) {
                return l;
            }
            LOG.warning("another fabricd agent on this host (" + l.heldByAnother() + ") already runs as node '" + name + "': their "
                    + "peers would take the two for one agent (an agent skips a peer of its own name, and bandwidth results are kept "
                    + "by node name). Give this agent a name of its own with probe.node_name in its config (or the environment "
                    + "variable NODE_NAME), and a state folder of its own with --state-dir (or state_dir)");
        } catch (FolderChain.Refused e) {
            LOG.warning("node name lock in " + dir + " not taken, so a second agent under this node name goes unnoticed: "
                    + e.getMessage());
        } catch (IOException | RuntimeException e) {
            LOG.fine("node name lock in " + dir + " not taken: " + e.getMessage());
        }
        return null;
    }
}
