package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabricd.testing.PrivateFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd preflight --result-configmap}, as the Kubernetes Job runs it, against fabric8's API
 * server emulation (found as a pod finds its API server, here through the client's system
 * properties): a record of the run stored before the gate starts and replaced by its result, bad
 * input stored as an error, each with the command's own exit code; a name that is none refused
 * before anything runs; and a result that cannot be stored said in one line with its cause, exit 2,
 * the JSON's exit code the command's.
 */
class PreflightResultConfigMapTest {
    static final String NS = "monitoring";
    static final String NAME = "fabricd-preflight-result";
    static final Map<String, String> PROPERTIES = Map.of("kubernetes.auth.tryKubeConfig", "false", "kubernetes.auth.tryServiceAccount", "false",
            "kubernetes.namespace", NS);

    /** The API server's ConfigMaps, refusing creates from the {@code refuseFrom}th on as a quota would (403). */
    static final class Dispatcher extends KubernetesCrudDispatcher {
        final AtomicInteger creates = new AtomicInteger();
        /** The bodies of the ConfigMaps created, in order. */
        final List<String> bodies = new CopyOnWriteArrayList<>();
        volatile int refuseFrom = Integer.MAX_VALUE;

        @Override
        public MockResponse handleCreate(RecordedRequest request) {
            bodies.add(new String(request.getBody().getBytes(), StandardCharsets.UTF_8));
            if (creates.incrementAndGet() >= refuseFrom) {
                return new MockResponse().setResponseCode(403).setBody("{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                        + "\"message\":\"configmaps \\\"" + NAME + "\\\" is forbidden: exceeded quota: cm, requested: count/configmaps=1\","
                        + "\"reason\":\"Forbidden\",\"code\":403}");
            }
            return super.handleCreate(request);
        }
    }

    KubernetesMockServer server;
    NamespacedKubernetesClient client;
    Dispatcher dispatcher;

    @BeforeEach
    void start() {
        dispatcher = new Dispatcher();
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        client = server.createClient();
        PROPERTIES.forEach(System::setProperty);
        System.setProperty("kubernetes.master", client.getMasterUrl().toString());
        // the run before, its result still there
        client.configMaps().inNamespace(NS).resource(new ConfigMapBuilder().withNewMetadata().withName(NAME).endMetadata()
                .withData(Map.of("exit_code", "0", "pod", "fabricd-preflight-old12", "commands", "")).build()).create();
    }

    @AfterEach
    void stop() {
        PROPERTIES.keySet().forEach(System::clearProperty);
        System.clearProperty("kubernetes.master");
        System.clearProperty("kubeconfig");
        client.close();
        server.destroy();
    }

    private Map<String, String> stored() {
        ConfigMap cm = client.configMaps().inNamespace(NS).withName(NAME).get();
        assertThat(cm).as("the result ConfigMap").isNotNull();
        return cm.getData();
    }

    /** The bodies of the ConfigMaps created, in order (the one the test made first left out). */
    private List<String> created() {
        return dispatcher.bodies.subList(1, dispatcher.bodies.size());
    }

