package io.fabricd.probes;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Map;

/**
 * The fabric's probe key kept in a Kubernetes Secret that the agents make themselves: each agent
 * reads the Secret and, when it does not exist yet, creates it with a new random key; when two
 * agents create it at once the API server accepts one (409 Conflict for the others, which then read
 * it). So every agent of the DaemonSet shares one key, no rendering of the chart ever holds a key
 * (a `helm template` of Argo CD or Flux renders the same objects every time), and the key outlives
 * upgrades and reinstalls. Needs RBAC: get on that Secret, create on secrets in the namespace.
 */
public final class KubernetesProbeKey {
    /** The Secret's data key holding the probe key. */
    public static final String DATA_KEY = "key";
    private static final SecureRandom RANDOM = new SecureRandom();

    private KubernetesProbeKey() {
    }

    /**
     * Reads or makes the Secret {@code config.keySecret} with the pod's service account (or the
     * kubeconfig outside a cluster, or {@code api_server}). Tries for up to {@code patience}, as the
     * API server may be starting with the node; throws IllegalStateException with the reason in
     * words when it cannot.
     */
    public static ProbeKey obtain(ProbeConfig.Kubernetes config, Duration patience) {
        ConfigBuilder b = new ConfigBuilder(Config.autoConfigure(null)).withRequestRetryBackoffLimit(1)
                .withConnectionTimeout(5_000).withRequestTimeout(10_000);
        if (config.apiServer != null) {
            b.withMasterUrl(config.apiServer);
        }
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(b.build()).build()) {
            String ns = config.namespace != null ? config.namespace
                    : System.getenv("POD_NAMESPACE") != null ? System.getenv("POD_NAMESPACE") : client.getNamespace();
            return obtain(client, ns, config.keySecret, patience);
        }
    }

    static ProbeKey obtain(KubernetesClient client, String namespace, String name, Duration patience) {
        if (namespace == null) {
            throw new IllegalStateException("probe.kubernetes.key_secret: no namespace (set probe.kubernetes.namespace or POD_NAMESPACE)");
        }
        long deadline = System.nanoTime() + patience.toNanos();
        String where = "probe key Secret " + namespace + "/" + name;
        for (int attempt = 1; ; attempt++) {
            try {
                return fromSecret(readOrCreate(client, namespace, name), where);
            } catch (KubernetesClientException e) {
                String reason = KubernetesPeers.reason(e);
                if (e.getCode() == 403 || System.nanoTime() > deadline) {
                    throw new IllegalStateException("cannot read or create the " + where + ": " + reason
                            + (e.getCode() == 403 ? " (the service account needs get and create on that Secret: the chart's Role grants them)" : ""));
                }
                sleep(Math.min(5_000, 500L * attempt));
            }
        }
    }

    private static Secret readOrCreate(KubernetesClient client, String namespace, String name) {
        Secret s = client.secrets().inNamespace(namespace).withName(name).get();
        if (s != null) {
            return s;
        }
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        Secret fresh = new SecretBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                .withLabels(Map.of("app.kubernetes.io/name", "fabricd", "app.kubernetes.io/component", "probe-key"))
                .withAnnotations(Map.of("fabricd.io/made-by", "the first fabricd agent that found it missing; delete it to rotate the key (then restart the DaemonSet)"))
                .endMetadata().withType("Opaque")
                .withData(Map.of(DATA_KEY, Base64.getEncoder().encodeToString(HexFormat.of().formatHex(key).getBytes(StandardCharsets.US_ASCII))))
                .build();
        try {
            return client.secrets().inNamespace(namespace).resource(fresh).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // another agent made it first: its key is the fabric's
            Secret won = client.secrets().inNamespace(namespace).withName(name).get();
            if (won == null) {
                throw e;
            }
            return won;
        }
    }

    private static ProbeKey fromSecret(Secret s, String where) {
        String b64 = s.getData() == null ? null : s.getData().get(DATA_KEY);
        String text = b64 != null ? new String(Base64.getMimeDecoder().decode(b64), StandardCharsets.UTF_8)
                : s.getStringData() == null ? null : s.getStringData().get(DATA_KEY);
        if (text == null || text.isBlank()) {
            throw new IllegalStateException("the " + where + " has no '" + DATA_KEY + "' entry: delete it (an agent makes a new one) or put the key there");
        }
        try {
            return new ProbeKey(text.strip().getBytes(StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the " + where + ": " + e.getMessage());
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the API server");
        }
    }
}
