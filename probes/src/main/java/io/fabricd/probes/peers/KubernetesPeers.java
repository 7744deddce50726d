package io.fabricd.probes.peers;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabricd.probes.ProbeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Peers from the Kubernetes API: the ready endpoints of the EndpointSlices of the DaemonSet's
 * (headless) Service, kept current by an informer (one list, then a watch), and this node's rack
 * from its labels. Needs RBAC to list/watch endpointslices in the namespace and to get its node.
 *
 * <p>An API server that cannot be reached or refuses is a status, never an exception: the informer
 * retries with backoff, the rack stays unknown, and the static and DNS peers still work.
 */
public final class KubernetesPeers implements AutoCloseable {
    /** The label Kubernetes puts on every EndpointSlice of a Service. */
    static final String SERVICE_LABEL = "kubernetes.io/service-name";

    private final KubernetesClient client;
    private final boolean ownsClient;
    private final ProbeConfig.Kubernetes config;
    private final String namespace;
    private final String nodeName;
    private final Consumer<String> problems;
    private SharedIndexInformer<EndpointSlice> informer;
    private volatile String rack;
    private volatile Map<String, String> labels = Map.of();
    private volatile long rackReadNanos;
    private volatile boolean rackRead;

    KubernetesPeers(KubernetesClient client, boolean ownsClient, ProbeConfig.Kubernetes config, String nodeName,
                    Consumer<String> problems) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.config = config;
        this.namespace = namespace(config, client);
        this.nodeName = nodeName;
        this.problems = problems;
    }

    /**
     * Connects with the pod's service account (in-cluster config, or the kubeconfig outside a
     * cluster), or to {@code api_server} when set, and starts watching the Service's slices.
     */
    public static KubernetesPeers connect(ProbeConfig.Kubernetes config, String nodeName, Consumer<String> problems) {
        return new KubernetesPeers(client(config), true, config, nodeName, problems).start();
    }

    /**
     * A client with the pod's service account (in-cluster config, or the kubeconfig outside a
     * cluster), or of {@code api_server} when set. Few retries and short timeouts: a down API server
     * must not hold a probe round for long (fabric8's default retries 10 times with exponential
     * backoff, ~40 s for one node read).
     */
    static KubernetesClient client(ProbeConfig.Kubernetes config) {
        ConfigBuilder b = new ConfigBuilder(Config.autoConfigure(null)).withRequestRetryBackoffLimit(1)
                .withConnectionTimeout(5_000).withRequestTimeout(10_000);
        if (config.apiServer() != null) {
            b.withMasterUrl(config.apiServer());
        }
        return new KubernetesClientBuilder().withConfig(b.build()).build();
    }

    /** probe.kubernetes.namespace, else POD_NAMESPACE, else the client's (the service account's); null when none. */
    static String namespace(ProbeConfig.Kubernetes config, KubernetesClient client) {
        String pod = System.getenv("POD_NAMESPACE");
        return config.namespace() != null ? config.namespace() : pod != null ? pod : client.getNamespace();
    }

    /** Starts the informer; returns at once (the first list arrives in the background). */
    KubernetesPeers start() {
        if (namespace == null) {
            problems.accept("probe.kubernetes: no namespace (set probe.kubernetes.namespace or POD_NAMESPACE)");
            return this;
        }
        informer = client.discovery().v1().endpointSlices().inNamespace(namespace).withLabel(SERVICE_LABEL, config.service())
                .runnableInformer(0);
        informer.exceptionHandler((started, t) -> {
            problems.accept("probe.kubernetes: endpointslices of " + namespace + "/" + config.service() + ": " + reason(t));
            return true; // retry with backoff, before and after the first list
        });
        informer.start();
        return this;
    }

    /** Whether the first list of the slices has arrived. */
    public boolean synced() {
        return informer != null && informer.hasSynced();
    }

    /**
     * HOST:PORT of every ready endpoint of the Service except this node's, sorted, without
     * duplicates. The port is the slice's port named {@code port_name}, else its only port.
     */
    public List<String> peers() {
        if (informer == null) {
            return List.of();
        }
        Set<String> out = new TreeSet<>();
        for (EndpointSlice s : informer.getStore().list()) {
            Integer port = port(s);
            if (port == null) {
                continue;
            }
            for (Endpoint e : s.getEndpoints() == null ? List.<Endpoint>of() : s.getEndpoints()) {
                boolean ready = e.getConditions() == null || e.getConditions().getReady() == null
                        || e.getConditions().getReady();
                if (!ready || e.getAddresses() == null || (nodeName != null && nodeName.equals(e.getNodeName()))) {
                    continue;
                }
                for (String a : e.getAddresses()) {
                    out.add((a.contains(":") ? "[" + a + "]" : a) + ":" + port);
                }
            }
        }
        return new ArrayList<>(out);
    }

    private Integer port(EndpointSlice s) {
        List<EndpointPort> ports = s.getPorts() == null ? List.of() : s.getPorts();
        for (EndpointPort p : ports) {
            if (config.portName().equals(p.getName()) && p.getPort() != null) {
                return p.getPort();
            }
        }
        return ports.size() == 1 ? ports.get(0).getPort() : null;
    }

    /** This node's rack as last read by {@link #refreshRack()}; null when unknown. Never blocks. */
    public String rack() {
        return rack;
    }

    /** This node's labels as last read by {@link #refreshRack()} (its topology: docs/topology.md); empty when unknown. Never blocks. */
    public Map<String, String> labels() {
        return labels;
    }

    /**
     * Reads this node's rack again if the last read is older than {@code node_refresh}: the first
     * of {@code rack_labels} set on the Node. Blocks on the API server; call it off the event loop.
     */
    public void refreshRack() {
        long now = System.nanoTime();
        if (nodeName == null || (rackRead && now - rackReadNanos < config.nodeRefresh().toNanos())) {
            return;
        }
        rackRead = true;
        rackReadNanos = now;
        try {
            Node node = client.nodes().withName(nodeName).get();
            Map<String, String> labels = node == null || node.getMetadata().getLabels() == null ? Map.of()
                    : Map.copyOf(node.getMetadata().getLabels());
            this.labels = labels;
            rack = config.rackLabels().stream().map(labels::get).filter(v -> v != null && !v.isBlank()).findFirst().orElse(null);
            if (node == null) {
                problems.accept("probe.kubernetes: node " + nodeName + " not found");
            }
        } catch (RuntimeException e) {
            problems.accept("probe.kubernetes: cannot read node " + nodeName + ": " + reason(e));
        }
    }

    /** The innermost cause's message ("Connection refused: /10.0.0.1:443", "Forbidden ..."), not the wrappers'. */
    static String reason(Throwable t) {
        for (Throwable r = t; r != null; r = r.getCause() == r ? null : r.getCause()) {
            if (r instanceof KubernetesClientException k && k.getCode() > 0) {
                String m = k.getStatus() != null && k.getStatus().getMessage() != null ? k.getStatus().getMessage() : k.getMessage();
                return "HTTP " + k.getCode() + " " + m; // 403: the RBAC of deploy/helm is missing
            }
            if (r.getCause() == null) {
                return r.getMessage() != null ? r.getMessage() : r.getClass().getSimpleName();
            }
        }
        return String.valueOf(t);
    }

    @Override
    public void close() {
        if (informer != null) {
            informer.close();
        }
        if (ownsClient) {
            client.close();
        }
    }
}
