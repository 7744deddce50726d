package io.fabricd.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The preflight Job's result ConfigMap: its data from a verdict, within what a ConfigMap holds, replaced whole in the API server. */
class ResultConfigMapTest {
    static final String TSV = "gpu-node-002\texclude\tgpu-node-002: critical finding pfc_missing: fix PFC\n"
            + "gpu-node-003\tunknown\tgpu-node-003: agent unreachable: is fabricd running there?\n"
            + "gpu-node-004\texclude\tgpu-node-004: 12 % probe loss\n";
    static final String PRETTY = "{\n  \"verdict\" : \"exclude\",\n  \"nodes\" : [ {\n    \"node\" : \"gpu-node-002\", \"reasons\" : [ \"a: b, c\" ]\n"
            + "  } ],\n  \"excluded\" : \"gpu-node-[002-004]\"\n}\n";

    @Test
    void excludedNodesGetCommandsPrintedNotRunAndTheVerdictIsOneLine() {
        Map<String, String> d = ResultConfigMap.data(1, "exclude", "gpu-node-[002-004]", TSV, PRETTY);
        assertThat(d).containsEntry("exit_code", "1").containsEntry("excluded", "gpu-node-[002-004]\n").containsEntry("excluded.tsv", TSV);
        assertThat(d.get("commands")).isEqualTo(String.join("\n",
                "# gpu-node-002: gpu-node-002: critical finding pfc_missing: fix PFC",
                "kubectl cordon gpu-node-002",
                "kubectl taint nodes gpu-node-002 fabricd.io/preflight=excluded:NoSchedule",
                "# gpu-node-003: unknown, left alone: gpu-node-003: agent unreachable: is fabricd running there?",
                "# gpu-node-004: gpu-node-004: 12 % probe loss",
                "kubectl cordon gpu-node-004",
                "kubectl taint nodes gpu-node-004 fabricd.io/preflight=excluded:NoSchedule", ""));
        assertThat(d.get("verdict.json")).isEqualTo("{\"verdict\":\"exclude\",\"nodes\":[{\"node\":\"gpu-node-002\",\"reasons\":[\"a: b, c\"]}],"
                + "\"excluded\":\"gpu-node-[002-004]\"}\n");
        // a gate that could not decide (exit 2) prints no commands
        assertThat(ResultConfigMap.data(2, "exclude", "gpu-node-[002-004]", TSV, PRETTY).get("commands")).isEmpty();
    }

    @Test
    void aVerdictTooLargeForAConfigMapIsKeptAsItsSummary() throws Exception {
        String big = "{\"verdict\":\"exclude\",\"padding\":\"" + "x".repeat(1200 * 1024) + "\",\"excluded\":\"gpu-node-[002-004]\"}";
        Map<String, String> d = ResultConfigMap.data(1, "exclude", "gpu-node-[002-004]", TSV, big);
        assertThat(d.values().stream().mapToInt(v -> v.getBytes(StandardCharsets.UTF_8).length).sum()).isLessThan(1024 * 1024);
        var summary = new ObjectMapper().readTree(d.get("verdict.json"));
        assertThat(summary.get("verdict").asText()).isEqualTo("exclude");
        assertThat(summary.get("exit_code").asInt()).isEqualTo(1);
        assertThat(summary.get("excluded").asText()).isEqualTo("gpu-node-[002-004]");
        assertThat(summary.get("full_verdict").asText()).startsWith("not stored: ").contains("kubectl logs job/fabricd-preflight");
        assertThat(d.get("excluded.tsv")).isEqualTo(TSV);
        // an exclude list of a megabyte (thousands of nodes) is left out too, said so
        String hugeTsv = ("gpu-node-999\texclude\t" + "y".repeat(200) + "\n").repeat(6000);
        Map<String, String> h = ResultConfigMap.data(1, "exclude", "gpu-node-999", hugeTsv, PRETTY);
        assertThat(h.values().stream().mapToInt(v -> v.getBytes(StandardCharsets.UTF_8).length).sum()).isLessThan(1024 * 1024);
        assertThat(h.get("commands")).startsWith("not stored: ");
        assertThat(h.get("excluded.tsv")).startsWith("not stored: ");
    }

    static final ResultConfigMap.Run RUN = new ResultConfigMap.Run("fabricd-preflight-x7k2p", Instant.parse("2025-06-01T10:00:00Z"));

