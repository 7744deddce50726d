package io.fabricd.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.client.NamespacedKubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabricd.testing.PrivateFiles;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code fabricd preflight --result-configmap}, as the Kubernetes Job runs it, against fabric8's API
 * server emulation (found as a pod finds its API server, here through the client's system
 * properties): the gate's result stored whole, and bad input stored as an error, each with the
 * command's own exit code.
 */
class PreflightResultConfigMapTest {
    static final String NS = "monitoring";
    static final String NAME = "fabricd-preflight-result";
    static final Map<String, String> PROPERTIES = Map.of("kubernetes.auth.tryKubeConfig", "false", "kubernetes.auth.tryServiceAccount", "false",
            "kubernetes.namespace", NS);

    KubernetesMockServer server;
    NamespacedKubernetesClient client;

    @BeforeEach
    void start() {
        server = new KubernetesMockServer(new Context(), new MockWebServer(), new HashMap<>(), new KubernetesCrudDispatcher(), false);
        server.init();
        client = server.createClient();
        PROPERTIES.forEach(System::setProperty);
        System.setProperty("kubernetes.master", client.getMasterUrl().toString());
    }

    @AfterEach
    void stop() {
        PROPERTIES.keySet().forEach(System::clearProperty);
        System.clearProperty("kubernetes.master");
        client.close();
        server.destroy();
    }

    private Map<String, String> stored() {
        ConfigMap cm = client.configMaps().inNamespace(NS).withName(NAME).get();
        assertThat(cm).as("the result ConfigMap").isNotNull();
        return cm.getData();
    }

    @Test
    void aGateThatRanStoresItsVerdictWithItsExitCode(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        // nothing listens at port 1: the node is unknown, counted as excluded, none kept: exit 2 after the verdict
        CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu-node-001=127.0.0.1:1", "--key-file", key.toString(), "--timeout", "5s",
                "--bandwidth", "none", "--format", "json", "--result-configmap", NAME);
        assertThat(r.code()).as(r.err()).isEqualTo(2);
        Map<String, String> d = stored();
        assertThat(d).containsEntry("exit_code", "2").containsEntry("excluded", "gpu-node-001\n");
        assertThat(d.get("excluded.tsv")).startsWith("gpu-node-001\tunknown\t");
        assertThat(d.get("commands")).isEmpty();
        assertThat(d.get("verdict.json")).startsWith("{\"verdict\":\"exclude\"").contains("\"excluded\":\"gpu-node-001\"").endsWith("}\n");
        assertThat(r.out()).startsWith("{").contains("\"excluded\" : \"gpu-node-001\"");
    }

    @Test
    void badInputIsStoredAsAnErrorAndStillExitsTwo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu[3-1]", "--key-file", key.toString(), "--result-configmap", NAME);
        assertThat(r.code()).isEqualTo(2);
        Map<String, String> d = stored();
        assertThat(d).containsEntry("exit_code", "2");
        assertThat(d.get("verdict.json")).startsWith("{\"verdict\":\"error\",\"exit_code\":2,\"error\":\"").contains("gpu[3-1]");
    }

    @Test
    void aResultThatCannotBeStoredIsSaidAndExitsTwo(@TempDir Path tmp) throws Exception {
        Path key = PrivateFiles.write(tmp.resolve("key"), AgentProbeTest.KEY);
        System.setProperty("kubernetes.master", "http://127.0.0.1:1");
        CliTest.Result r = CliTest.run("preflight", "--nodes", "gpu-node-001=127.0.0.1:1", "--key-file", key.toString(), "--timeout", "3s",
                "--bandwidth", "none", "--unknown", "pass", "--result-configmap", NAME);
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("fabricd preflight: the verdict (exit ").contains("is not stored: cannot replace the result ConfigMap monitoring/" + NAME);
    }
}
