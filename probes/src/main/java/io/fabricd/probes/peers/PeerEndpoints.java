package io.fabricd.probes.peers;

import io.fabricd.probes.ProbeConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.logging.Logger;

/**
 * Who the peers are and what they answer: the listed peers (static, every address of the DNS names,
 * the Kubernetes Service's ready endpoints) and each one's endpoint, fetched over the authenticated
 * endpoint API and kept for {@code probe.endpoint_refresh}. A peer that stops answering is dropped
 * until it answers again, which is logged; a listed peer that is this agent is left out, said once.
 * Used by the rounds' one thread.
 */
public final class PeerEndpoints {
    private static final Logger LOG = Logger.getLogger(PeerEndpoints.class.getName());

    private final ProbeConfig config;
    private final EndpointClient client;
    private final KubernetesPeers kube;
    private final Supplier<String> hostname;
    private final Consumer<String> problems;
    private final Map<String, Cached> cache = new HashMap<>();
    private final Set<String> unreachable = new HashSet<>();
    private final Set<String> saidSelf = new HashSet<>();

    private record Cached(Endpoint endpoint, long fetchedNanos) {
    }

    public PeerEndpoints(ProbeConfig config, EndpointClient client, KubernetesPeers kube, Supplier<String> hostname,
                  Consumer<String> problems) {
        this.config = config;
        this.client = client;
        this.kube = kube;
        this.hostname = hostname;
        this.problems = problems;
    }

    /** The listed peers in order, without duplicates. */
    public List<String> listed() {
        Set<String> out = new LinkedHashSet<>(config.peers());
        if (kube != null) {
            out.addAll(kube.peers());
        }
        for (String d : config.dns()) {
            int c = d.lastIndexOf(':');
            String name = d.substring(0, c);
            String port = d.substring(c + 1);
            try {
                for (InetAddress a : InetAddress.getAllByName(name)) {
                    String h = a.getHostAddress();
                    out.add((h.contains(":") ? "[" + h + "]" : h) + ":" + port);
                }
            } catch (UnknownHostException e) {
                problems.accept("probe.dns: cannot resolve " + name);
            }
        }
        return new ArrayList<>(out);
    }

    /**
     * The endpoints of these peers that answer, are not this agent and have a UDP responder, by peer;
     * forgets the cached endpoints of peers no longer listed.
     */
    public Map<String, Endpoint> probeable(List<String> listed) {
        cache.keySet().retainAll(listed);
        unreachable.retainAll(listed);
        Map<String, Endpoint> out = new TreeMap<>();
        for (String peer : listed) {
            Endpoint ep = endpoint(peer);
            if (ep != null && !ep.host().equals(hostname.get()) && ep.udpPort() != null) {
                out.put(peer, ep);
            }
        }
        return out;
    }

    private Endpoint endpoint(String peer) {
        Cached c = cache.get(peer);
        long now = System.nanoTime();
        if (c != null && now - c.fetchedNanos() < config.endpointRefresh().toNanos()) {
            return c.endpoint();
        }
        try {
            Endpoint ep = client.fetch(peer);
            cache.put(peer, new Cached(ep, now));
            if (unreachable.remove(peer)) {
                LOG.info("probe: " + peer + " (" + ep.host() + ") answers again");
            } else if (ep.host().equals(hostname.get()) && saidSelf.add(peer)) {
                LOG.info("probe: " + peer + " is this agent (" + hostname.get() + "): not probed");
            }
            return ep;
        } catch (IOException e) {
            problems.accept(e.getMessage());
            unreachable.add(peer);
            cache.remove(peer);
            return null;
        }
    }

    /** Where the peers come from, for the start-up log line. */
    public String sources() {
        List<String> from = new ArrayList<>();
        if (!config.peers().isEmpty()) {
            from.add(config.peers().size() + " in probe.peers");
        }
        if (!config.dns().isEmpty()) {
            from.add("DNS " + String.join(", ", config.dns()));
        }
        if (kube != null) {
            from.add("the Kubernetes Service " + config.kubernetes().service());
        }
        return String.join(", ", from);
    }
}