    /**
     * Which run a result is of: the pod the Job names (POD_NAME from the downward API), its start and
     * end; the running record has no exit code and no end, so that it is never read as a result.
     */
    @Test
    void aResultSaysWhichRunItIsOfAndTheRunningRecordHasNoResult() throws Exception {
        assertThat(ResultConfigMap.Run.now(Map.of("POD_NAME", "fabricd-preflight-x7k2p", "HOSTNAME", "gpu-node-001")).pod())
                .as("the pod's name, never the host's: the Job runs on the host network").isEqualTo("fabricd-preflight-x7k2p");
        assertThat(ResultConfigMap.Run.now(Map.of("HOSTNAME", "gpu-node-001")).pod()).isEmpty();
        Map<String, String> running = ResultConfigMap.running(RUN);
        assertThat(running).containsEntry("exit_code", "").containsEntry("excluded", "").containsEntry("commands", "")
                .containsEntry("pod", "fabricd-preflight-x7k2p").containsEntry("started_at", "2025-06-01T10:00:00Z").containsEntry("finished_at", "");
        var v = new ObjectMapper().readTree(running.get("verdict.json"));
        assertThat(v.get("verdict").asText()).isEqualTo("running");
        assertThat(v.get("pod").asText()).isEqualTo("fabricd-preflight-x7k2p");
        Map<String, String> error = ResultConfigMap.error(RUN, "--nodes: an empty hostlist");
        assertThat(Instant.parse(error.get("finished_at"))).isAfter(RUN.startedAt());
    }

    /** A ConfigMap's name (DNS-1123 subdomain), checked before anything runs: a path would have gone into the request's URL. */
    @Test
    void onlyAConfigMapNameIsTakenForTheResult() {
        for (String ok : List.of("fabricd-preflight-result", "a", "r.1", "x".repeat(253))) {
            assertThat(ResultConfigMap.checkName(ok)).isEqualTo(ok);
        }
        for (String bad : List.of("../../secrets/probe-key", "Result", "-r", "r-", "r_1", "", "r..1", "x".repeat(254), "r\nx", "a/b")) {
            assertThatThrownBy(() -> ResultConfigMap.checkName(bad)).as(bad).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("is not a ConfigMap name: lowercase letters, digits, '-' and '.'").hasMessageNotContaining("\n");
        }
    }

    /** fabric8 says "Operation: [delete] ... failed." and keeps why in its causes: the innermost is said, on one line. */
    @Test
    void theRootCauseIsSaidOnOneLine() {
        var e = new io.fabric8.kubernetes.client.KubernetesClientException("Operation: [delete]  for kind: [ConfigMap]  with name: [r]  failed.",
                new java.io.IOException("wrapped", new java.net.ConnectException("Connection refused")));
        assertThat(ResultConfigMap.rootCause(e)).isEqualTo("Connection refused");
        assertThat(ResultConfigMap.rootCause(new IllegalStateException("while parsing a flow node\n in reader, line 2, column 1:\n    \n    ^")))
                .isEqualTo("while parsing a flow node in reader, line 2, column 1: ^");
        assertThat(ResultConfigMap.rootCause(new RuntimeException(new java.net.UnknownHostException()))).isEqualTo("UnknownHostException");
    }

    @Test
    void theConfigMapIsReplacedWholeInTheApiServer() {
        KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        try (NamespacedKubernetesClient client = server.createClient()) {
            client.configMaps().inNamespace("monitoring").resource(new ConfigMapBuilder().withNewMetadata().withName("fabricd-preflight-result")
                    .endMetadata().withData(Map.of("exit_code", "0", "stale", "from the run before")).build()).create();
            ResultConfigMap.publish(client, "monitoring", "fabricd-preflight-result", ResultConfigMap.data(1, "exclude", "gpu-node-[002-004]", TSV, PRETTY));
            ConfigMap cm = client.configMaps().inNamespace("monitoring").withName("fabricd-preflight-result").get();
            assertThat(cm.getData()).containsEntry("exit_code", "1").containsEntry("excluded", "gpu-node-[002-004]\n").doesNotContainKey("stale");
            assertThat(cm.getMetadata().getLabels()).containsEntry("app.kubernetes.io/name", "fabricd-preflight");
            assertThat(cm.getMetadata().getAnnotations()).as("no client-side apply copy").isNullOrEmpty();
            // a first run: nothing to replace
            ResultConfigMap.publish(client, "other", "fabricd-preflight-result", ResultConfigMap.error(RUN, "--nodes: an empty hostlist"));
            assertThat(client.configMaps().inNamespace("other").withName("fabricd-preflight-result").get().getData())
                    .containsEntry("exit_code", "2").containsEntry("verdict.json", "{\"verdict\":\"error\",\"exit_code\":2,\"error\":\"--nodes: an empty hostlist\"}\n")
                    .containsEntry("pod", "fabricd-preflight-x7k2p").containsEntry("started_at", "2025-06-01T10:00:00Z");
        } finally {
            server.destroy();
        }
    }
}
