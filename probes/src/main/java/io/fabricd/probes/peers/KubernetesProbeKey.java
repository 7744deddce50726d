package io.fabricd.probes.peers;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabricd.probes.ProbeConfig;
import io.fabricd.probes.ProbeKey;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.logging.Logger;

/**
 * The fabric's probe key kept in a Kubernetes Secret that the agents fill themselves: the Helm
 * chart renders the Secret without data (the same object on every render, so `helm template` of
 * Argo CD or Flux is stable, and neither Helm's three-way merge nor a GitOps sync touches the data
 * it never rendered); the first agent that finds it empty writes a random key into it with an
 * update that carries the Secret's resourceVersion, so when two agents race the API server keeps
 * one write (409 Conflict for the other, which reads the winner's key). Every agent then shares one
 * key. The same write makes the Secret immutable: the API server then refuses any change of its
 * data, so the update the agents' RBAC grants (get and update on that one Secret, nothing else)
 * fills it once and never again, and an agent of a compromised node cannot replace the fleet's key
 * with one of its own. A chart Secret filled by an earlier release (mutable) is made immutable by
 * the next agent that reads it. The agents cannot create Secrets, so they cannot mint
 * service-account tokens or take other Secrets' names. Only an Opaque Secret is used; one of
 * another type is refused. Rotating the key: delete the Secret, helm upgrade, restart the agents.
 */
public final class KubernetesProbeKey {
    /** The Secret's data key holding the probe key. */
    public static final String DATA_KEY = "key";
    /** The annotation of the chart's Secret that the agents fill (deploy/helm/fabricd/templates/secret.yaml). */
    static final String CHART_ANNOTATION = "fabricd.io/key";
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Logger LOG = Logger.getLogger(KubernetesProbeKey.class.getName());

    private KubernetesProbeKey() {
    }

    /**
     * The probe key of {@code probe}: {@code key_file}, else FABRICD_PROBE_KEY ({@link
     * ProbeKey#resolve}), else the Secret of {@code probe.kubernetes.key_secret}; null: no key, no
     * probes. A Secret that cannot be had within 30 s (API server down, RBAC missing) leaves the
     * agent without probes, and the log says why.
     */
    public static ProbeKey resolve(ProbeConfig probe) {
        ProbeKey key = ProbeKey.resolve(probe.keyFile());
        String secret = probe.kubernetes().keySecret();
        if (key != null || secret == null || secret.isBlank()) {
            return key;
        }
        try {
            return obtain(probe.kubernetes(), Duration.ofSeconds(30));
        } catch (IllegalStateException e) {
            LOG.severe(e.getMessage() + "; probes are off until the agent restarts");
            return null;
        }
    }

    /**
     * Reads, or fills when empty, the Secret {@code config.keySecret} with the pod's service account (or the
     * kubeconfig outside a cluster, or {@code api_server}). Tries for up to {@code patience}, as the
     * API server may be starting with the node; throws IllegalStateException with the reason in
     * words when it cannot.
     */
    public static ProbeKey obtain(ProbeConfig.Kubernetes config, Duration patience) {
        try (KubernetesClient client = KubernetesPeers.client(config)) {
            return obtain(client, KubernetesPeers.namespace(config, client), config.keySecret(), patience);
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
                Secret s = readOrFill(client, namespace, name);
                if (s != null) {
                    return fromSecret(s, where);
                }
                // not there yet (an install still creating it), or an update lost to another
                // writer: read again until the patience is spent
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the " + where + " does not exist or changed under every attempt to fill it:"
                            + " the Helm chart makes it (helm upgrade puts it back), or create it with the key under 'key'");
                }
            } catch (KubernetesClientException e) {
                String reason = KubernetesPeers.reason(e);
                if (System.nanoTime() > deadline) {
                    // a 403 is retried too: RBAC may still be propagating right after an install
                    throw new IllegalStateException("cannot read or fill the " + where + ": " + reason
                            + (e.getCode() == 403 ? " (the service account needs get and update on that Secret: the chart's Role grants them)" : ""));
                }
            }
            sleep(Math.min(5_000, 500L * attempt));
        }
    }

    /** The Secret with a key in it; null when it is not there or another writer changed it first (read again). */
    private static Secret readOrFill(KubernetesClient client, String namespace, String name) {
        Secret s = client.secrets().inNamespace(namespace).withName(name).get();
        if (s == null) {
            return null;
        }
        String type = s.getType() == null ? "Opaque" : s.getType();
        if (!"Opaque".equals(type)) {
            throw new IllegalStateException("the probe key Secret " + namespace + "/" + name + " is of type " + type
                    + ", not Opaque: refusing it (delete it; helm upgrade makes the right one)");
        }
        if (hasKey(s)) {
            if (!Boolean.TRUE.equals(s.getImmutable()) && s.getMetadata().getAnnotations() != null
                    && s.getMetadata().getAnnotations().containsKey(CHART_ANNOTATION)) {
                seal(client, namespace, s);
            }
            return s;
        }
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        Map<String, String> data = new HashMap<>(s.getData() == null ? Map.of() : s.getData());
        data.put(DATA_KEY, Base64.getEncoder().encodeToString(HexFormat.of().formatHex(key).getBytes(StandardCharsets.US_ASCII)));
        // keeps metadata.resourceVersion: an optimistic update; immutable: the only write of the key there will be
        Secret filled = new SecretBuilder(s).withData(data).withImmutable(true).build();
        try {
            return client.secrets().inNamespace(namespace).resource(filled).update();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            // another writer changed it first (an agent filling it: its key is the fabric's; or a
            // helm upgrade touching its labels): read it again
            return null;
        }
    }

    /**
     * Makes a filled chart Secret immutable (its key unchanged, bound to its resourceVersion); a
     * refusal (another writer first, RBAC without update) is left for the next agent that reads it.
     */
    private static void seal(KubernetesClient client, String namespace, Secret s) {
        try {
            client.secrets().inNamespace(namespace).resource(new SecretBuilder(s).withImmutable(true).build()).update();
            LOG.info("probe key Secret " + namespace + "/" + s.getMetadata().getName() + " made immutable: its key is never changed again");
        } catch (KubernetesClientException e) {
            LOG.fine("probe key Secret " + namespace + "/" + s.getMetadata().getName() + " not made immutable: " + KubernetesPeers.reason(e));
        }
    }

    private static boolean hasKey(Secret s) {
        return s.getData() != null && s.getData().get(DATA_KEY) != null && !s.getData().get(DATA_KEY).isBlank();
    }

    private static ProbeKey fromSecret(Secret s, String where) {
        String b64 = s.getData() == null ? null : s.getData().get(DATA_KEY);
        String text = b64 == null ? null : new String(Base64.getMimeDecoder().decode(b64), StandardCharsets.UTF_8);
        if (text == null || text.isBlank()) {
            throw new IllegalStateException("the " + where + " has no '" + DATA_KEY + "' entry: put a key of at least 16 bytes there,"
                    + " or delete it and helm upgrade (the chart puts back an empty one, which the first agent fills)");
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
