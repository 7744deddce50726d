package io.fabricd.agent.preflight;

import io.fabricd.preflight.NodeInput;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every node's state (findings and probe windows), asked of all agents at once; a node whose agent
 * could not be asked, refused or answered garbage is a NodeInput of that kind with the reason.
 */
final class NodeStates {
    private final List<NodeSet.Node> nodes;
    private final AgentAsk ask;
    private final FleetCalls calls;
    private final Map<String, FleetCalls.Outcome<StateAnswer>> answers = new LinkedHashMap<>();
    private final List<String> warnings = new ArrayList<>();
    /** Host name (as the agents' probe windows name their peers) to node name, for the hosts only one node answered as. */
    private final Map<String, String> byHost = new HashMap<>();
    private final Map<String, String> byAddress = new HashMap<>();

    NodeStates(List<NodeSet.Node> nodes, AgentAsk ask, FleetCalls calls) {
        this.nodes = nodes;
        this.ask = ask;
        this.calls = calls;
        for (NodeSet.Node n : nodes) {
            byAddress.put(n.address(), n.name());
        }
    }

    void gather(Duration within) {
        List<String> peers = nodes.size() <= GateRun.MAX_STATE_PEERS ? nodes.stream().map(NodeSet.Node::address).toList() : List.of();
        Map<String, Object> body = Map.of("peers", peers);
        Map<String, FleetCalls.Call<StateAnswer>> todo = new LinkedHashMap<>();
        for (NodeSet.Node n : nodes) {
            todo.put(n.name(), () -> {
                byte[] answer = ask.post(n.address(), AgentAsk.STATE, body);
                try {
                    return StateAnswer.parse(answer);
                } catch (IOException x) {
                    throw new IOException(n.address() + " " + x.getMessage());
                }
            });
        }
        if (within.isZero()) {
            for (NodeSet.Node n : nodes) {
                answers.put(n.name(), new FleetCalls.Outcome<>(null, "not asked: no time left (--timeout)"));
            }
        } else {
            answers.putAll(calls.run(todo, within));
        }
        Map<String, List<String>> hosts = new LinkedHashMap<>();
        for (Map.Entry<String, FleetCalls.Outcome<StateAnswer>> e : answers.entrySet()) {
            StateAnswer a = e.getValue().value();
            if (a != null && a.host() != null) {
                hosts.computeIfAbsent(a.host(), h -> new ArrayList<>()).add(e.getKey());
            }
        }
        for (Map.Entry<String, List<String>> h : hosts.entrySet()) {
            if (h.getValue().size() == 1) {
                byHost.put(h.getKey(), h.getValue().get(0));
            } else {
                warnings.add("nodes " + String.join(", ", h.getValue()) + " all answered as host " + h.getKey()
                        + ": one agent under several names? their probe windows are left out");
            }
        }
    }

    /** The nodes whose agents answered, in set order. */
    List<String> reachable() {
        List<String> out = new ArrayList<>();
        answers.forEach((n, o) -> {
            if (o.ok()) {
                out.add(n);
            }
        });
        return out;
    }

    /** The gate's node inputs, in set order. */
    List<NodeInput> inputs() {
        List<NodeInput> out = new ArrayList<>();
        for (NodeSet.Node n : nodes) {
            FleetCalls.Outcome<StateAnswer> o = answers.get(n.name());
            if (o.ok()) {
                out.add(new NodeInput(n.name(), NodeInput.State.REACHABLE, null, o.value().findings()));
            } else {
                out.add(new NodeInput(n.name(), AgentAsk.state(o.error()), o.error(), List.of()));
            }
        }
        return out;
    }

    /** Each agent's probe windows to other nodes of the set, as link evidence. */
    void windowsInto(LinkEvidence links) {
        for (Map.Entry<String, FleetCalls.Outcome<StateAnswer>> e : answers.entrySet()) {
            StateAnswer a = e.getValue().value();
            if (a == null) {
                continue;
            }
            for (StateAnswer.Window w : a.windows()) {
                String peer = byHost.get(w.peer());
                if (peer == null) {
                    peer = byAddress.get(w.peerAddress() != null ? w.peerAddress() : w.peer());
                }
                if (peer != null && !peer.equals(e.getKey())) {
                    links.window(e.getKey(), peer, w);
                }
            }
        }
    }

    String summary() {
        long ok = answers.values().stream().filter(FleetCalls.Outcome::ok).count();
        return "state: " + ok + " of " + nodes.size() + " agents answered" + (ok < nodes.size() ? ", " + (nodes.size() - ok) + " unknown" : "");
    }

    List<String> warnings() {
        return warnings;
    }
}
