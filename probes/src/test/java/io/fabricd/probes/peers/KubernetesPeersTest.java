package io.fabricd.probes.peers;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabricd.probes.ProbeConfig;
import java.net.ConnectException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Kubernetes discovery against fabric8's API server emulation in CRUD mode (list, watch, create,
 * update, delete kept in memory): no real API server can run in CI (Debian packages none).
 */
class KubernetesPeersTest {
    static final String NS = "fabric";

    KubernetesMockServer server;
    NamespacedKubernetesClient client;
    final List<String> problems = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        server = crudServer();
        client = server.createClient();
    }

    /** fabric8's API server emulation in CRUD mode, started. */
    static KubernetesMockServer crudServer() {
        KubernetesMockServer s = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        s.init();
        return s;
    }

    @AfterEach
    void stop() {
        client.close();
        destroy(server);
    }

    /**
     * Stops the emulated API server. Its shutdown waits 10 s for open watch connections and then
     * throws; that is the emulator's teardown, not something under test, so it is not a failure.
     */
    static void destroy(KubernetesMockServer server) {
        try {
            server.destroy();
        } catch (IllegalStateException e) {
            System.err.println("KubernetesMockServer teardown: " + e.getMessage());
        }
    }

    static ProbeConfig.Kubernetes config() {
        return config(ProbeConfig.Kubernetes.defaults().rackLabels(), null);
    }

    /** The Service "fabricd" in {@link #NS}, with these rack labels and API server (null: the default). */
    static ProbeConfig.Kubernetes config(List<String> rackLabels, String apiServer) {
        ProbeConfig.Kubernetes d = ProbeConfig.Kubernetes.defaults();
        return new ProbeConfig.Kubernetes("fabricd", NS, d.portName(), rackLabels, d.nodeRefresh(), null, apiServer);
    }

    /** A slice of the Service with endpoints "address@node" (a trailing '!' marks it not ready) on the named ports. */
    static EndpointSlice slice(String name, String service, Map<String, Integer> ports, String... endpoints) {
        EndpointSliceBuilder b = new EndpointSliceBuilder().withNewMetadata().withName(name).withNamespace(NS)
                .addToLabels(KubernetesPeers.SERVICE_LABEL, service).endMetadata().withAddressType("IPv4");
        ports.forEach((n, p) -> b.addNewPort().withName(n).withPort(p).withProtocol("TCP").endPort());
        for (String e : endpoints) {
            boolean ready = !e.endsWith("!");
            String[] an = e.replace("!", "").split("@");
            b.addNewEndpoint().withAddresses(an[0]).withNodeName(an[1]).withNewConditions().withReady(ready).endConditions().endEndpoint();
        }
        return b.build();
    }

    static <T> T await(Supplier<T> value, Predicate<T> done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        T v = value.get();
        while (!done.test(v) && System.nanoTime() < deadline) {
            Thread.sleep(50);
            v = value.get();
        }
        return v;
    }

    @Test
    void readyEndpointsOfTheServiceExceptThisNodeFollowTheWatch() throws Exception {
        client.resource(slice("fabricd-a", "fabricd", Map.of("http", 9530), "10.0.0.1@n1", "10.0.0.2@n2", "10.0.0.3@n3!",
                "10.0.0.9@self")).create();
        client.resource(slice("other-x", "other", Map.of("http", 80), "10.9.9.9@n9")).create();
        try (KubernetesPeers k = new KubernetesPeers(client, false, config(), "self", problems::add).start()) {
            assertThat(await(k::synced, s -> s)).isTrue();
            assertThat(k.peers()).containsExactly("10.0.0.1:9530", "10.0.0.2:9530");

            // a second slice of the Service, with two ports: the one named http counts
            client.resource(slice("fabricd-b", "fabricd", Map.of("metrics", 1, "http", 9531), "10.0.1.1@n4")).create();
            assertThat(await(k::peers, p -> p.size() == 3)).containsExactly("10.0.0.1:9530", "10.0.0.2:9530", "10.0.1.1:9531");

            // n3 became ready, n1 left
            client.resource(slice("fabricd-a", "fabricd", Map.of("http", 9530), "10.0.0.2@n2", "10.0.0.3@n3")).update();
            assertThat(await(k::peers, p -> p.contains("10.0.0.3:9530"))).containsExactly("10.0.0.2:9530", "10.0.0.3:9530",
                    "10.0.1.1:9531");

            client.resource(slice("fabricd-b", "fabricd", Map.of(), "x@y")).delete();
            assertThat(await(k::peers, p -> p.size() == 2)).containsExactly("10.0.0.2:9530", "10.0.0.3:9530");
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void aSliceWithoutTheNamedPortAndMoreThanOneIsSkippedAndIpv6IsBracketed() throws Exception {
        client.resource(slice("fabricd-a", "fabricd", Map.of("a", 1, "b", 2), "10.0.0.1@n1")).create();
        EndpointSlice v6 = slice("fabricd-6", "fabricd", Map.of("web", 9530), "fd00::1@n2");
        v6.setAddressType("IPv6");
        client.resource(v6).create();
        try (KubernetesPeers k = new KubernetesPeers(client, false, config(), "self", problems::add).start()) {
            assertThat(await(k::synced, s -> s)).isTrue();
            assertThat(await(k::peers, p -> !p.isEmpty())).containsExactly("[fd00::1]:9530");
        }
    }

    @Test
    void theRackIsTheFirstConfiguredLabelOfThisNode() {
        client.resource(new NodeBuilder().withNewMetadata().withName("self").addToLabels("tor", "tor-7")
                .addToLabels("fabricd.io/rack", "r12").endMetadata().build()).create();
        client.resource(new NodeBuilder().withNewMetadata().withName("bare").endMetadata().build()).create();
        try (KubernetesPeers k = new KubernetesPeers(client, false, config(), "self", problems::add).start()) {
            assertThat(k.rack()).isNull(); // not read yet: rack() never blocks
            k.refreshRack();
            assertThat(k.rack()).isEqualTo("r12");
        }
        ProbeConfig.Kubernetes torFirst = config(List.of("tor", "fabricd.io/rack"), null);
        try (KubernetesPeers k = new KubernetesPeers(client, false, torFirst, "self", problems::add).start()) {
            k.refreshRack();
            assertThat(k.rack()).isEqualTo("tor-7");
        }
        try (KubernetesPeers k = new KubernetesPeers(client, false, config(), "bare", problems::add).start()) {
            k.refreshRack();
            assertThat(k.rack()).isNull();
        }
        assertThat(problems).isEmpty();
        try (KubernetesPeers k = new KubernetesPeers(client, false, config(), "gone", problems::add).start()) {
            k.refreshRack();
            assertThat(k.rack()).isNull();
        }
        assertThat(problems).containsExactly("probe.kubernetes: node gone not found");
    }

    @Test
    void anUnreachableApiServerIsAProblemNotAnException() throws Exception {
        ProbeConfig.Kubernetes c = config(ProbeConfig.Kubernetes.defaults().rackLabels(), "http://127.0.0.1:1");
        try (KubernetesPeers k = KubernetesPeers.connect(c, "self", problems::add)) {
            assertThat(await(() -> problems.size(), n -> n >= 1)).isGreaterThanOrEqualTo(1);
            assertThat(k.peers()).isEmpty();
            assertThat(k.synced()).isFalse();
            k.refreshRack();
            assertThat(k.rack()).isNull();
        }
        assertThat(problems).allMatch(p -> p.startsWith("probe.kubernetes: "));
        assertThat(problems).anyMatch(p -> p.contains("endpointslices of fabric/fabricd"));
        assertThat(problems).anyMatch(p -> p.contains("cannot read node self: Connection refused"));
    }

    @Test
    void aRefusalNamesTheHttpStatusAndOtherwiseTheInnermostCause() {
        // what the client throws when the RBAC lacks "get nodes", wrapped as the informer wraps it
        var forbidden = new KubernetesClientException(new StatusBuilder()
                .withCode(403).withMessage("nodes \"self\" is forbidden").build());
        assertThat(KubernetesPeers.reason(new CompletionException(forbidden)))
                .isEqualTo("HTTP 403 nodes \"self\" is forbidden");
        assertThat(KubernetesPeers.reason(new RuntimeException("wrapper", new ConnectException("Connection refused"))))
                .isEqualTo("Connection refused");
        assertThat(KubernetesPeers.reason(new IllegalStateException())).isEqualTo("IllegalStateException");
    }
}
