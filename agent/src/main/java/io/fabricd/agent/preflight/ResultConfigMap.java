package io.fabricd.agent.preflight;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gate's result as a Kubernetes ConfigMap, for the preflight Job (docs/preflight.md,
 * "Kubernetes"): {@code exit_code}, {@code excluded} (one hostlist), {@code excluded.tsv} (name, tab,
 * verdict, tab, reason), {@code commands} (cordon and taint for each excluded node, printed for a
 * person or a pipeline to run, never run here; unknown nodes named in a comment) and
 * {@code verdict.json} (the JSON output on one line). A ConfigMap holds 1 MiB: a verdict over
 * 900 KiB is stored as its summary, and what still does not fit is named as left out; the command's
 * own output, the Job's log, has all of it. Written by replacing the ConfigMap whole (delete, then
 * create): no copy of it in an annotation, as a client-side apply would keep.
 */
public final class ResultConfigMap {
    /** What the API server takes, 1 MiB of data in all, less room for the object's metadata. */
    static final int MAX_BYTES = 1_000_000;
    static final int MAX_VERDICT_BYTES = 900 * 1024;
    private static final ObjectMapper JSON = new ObjectMapper();

    private ResultConfigMap() {
    }

    /** The ConfigMap's data for a gate that ran: its exit code and its report, {@code verdictJson} as {@link GateReport#json} wrote it. */
    public static Map<String, String> data(int exitCode, GateReport report, String verdictJson) {
        return data(exitCode, report.verdict(), report.excluded(), report.excludedLines(), verdictJson);
    }

    /** The same from the report's parts: its verdict, excluded hostlist, exclude list and JSON. */
    static Map<String, String> data(int exitCode, String verdict, String excludedHostlist, String excludedLines, String verdictJson) {
        String compact;
        try {
            compact = JSON.writeValueAsString(JSON.readTree(verdictJson)) + "\n";
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the gate's own JSON does not parse: " + e.getOriginalMessage(), e);
        }
        String excluded = excludedHostlist.isEmpty() ? "" : excludedHostlist + "\n";
        return fit(exitCode, verdict, excluded, excludedLines, commands(exitCode, excludedLines), compact);
    }

    /** The ConfigMap's data for a gate that could not run (bad input: exit 2), {@code error} its one line. */
    public static Map<String, String> error(String error) {
        ObjectNode v = JSON.createObjectNode().put("verdict", "error").put("exit_code", 2).put("error", error);
        return fit(2, "error", "", "", "", v + "\n");
    }

    /** Cordon and taint for each excluded node of the list (exit 1 only); unknown nodes named, left alone. */
    static String commands(int exitCode, String excludedLines) {
        if (exitCode != 1) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (String line : excludedLines.split("\n")) {
            String[] f = line.split("\t", 3);
            if (f.length < 3 || !f[0].matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
                continue;
            }
            if ("exclude".equals(f[1])) {
                b.append("# ").append(f[0]).append(": ").append(f[2]).append('\n')
                        .append("kubectl cordon ").append(f[0]).append('\n')
                        .append("kubectl taint nodes ").append(f[0]).append(" fabricd.io/preflight=excluded:NoSchedule\n");
            } else {
                b.append("# ").append(f[0]).append(": ").append(f[1]).append(", left alone: ").append(f[2]).append('\n');
            }
        }
        return b.toString();
    }

    private static Map<String, String> fit(int exitCode, String verdict, String excluded, String tsv, String commands, String json) {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("exit_code", Integer.toString(exitCode));
        d.put("excluded", excluded);
        d.put("excluded.tsv", tsv);
        d.put("commands", commands);
        if (bytes(json) > MAX_VERDICT_BYTES) {
            json = JSON.createObjectNode().put("verdict", verdict).put("exit_code", exitCode).put("excluded", excluded.strip())
                    .put("full_verdict", leftOut(json)) + "\n";
        }
        d.put("verdict.json", json);
        for (String key : new String[] {"commands", "excluded.tsv"}) {
            if (d.values().stream().mapToInt(ResultConfigMap::bytes).sum() > MAX_BYTES) {
                d.put(key, leftOut(d.get(key)) + "\n");
            }
        }
        return d;
    }

    private static String leftOut(String value) {
        return "not stored: " + bytes(value) + " bytes, more than the result ConfigMap holds; in full in the Job's log:"
                + " kubectl logs job/fabricd-preflight";
    }

    private static int bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Replaces the ConfigMap {@code name} in {@code namespace} (null: the pod's own) with {@code data},
     * with the pod's service account (or a kubeconfig outside a cluster). Throws IllegalStateException
     * with the reason in words when it cannot.
     */
    public static void publish(String namespace, String name, Map<String, String> data) {
        Config config = new ConfigBuilder(Config.autoConfigure(null)).withRequestRetryBackoffLimit(1)
                .withConnectionTimeout(5_000).withRequestTimeout(10_000).build();
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            publish(client, namespace != null ? namespace : client.getNamespace(), name, data);
        }
    }

    static void publish(KubernetesClient client, String namespace, String name, Map<String, String> data) {
        if (namespace == null) {
            throw new IllegalStateException("the result ConfigMap " + name + ": no namespace (run it in a pod, or give a kubeconfig with one)");
        }
        ConfigMap cm = new ConfigMapBuilder().withNewMetadata().withName(name).withNamespace(namespace)
                .addToLabels("app.kubernetes.io/name", "fabricd-preflight").endMetadata().withData(data).build();
        try {
            client.configMaps().inNamespace(namespace).withName(name).delete();
            client.configMaps().inNamespace(namespace).resource(cm).create();
        } catch (KubernetesClientException e) {
            throw new IllegalStateException("cannot replace the result ConfigMap " + namespace + "/" + name + ": "
                    + (e.getCode() == 403 ? "forbidden (the Job's Role grants create, and get and delete on that name)"
                    : e.getCode() > 0 ? "the API server answered " + e.getCode() + " " + e.getStatus().getMessage()
                    : String.valueOf(e.getMessage())), e);
        }
    }
}
