package io.fabricd.gate;

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
import io.fabricd.model.OneLine;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The gate's result as a Kubernetes ConfigMap, for the preflight Job (docs/preflight.md,
 * "Kubernetes"): {@code exit_code}, {@code excluded} (one hostlist), {@code excluded.tsv} (name, tab,
 * verdict, tab, reason), {@code commands} (cordon and taint for each excluded node, printed for a
 * person or a pipeline to run, never run here; unknown nodes named in a comment),
 * {@code verdict.json} (the JSON output on one line), and which run it is of: {@code pod},
 * {@code started_at}, {@code finished_at}. Before the gate starts it is replaced by a running record
 * (its pod and start, no exit code), so that a run that ends without a result never leaves the one
 * before looking like its own. A ConfigMap holds 1 MiB: a verdict over 900 KiB is stored as its
 * summary, and what still does not fit is named as left out; the command's own output, the Job's
 * log, has all of it. Written by replacing the ConfigMap whole (delete, then create): no copy of it
 * in an annotation, as a client-side apply would keep.
 */
public final class ResultConfigMap {
    /** What the API server takes, 1 MiB of data in all, less room for the object's metadata. */
    static final int MAX_BYTES = 1_000_000;
    static final int MAX_VERDICT_BYTES = 900 * 1024;
    /** The exit code of a run whose result could not be stored: the gate's verdict stands, but nobody reading the ConfigMap sees it. */
    public static final int NOT_STORED = 2;
    /** A ConfigMap's name: a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'), at most 253 characters. */
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
    private static final int MAX_NAME = 253;
    private static final ObjectMapper JSON = new ObjectMapper();

    private ResultConfigMap() {
    }

    /**
     * Which run a result is of: the pod that ran it (the downward API's {@code POD_NAME}, as the Job
     * sets it; "" without) and when it started.
     */
    public record Run(String pod, Instant startedAt) {
        public Run {
            pod = pod == null ? "" : pod;
        }

        /** This process's run, starting now. */
        public static Run now() {
            return now(System.getenv());
        }

        /** A run starting now in the environment {@code env}. */
        static Run now(Map<String, String> env) {
            return new Run(env.get("POD_NAME"), Instant.now());
        }
    }

    /** {@code name} when it can name a ConfigMap; IllegalArgumentException with one line otherwise. */
    public static String checkName(String name) {
        if (name.length() > MAX_NAME || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("--result-configmap '" + OneLine.of(name, 60) + "' is not a ConfigMap name: lowercase letters, "
                    + "digits, '-' and '.', starting and ending with a letter or digit, at most " + MAX_NAME + " characters");
        }
        return name;
    }

    /** The record that stands for a run until its result replaces it: its pod and start, no exit code, no verdict. */
    public static Map<String, String> running(Run run) {
        ObjectNode v = JSON.createObjectNode().put("verdict", "running").put("pod", run.pod()).put("started_at", run.startedAt().toString());
        Map<String, String> d = fit(null, "running", "", "", "", v + "\n");
        return stamped(d, run, null);
    }

    /**
     * The ConfigMap's data for a gate of {@code run} that ran and finished now: its exit code and its
     * report, {@code verdictJson} as {@link GateReport#json} wrote it.
     */
    public static Map<String, String> data(Run run, int exitCode, GateReport report, String verdictJson) {
        return stamped(data(exitCode, report.verdict(), report.excluded(), report.excludedLines(), verdictJson), run, Instant.now());
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

    /** The ConfigMap's data for a gate of {@code run} that could not run (bad input: exit 2), {@code error} its one line. */
    public static Map<String, String> error(Run run, String error) {
        ObjectNode v = JSON.createObjectNode().put("verdict", "error").put("exit_code", 2).put("error", error);
        return stamped(fit(2, "error", "", "", "", v + "\n"), run, Instant.now());
    }

    /** {@code d} with which run it is of; {@code finished} null: not finished (the running record). */
    private static Map<String, String> stamped(Map<String, String> d, Run run, Instant finished) {
        d.put("pod", run.pod());
        d.put("started_at", run.startedAt().toString());
        d.put("finished_at", finished == null ? "" : finished.toString());
        return d;
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

    /** The result's data, within what a ConfigMap holds; {@code exitCode} null: none yet. */
    private static Map<String, String> fit(Integer exitCode, String verdict, String excluded, String tsv, String commands, String json) {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("exit_code", exitCode == null ? "" : exitCode.toString());
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
     * with one line when it cannot: what failed and its root cause, whatever failed (the client's
     * configuration, the connection, the API server's answer).
     */
    public static void publish(String namespace, String name, Map<String, String> data) {
        Config config;
        try {
            config = new ConfigBuilder(Config.autoConfigure(null)).withRequestRetryBackoffLimit(1)
                    .withConnectionTimeout(5_000).withRequestTimeout(10_000).build();
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot store the result ConfigMap " + name + ": no usable Kubernetes client configuration "
                    + "(the pod's service account, or KUBECONFIG / ~/.kube/config outside a cluster): " + rootCause(e), e);
        }
        try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
            publish(client, namespace != null ? namespace : client.getNamespace(), name, data);
        } catch (IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IllegalStateException("cannot store the result ConfigMap " + name + " through " + config.getMasterUrl() + ": "
                    + rootCause(e), e);
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
            throw new IllegalStateException("cannot replace the result ConfigMap " + namespace + "/" + name + " through "
                    + client.getMasterUrl() + ": "
                    + (e.getCode() == 403 ? "forbidden: " + said(e)
                    + " (the Job's Role grants create, and get and delete on that name)"
                    : e.getCode() > 0 ? "the API server answered " + e.getCode() + " " + said(e)
                    : rootCause(e)), e);
        }
    }

    /** What the API server said with its answer, on one line. */
    private static String said(KubernetesClientException e) {
        return e.getStatus() == null ? "" : OneLine.of(e.getStatus().getMessage());
    }

    /**
     * The innermost cause's message, on one line: fabric8 says only "Operation: [delete] ... failed."
     * and keeps why (connection refused, a name that does not resolve, a kubeconfig that does not
     * parse) in its causes.
     */
    static String rootCause(Throwable e) {
        Throwable c = e;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        String m = c.getMessage() == null || c.getMessage().isBlank() ? c.getClass().getSimpleName() : c.getMessage();
        return OneLine.of(m.replaceAll("\\s+", " "));
    }
}
