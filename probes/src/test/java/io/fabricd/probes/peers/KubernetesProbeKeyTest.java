package io.fabricd.probes.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabricd.probes.ProbeKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The probe key Secret the agents fill themselves, against fabric8's API server emulation (CRUD mode). */
class KubernetesProbeKeyTest {
    static final String NS = "fabric";
    static final String NAME = "fabricd-probe-key";

    KubernetesMockServer server;
    NamespacedKubernetesClient client;

    @BeforeEach
    void start() {
        server = KubernetesPeersTest.crudServer();
        client = server.createClient();
    }

    @AfterEach
    void stop() {
        client.close();
        KubernetesPeersTest.destroy(server);
    }

    static byte[] tag(ProbeKey k) {
        byte[] data = "same bytes".getBytes(StandardCharsets.US_ASCII);
        return k.tag(data, 0, data.length);
    }

    /** The chart's Secret: no data, Opaque, its annotation (deploy/helm/fabricd/templates/secret.yaml). */
    void placeholder() {
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName(NAME)
                .withAnnotations(Map.of(KubernetesProbeKey.CHART_ANNOTATION, "written by the first fabricd agent that starts")).endMetadata()
                .withType("Opaque").build()).create();
    }

    @Test
    void theFirstAgentFillsTheChartsSecretAndEveryLaterOneReadsTheSameKey() {
        placeholder();
        ProbeKey first = KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(5));
        var secret = client.secrets().inNamespace(NS).withName(NAME).get();
        assertThat(secret).isNotNull();
        String key = new String(Base64.getDecoder().decode(secret.getData().get("key")), StandardCharsets.US_ASCII);
        assertThat(key).matches("[0-9a-f]{64}");
        ProbeKey second = KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(5));
        assertThat(tag(second)).isEqualTo(tag(first)).isEqualTo(tag(new ProbeKey(key.getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void theFirstWriteMakesTheSecretImmutableSoNoLaterAgentCanChangeTheKey() {
        placeholder();
        ProbeKey first = KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(5));
        var filled = client.secrets().inNamespace(NS).withName(NAME).get();
        // the API server refuses any change of an immutable Secret's data: the agents' update fills it once
        assertThat(filled.getImmutable()).isTrue();
        ProbeKey later = KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(5));
        var after = client.secrets().inNamespace(NS).withName(NAME).get();
        assertThat(after.getMetadata().getResourceVersion()).as("a later agent only reads").isEqualTo(filled.getMetadata().getResourceVersion());
        assertThat(tag(later)).isEqualTo(tag(first));
    }

    @Test
    void aChartSecretFilledByAnEarlierReleaseIsMadeImmutableWithItsKey() {
        String key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName(NAME)
                .withAnnotations(Map.of(KubernetesProbeKey.CHART_ANNOTATION, "written by the first fabricd agent that starts")).endMetadata()
                .withType("Opaque").withData(Map.of("key", Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.US_ASCII))))
                .build()).create();
        ProbeKey k = KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(5));
        var secret = client.secrets().inNamespace(NS).withName(NAME).get();
        assertThat(secret.getImmutable()).isTrue();
        assertThat(new String(Base64.getDecoder().decode(secret.getData().get("key")), StandardCharsets.US_ASCII)).isEqualTo(key);
        assertThat(tag(k)).isEqualTo(tag(new ProbeKey(key.getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void anExistingSecretIsUsedAsItIs() {
        String key = "an operator's own key, long enough";
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName(NAME).endMetadata()
                .withData(Map.of("key", Base64.getEncoder().encodeToString(key.getBytes(StandardCharsets.UTF_8)))).build()).create();
        ProbeKey k = KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(5));
        assertThat(tag(k)).isEqualTo(tag(new ProbeKey(key.getBytes(StandardCharsets.UTF_8))));
        // an operator's own Secret (not the chart's) is left as it is, mutable
        assertThat(client.secrets().inNamespace(NS).withName(NAME).get().getImmutable()).isNotEqualTo(Boolean.TRUE);
    }

    @Test
    void agentsStartingTogetherAgreeOnOneKey() throws Exception {
        placeholder();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<ProbeKey>> all = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                Callable<ProbeKey> c = () -> KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(10));
                all.add(pool.submit(c));
            }
            byte[] expected = tag(all.get(0).get());
            for (Future<ProbeKey> f : all) {
                assertThat(tag(f.get())).isEqualTo(expected);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void noSecretIsNeverMadeAndAnotherTypeIsRefused() {
        // the agents cannot create Secrets (RBAC: get and update on one name): a missing one is said
        assertThatThrownBy(() -> KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("does not exist").hasMessageContaining("helm upgrade");
        assertThat(client.secrets().inNamespace(NS).withName(NAME).get()).isNull();
        // a service-account token planted under the name is not a key store
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName(NAME)
                .withAnnotations(Map.of("kubernetes.io/service-account.name", "prometheus-operator")).endMetadata()
                .withType("kubernetes.io/service-account-token").withData(Map.of("key", "eA==")).build()).create();
        assertThatThrownBy(() -> KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("not Opaque");
    }

    @Test
    void aSecretThatAppearsWhileTheAgentWaitsIsFilled() throws Exception {
        // an install creates the Secret and the DaemonSet together: the agent may look first
        Thread later = new Thread(() -> {
            try {
                Thread.sleep(700);
            } catch (InterruptedException e) {
                return;
            }
            placeholder();
        });
        later.start();
        ProbeKey k = KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(10));
        later.join();
        var secret = client.secrets().inNamespace(NS).withName(NAME).get();
        assertThat(tag(k)).isEqualTo(tag(new ProbeKey(Base64.getDecoder().decode(secret.getData().get("key")))));
    }

    @Test
    void aShortKeyIsRefusedInWords() {
        client.secrets().inNamespace(NS).resource(new SecretBuilder().withNewMetadata().withName(NAME).endMetadata()
                .withData(Map.of("key", Base64.getEncoder().encodeToString("short".getBytes(StandardCharsets.UTF_8)))).build()).create();
        assertThatThrownBy(() -> KubernetesProbeKey.obtain(client, NS, NAME, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("at least 16 bytes");
    }

    @Test
    void noNamespaceIsSaidPlainly() {
        assertThatThrownBy(() -> KubernetesProbeKey.obtain(client, null, NAME, Duration.ofSeconds(1)))
                .hasMessageContaining("no namespace");
    }
}