    @Test
    void aGateThatRanStoresItsVerdictWithItsExitCodeAfterARecordOfTheRun(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        // nothing listens at port 1: the node is unknown, counted as excluded, none kept: exit 2 after the verdict
        CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu-node-001=127.0.0.1:1", "--key-file", key.toString(), "--timeout", "5s",
                "--bandwidth", "none", "--format", "json", "--result-configmap", NAME);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        Map<String, String> d = stored();
        assertThat(d).containsEntry("exit_code", "2").containsEntry("excluded", "gpu-node-001\n").containsEntry("pod", "");
        assertThat(d.get("excluded.tsv")).startsWith("gpu-node-001\tunknown\t");
        assertThat(d.get("commands")).isEmpty();
        assertThat(d.get("verdict.json")).startsWith("{\"verdict\":\"exclude\"").contains("\"excluded\":\"gpu-node-001\"").endsWith("}\n");
        assertThat(Instant.parse(d.get("finished_at"))).isAfter(Instant.parse(d.get("started_at")));
        assertThat(r.out()).startsWith("{").contains("\"excluded\" : \"gpu-node-001\"").contains("\"exit_code\" : 2").doesNotContain("result_not_stored");
        // before the gate started, the result of the run before was replaced by this run's record
        List<String> created = created();
        assertThat(created).hasSize(2);
        assertThat(created.get(0)).contains("\"exit_code\":\"\"", "\"finished_at\":\"\"", "\\\"verdict\\\":\\\"running\\\"",
                "\"started_at\":\"" + d.get("started_at") + "\"");
    }

    @Test
    void badInputIsSaidFirstThenStoredAsAnErrorAndStillExitsTwo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu[3-1]", "--key-file", key.toString(), "--result-configmap", NAME);
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip().lines()).singleElement().asString().startsWith("fabricd: ").contains("gpu[3-1]");
        Map<String, String> d = stored();
        assertThat(d).containsEntry("exit_code", "2").containsEntry("pod", "").doesNotContainEntry("pod", "fabricd-preflight-old12");
        assertThat(d.get("verdict.json")).startsWith("{\"verdict\":\"error\",\"exit_code\":2,\"error\":\"").contains("gpu[3-1]");
        assertThat(d.get("finished_at")).isNotEmpty();
    }

    /** A name that cannot name a ConfigMap (a path, capitals) is bad input, said before the gate or the API server is asked anything. */
    @Test
    void aResultNameThatIsNoConfigMapNameIsRefusedBeforeAnythingRuns(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        int before = server.getRequestCount();
        for (String name : List.of("../../secrets/probe-key", "Fabricd-Result")) {
            CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu-node-001=127.0.0.1:1", "--key-file", key.toString(), "--timeout", "5s",
                    "--result-configmap", name);
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err().strip().lines()).as(r.err()).singleElement().asString()
                    .isEqualTo("fabricd: --result-configmap '" + name + "' is not a ConfigMap name: lowercase letters, digits, '-' and '.', "
                            + "starting and ending with a letter or digit, at most 253 characters");
            assertThat(r.out()).isEmpty();
        }
        assertThat(server.getRequestCount()).as("no request to the API server").isEqualTo(before);
        assertThat(stored()).containsEntry("pod", "fabricd-preflight-old12");
    }

    /** The API server unreachable: the gate does not start (its result could not be stored), one line with the cause, exit 2. */
    @Test
    void aResultThatCannotBeStoredIsSaidWithItsCauseAndExitsTwo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        System.setProperty("kubernetes.master", "http://127.0.0.1:1");
        CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu-node-001=127.0.0.1:1", "--key-file", key.toString(), "--timeout", "3s",
                "--bandwidth", "none", "--unknown", "pass", "--format", "json", "--result-configmap", NAME);
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip().lines()).as(r.err()).singleElement().asString()
                .startsWith("fabricd preflight: the result cannot be stored, so the gate does not run: cannot replace the result ConfigMap "
                        + NS + "/" + NAME + " through http://127.0.0.1:1/: ")
                .containsIgnoringCase("refused").doesNotContain("Operation: [", "internal error");
        assertThat(r.out()).isEmpty();
    }

    /** A kubeconfig that does not parse, with bad input: the bad input first, then why nothing is stored; one line each, exit 2. */
    @Test
    void aBrokenClientConfigurationIsOneLineAfterTheBadInput(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        Path kubeconfig = Files.writeString(tmp.resolve("kubeconfig"), "garbage: [\n");
        System.clearProperty("kubernetes.master");
        System.setProperty("kubernetes.auth.tryKubeConfig", "true");
        System.setProperty("kubeconfig", kubeconfig.toString());
        CliTest.Result r = CliTest.run("preflight", "--nodes", "a[", "--key-file", key.toString(), "--result-configmap", NAME);
        assertThat(r.code()).isEqualTo(2);
        List<String> lines = r.err().strip().lines().toList();
        assertThat(lines).as(r.err()).hasSize(2);
        assertThat(lines.get(0)).startsWith("fabricd: ").contains("a[");
        assertThat(lines.get(1)).startsWith("fabricd preflight: the error above is not stored: cannot store the result ConfigMap " + NAME
                + ": no usable Kubernetes client configuration").doesNotContain("internal error", "Exception");
    }

    /** The gate ran, its result could not be stored: exit 2, and the JSON printed says 2 and why, never the gate's own code alone. */
    @Test
    void aVerdictThatCannotBeStoredExitsTwoAndItsJsonSaysSo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        dispatcher.refuseFrom = 3; // the test's own, the running record, then the result
        CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu-node-001=127.0.0.1:1", "--key-file", key.toString(), "--timeout", "3s",
                "--bandwidth", "none", "--unknown", "pass", "--format", "json", "--result-configmap", NAME);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        assertThat(r.out()).contains("\"exit_code\" : 2", "\"verdict\" : \"pass\"", "\"result_not_stored\" : \"cannot replace the result ConfigMap "
                + NS + "/" + NAME);
        assertThat(r.out()).contains("forbidden: configmaps \\\"" + NAME + "\\\" is forbidden: exceeded quota");
        assertThat(r.err()).contains("fabricd preflight: the verdict (exit 0 on its own) is not stored, exit 2: cannot replace the result ConfigMap");
        assertThat(client.configMaps().inNamespace(NS).withName(NAME).get()).as("deleted, and not created again: no stale result").isNull();
    }
}
