package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabricd.deploy.Monitoring.PrometheusRule;
import io.fabricd.deploy.Monitoring.ServiceMonitor;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/helm/fabricd through helm-java (the real Helm, bundled; offline): lint --strict, and
 * templates for several values sets, every object parsed with fabric8's model and rejected if it
 * carries a field the model does not know.
 */
class HelmChartTest {
    static final Path REPO = Paths.repo();
    static final Path CHART = REPO.resolve("deploy/helm/fabricd");
    static final KubernetesSerialization K8S = new KubernetesSerialization();

    static {
        K8S.registerKubernetesResource(ServiceMonitor.class);
        K8S.registerKubernetesResource(PrometheusRule.class);
    }
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    static List<HasMetadata> render(UnaryOperator<TemplateCommand> values) {
        String out = values.apply(new Helm(CHART).template().withName("fab").withNamespace("monitoring")).call();
        List<HasMetadata> objects = new ArrayList<>();
        for (String doc : out.split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
                continue;
            }
            Object o = K8S.unmarshal(doc);
            assertThat(o).as(doc).isInstanceOf(HasMetadata.class);
            HasMetadata h = (HasMetadata) o;
            if (h instanceof GenericKubernetesResource g && g.getApiVersion().equals("cert-manager.io/v1")) {
                objects.add(h); // no typed model here: certManagerObjects checks their fields by name
                continue;
            }
            assertThat(unknownFields(h)).as("unknown fields in " + h.getKind() + " " + h.getMetadata().getName()).isEmpty();
            objects.add(h);
        }
        return objects;
    }

    /** Paths of every non-empty additionalProperties in the object graph (fabric8 keeps unknown fields there). */
    static List<String> unknownFields(Object root) {
        List<String> out = new ArrayList<>();
        walk(root, "$", out, Collections.newSetFromMap(new IdentityHashMap<>()));
        return out;
    }

    private static void walk(Object o, String path, List<String> out, Set<Object> seen) {
        if (o == null || o instanceof String || o instanceof Number || o instanceof Boolean || o instanceof Enum<?> || !seen.add(o)) {
            return;
        }
        if (o instanceof Collection<?> c) {
            int i = 0;
            for (Object x : c) {
                walk(x, path + "[" + i++ + "]", out, seen);
            }
            return;
        }
        if (o instanceof Map<?, ?> m) {
            m.forEach((k, v) -> walk(v, path + "." + k, out, seen));
            return;
        }
        if (!o.getClass().getName().startsWith("io.fabric8.") && !o.getClass().getName().startsWith("io.fabricd.deploy.")) {
            return;
        }
        for (Method g : o.getClass().getMethods()) {
            if (g.getParameterCount() != 0 || g.getDeclaringClass() == Object.class || !(g.getName().startsWith("get") || g.getName().startsWith("is"))) {
                continue;
            }
            try {
                Object v = g.invoke(o);
                if (g.getName().equals("getAdditionalProperties")) {
                    if (v instanceof Map<?, ?> m && !m.isEmpty()) {
                        m.keySet().forEach(k -> out.add(path + "." + k));
                    }
                } else {
                    walk(v, path + "." + g.getName().replaceFirst("^(get|is)", ""), out, seen);
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // a getter that computes and fails is not a field
            }
        }
    }

    static <T> List<T> all(List<HasMetadata> objects, Class<T> kind) {
        return objects.stream().filter(kind::isInstance).map(kind::cast).toList();
    }

    private static GenericKubernetesResource named(List<GenericKubernetesResource> objects, String name) {
        return objects.stream().filter(o -> o.getKind().equals("Certificate") && o.getMetadata().getName().equals(name)).findFirst()
                .orElseThrow();
    }

    static <T> T one(List<HasMetadata> objects, Class<T> kind) {
        List<T> l = all(objects, kind);
        assertThat(l).as(kind.getSimpleName()).hasSize(1);
        return l.get(0);
    }

    /** The agent's configuration file from its ConfigMap. */
    static JsonNode agentConfig(List<HasMetadata> objects) throws IOException {
        List<ConfigMap> maps = all(objects, ConfigMap.class).stream().filter(m -> m.getData().containsKey("fabricd.yaml")).toList();
        assertThat(maps).hasSize(1);
        return YAML.readTree(maps.get(0).getData().get("fabricd.yaml"));
    }

    @Test
    void lintsCleanlyWithStrict() {
        LintResult r = new Helm(CHART).lint().strict().call();
        assertThat(r.isFailed()).as(String.join("\n", r.getMessages())).isFalse();
        assertThat(r.getMessages()).noneMatch(m -> m.contains("[ERROR]") || m.contains("[WARNING]"));
    }

    @Test
    void defaultsGiveALeastPrivilegeDaemonSetWithEverythingOn() throws Exception {
        List<HasMetadata> objects = render(t -> t);
        assertThat(objects.stream().map(HasMetadata::getKind).distinct().sorted().toList()).containsExactly("ClusterRole",
                "ClusterRoleBinding", "ConfigMap", "DaemonSet", "NetworkPolicy", "PrometheusRule", "Role", "RoleBinding", "Secret",
                "Service", "ServiceAccount", "ServiceMonitor");

        DaemonSet ds = one(objects, DaemonSet.class);
        var pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getHostNetwork()).isTrue();
        assertThat(pod.getDnsPolicy()).isEqualTo("ClusterFirstWithHostNet");
        // no PriorityClass unless asked: system-node-critical outside kube-system is refused on some clusters
        assertThat(pod.getPriorityClassName()).isNull();
        assertThat(pod.getServiceAccountName()).isEqualTo("fab-fabricd");
        assertThat(pod.getTolerations()).extracting("key").contains("nvidia.com/gpu");
        assertThat(pod.getAffinity().getNodeAffinity().getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()).hasSize(2);
        assertThat(ds.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable().getStrVal()).isEqualTo("10%");
        Container c = pod.getContainers().get(0);
        var sc = c.getSecurityContext();
        assertThat(sc.getPrivileged()).isFalse();
        assertThat(sc.getAllowPrivilegeEscalation()).isFalse();
        assertThat(sc.getReadOnlyRootFilesystem()).isTrue();
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
        assertThat(sc.getCapabilities().getAdd()).containsExactly("IPC_LOCK");
        assertThat(c.getEnv()).anySatisfy(e -> {
            assertThat(e.getName()).isEqualTo("NODE_NAME");
            assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("spec.nodeName");
        });
        Map<String, VolumeMount> mounts = new HashMap<>();
        c.getVolumeMounts().forEach(m -> mounts.put(m.getMountPath(), m));
        assertThat(mounts.get("/sys").getReadOnly()).isTrue();
        assertThat(mounts.get("/sys/kernel/config").getReadOnly()).isTrue();
        assertThat(mounts).containsKeys("/dev/infiniband", "/etc/fabricd/fabricd.yaml", "/tmp").doesNotContainKey("/etc/fabricd/probe");
        Map<String, Volume> volumes = new HashMap<>();
        pod.getVolumes().forEach(v -> volumes.put(v.getName(), v));
        assertThat(volumes.get("sys").getHostPath().getPath()).isEqualTo("/sys");
        assertThat(volumes.get("dev-infiniband").getHostPath().getPath()).isEqualTo("/dev/infiniband");
        // the expected inventory survives the pod: a node folder, the agent's state_dir
        assertThat(volumes.get("state").getHostPath().getPath()).isEqualTo("/var/lib/fabricd");
        assertThat(volumes.get("state").getHostPath().getType()).isEqualTo("DirectoryOrCreate");
        assertThat(mounts.get("/var/lib/fabricd").getReadOnly()).isNotEqualTo(Boolean.TRUE);
        assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
        assertThat(c.getPorts()).extracting("name").containsExactly("http", "probe");

        // the agent's configuration: Kubernetes discovery of this release's Service, the probe key
        // Secret the agents make themselves
        JsonNode cfg = agentConfig(objects);
        assertThat(cfg.get("listen").asText()).isEqualTo("0.0.0.0:9530");
        assertThat(cfg.at("/probe/key_file").isMissingNode()).isTrue();
        assertThat(cfg.at("/probe/kubernetes/key_secret").asText()).isEqualTo("fab-fabricd-probe-key");
        assertThat(cfg.at("/probe/kubernetes/service").asText()).isEqualTo("fab-fabricd");
        assertThat(cfg.at("/probe/kubernetes/namespace").asText()).isEqualTo("monitoring");
        assertThat(cfg.at("/collection/interval").asText()).isEqualTo("10s");
        assertThat(cfg.at("/state_dir").asText()).isEqualTo("/var/lib/fabricd");

        Service svc = one(objects, Service.class);
        assertThat(svc.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(svc.getSpec().getPorts().get(0).getName()).isEqualTo("http");
        assertThat(svc.getSpec().getSelector()).isEqualTo(ds.getSpec().getSelector().getMatchLabels());

        Role role = one(objects, Role.class);
        assertThat(role.getRules()).hasSize(2);
        assertThat(role.getRules().get(0).getResources()).containsExactly("endpointslices");
        assertThat(role.getRules().get(0).getVerbs()).containsExactly("list", "watch");
        // the probe key Secret the first agent fills: that one name, and never create
        assertThat(role.getRules().get(1).getResources()).containsExactly("secrets");
        assertThat(role.getRules().get(1).getResourceNames()).containsExactly("fab-fabricd-probe-key");
        assertThat(role.getRules().get(1).getVerbs()).containsExactly("get", "update");
        Secret key = one(objects, Secret.class);
        assertThat(key.getType()).isEqualTo("Opaque");
        assertThat(key.getData()).isNullOrEmpty();
        assertThat(key.getMetadata().getAnnotations()).containsEntry("helm.sh/resource-policy", "keep");
        ClusterRole nodes = one(objects, ClusterRole.class);
        assertThat(nodes.getRules().get(0).getResources()).containsExactly("nodes");
        assertThat(nodes.getRules().get(0).getVerbs()).containsExactly("get");
        assertThat(one(objects, ServiceAccount.class).getMetadata().getName()).isEqualTo("fab-fabricd");

        ServiceMonitor sm = one(objects, ServiceMonitor.class);
        assertThat(sm.getSpec().getEndpoints().get(0).getPort()).isEqualTo("http");
        assertThat(sm.getSpec().getSelector().getMatchLabels()).isEqualTo(svc.getSpec().getSelector());
    }

    /**
     * The NetworkPolicy by default: the HTTP port to Prometheus pods (the Prometheus Operator's and
     * the prometheus chart's label) in any namespace, the probe ports to the agents; nothing else.
     * An empty {@code from} is the explicit way to let anyone scrape.
     */
    @Test
    void theNetworkPolicyLetsOnlyPrometheusAndTheAgentsInByDefault(@TempDir Path tmp) throws Exception {
        List<HasMetadata> objects = render(t -> t);
        DaemonSet ds = one(objects, DaemonSet.class);
        var np = one(objects, NetworkPolicy.class).getSpec();
        assertThat(np.getPolicyTypes()).containsExactly("Ingress");
        assertThat(np.getPodSelector().getMatchLabels()).isEqualTo(ds.getSpec().getSelector().getMatchLabels());
        assertThat(np.getIngress()).hasSize(2);
        var http = np.getIngress().get(0);
        assertThat(http.getPorts()).extracting(p -> p.getPort().getIntVal() + "/" + p.getProtocol()).containsExactly("9530/TCP");
        assertThat(http.getFrom()).singleElement().satisfies(f -> {
            assertThat(f.getNamespaceSelector().getMatchLabels()).isNullOrEmpty(); // any namespace
            assertThat(f.getNamespaceSelector().getMatchExpressions()).isNullOrEmpty();
            assertThat(f.getPodSelector().getMatchLabels()).containsExactly(Map.entry("app.kubernetes.io/name", "prometheus"));
            assertThat(f.getIpBlock()).isNull();
        });
        var agents = np.getIngress().get(1);
        assertThat(agents.getFrom()).singleElement()
                .satisfies(f -> assertThat(f.getPodSelector().getMatchLabels()).isEqualTo(ds.getSpec().getSelector().getMatchLabels()));
        assertThat(agents.getPorts()).extracting(p -> p.getPort().getIntVal() + "/" + p.getProtocol()).containsExactly("9530/TCP", "9531/UDP");

        Path anyone = Files.writeString(tmp.resolve("anyone.yaml"), "networkPolicy: {from: []}\n");
        var open = one(render(t -> t.withValuesFile(anyone)), NetworkPolicy.class).getSpec();
        assertThat(open.getIngress().get(0).getFrom()).as("from: [] lets anyone in").isNullOrEmpty();
    }

    @Test
    void withoutAStateHostPathTheInventoryLivesInMemory() throws Exception {
        List<HasMetadata> objects = render(t -> t.set("stateHostPath", ""));
        DaemonSet ds = one(objects, DaemonSet.class);
        assertThat(ds.getSpec().getTemplate().getSpec().getVolumes()).extracting("name").doesNotContain("state");
        assertThat(agentConfig(objects).has("state_dir")).isFalse();
    }

    @Test
    void runbookLinksFollowTheConfiguredBase() throws Exception {
        PrometheusRule rule = one(render(t -> t.set("prometheusRule.runbookBaseUrl", "https://wiki.example.org/fabricd/")),
                PrometheusRule.class);
        JsonNode groups = YAML.readTree(K8S.asYaml(rule)).at("/spec/groups");
        int alerts = 0;
        for (JsonNode g : groups) {
            for (JsonNode r : g.get("rules")) {
                if (r.has("alert")) {
                    alerts++;
                    assertThat(r.at("/annotations/runbook_url").asText()).as(r.get("alert").asText())
                            .startsWith("https://wiki.example.org/fabricd/").doesNotContain("github.com");
                }
            }
        }
        assertThat(alerts).isGreaterThan(30);
    }

    @Test
    void thePrometheusRuleIsTheAlertsFolderUnchangedAndTheDashboardsAreItsFiles() throws Exception {
        List<HasMetadata> objects = render(t -> t.set("dashboards.enabled", "true"));
        PrometheusRule rule = one(objects, PrometheusRule.class);
        List<JsonNode> expected = new ArrayList<>();
        try (Stream<Path> files = Files.list(REPO.resolve("alerts"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".rules.yaml")).sorted().toList()) {
                YAML.readTree(f.toFile()).get("groups").forEach(expected::add);
            }
        }
        JsonNode rendered = YAML.readTree(K8S.asYaml(rule)).at("/spec/groups");
        assertThat(rendered.size()).isEqualTo(expected.size()).isGreaterThanOrEqualTo(7);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(rendered.get(i).get("name")).isEqualTo(expected.get(i).get("name"));
            assertThat(rendered.get(i).get("rules").size()).isEqualTo(expected.get(i).get("rules").size());
            for (int r = 0; r < expected.get(i).get("rules").size(); r++) {
                assertThat(rendered.get(i).get("rules").get(r).get("expr").asText().strip())
                        .isEqualTo(expected.get(i).get("rules").get(r).get("expr").asText().strip());
            }
        }

        Set<String> dashboards = new TreeSet<>();
        try (Stream<Path> files = Files.list(REPO.resolve("dashboards/grafana"))) {
            files.filter(p -> p.toString().endsWith(".json")).forEach(p -> dashboards.add(p.getFileName().toString()));
        }
        List<ConfigMap> maps = all(objects, ConfigMap.class).stream()
                .filter(m -> "1".equals(m.getMetadata().getLabels().get("grafana_dashboard"))).toList();
        assertThat(maps).hasSize(dashboards.size()).hasSizeGreaterThanOrEqualTo(4);
        for (ConfigMap m : maps) {
            String name = m.getData().keySet().iterator().next();
            assertThat(dashboards).contains(name);
            assertThat(m.getData().get(name).strip())
                    .isEqualTo(Files.readString(REPO.resolve("dashboards/grafana").resolve(name), StandardCharsets.UTF_8).strip());
        }
    }

    @Test
    void everythingOptionalOff(@TempDir Path tmp) throws Exception {
        Path values = Files.writeString(tmp.resolve("off.yaml"), """
                probe: {enabled: false}
                serviceMonitor: {enabled: false}
                prometheusRule: {enabled: false}
                dashboards: {enabled: false}
                rbac: {create: false}
                serviceAccount: {create: false, name: existing-sa}
                mountConfigfs: false
                rdma: {mountDevInfiniband: false}
                """);
        List<HasMetadata> objects = render(t -> t.withValuesFile(values));
        assertThat(objects.stream().map(HasMetadata::getKind).distinct().sorted().toList()).containsExactly("ConfigMap", "DaemonSet",
                "NetworkPolicy", "Service");
        DaemonSet ds = one(objects, DaemonSet.class);
        var pod = ds.getSpec().getTemplate().getSpec();
        assertThat(pod.getServiceAccountName()).isEqualTo("existing-sa");
        assertThat(pod.getContainers().get(0).getVolumeMounts()).extracting("mountPath")
                .doesNotContain("/dev/infiniband", "/sys/kernel/config", "/etc/fabricd/probe");
        assertThat(pod.getContainers().get(0).getPorts()).extracting("name").containsExactly("http");
        JsonNode cfg = agentConfig(objects);
        assertThat(cfg.has("probe")).isFalse();
    }

    @Test
    void jvmFlagsReplaceOrAddToTheImagesDefaults() throws Exception {
        // java itself is the command (no shell in the way); the image's argument file holds the defaults
        Container c = one(render(t -> t), DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getCommand()).containsExactly("/usr/lib/jvm/java-17-openjdk-amd64/bin/java");
        assertThat(c.getArgs()).containsExactly("@/usr/share/fabricd/jvm.options", "-jar", "/usr/share/fabricd/fabricd.jar",
                "run", "--config", "/etc/fabricd/fabricd.yaml");
        c = one(render(t -> t.set("extraJavaOpts", "-Xmn2m -Xmx128m")), DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getArgs()).containsExactly("@/usr/share/fabricd/jvm.options", "-Xmn2m", "-Xmx128m", "-jar",
                "/usr/share/fabricd/fabricd.jar", "run", "--config", "/etc/fabricd/fabricd.yaml");
        c = one(render(t -> t.set("extraJavaOpts", "-Xmn2m").set("javaOpts", "-Xmx64m -XX:+UseSerialGC")), DaemonSet.class)
                .getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getArgs()).containsExactly("-Xmx64m", "-XX:+UseSerialGC", "-Xmn2m", "-jar", "/usr/share/fabricd/fabricd.jar",
                "run", "--config", "/etc/fabricd/fabricd.yaml");
    }

    @Test
    void helmTemplateIsTheSameOnEveryRenderAndHoldsNoKey() throws Exception {
        // Argo CD and Flux render with `helm template`: two renders must be equal, and no key may be
        // in them (the first agent fills the Secret)
        String first = new Helm(CHART).template().withName("fab").withNamespace("monitoring").call();
        String second = new Helm(CHART).template().withName("fab").withNamespace("monitoring").call();
        assertThat(second).isEqualTo(first);
        assertThat(one(render(t -> t), Secret.class).getData()).isNullOrEmpty();
        // an existing Secret (sealed-secrets, external-secrets) is mounted and neither made nor granted
        List<HasMetadata> existing = render(t -> t.set("probe.existingSecret", "fabric-key"));
        assertThat(existing).noneMatch(o -> o instanceof Secret);
        assertThat(agentConfig(existing).at("/probe/key_file").asText()).isEqualTo("/etc/fabricd/probe/key");
        assertThat(agentConfig(existing).at("/probe/kubernetes/key_secret").isMissingNode()).isTrue();
        assertThat(one(existing, Role.class).getRules()).extracting("resources").noneMatch(r -> r.toString().contains("secrets"));
        var pod = one(existing, DaemonSet.class).getSpec().getTemplate().getSpec();
        assertThat(pod.getVolumes()).anySatisfy(v -> assertThat(v.getSecret() != null && "fabric-key".equals(v.getSecret().getSecretName())).isTrue());
    }

    @Test
    void thePriorityClassIsAValue() throws Exception {
        assertThat(one(render(t -> t.set("priorityClassName", "system-node-critical")), DaemonSet.class).getSpec().getTemplate().getSpec()
                .getPriorityClassName()).isEqualTo("system-node-critical");
        assertThat(one(render(t -> t.set("priorityClassName", "fabric-agents")), DaemonSet.class).getSpec().getTemplate().getSpec()
                .getPriorityClassName()).isEqualTo("fabric-agents");
    }

    @Test
    void fullPcieConfigSpaceIsAnExplicitCapability() throws Exception {
        var sc = one(render(t -> t), DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0).getSecurityContext();
        assertThat(sc.getCapabilities().getAdd()).containsExactly("IPC_LOCK");
        sc = one(render(t -> t.set("pcie.fullConfigSpace", "true")), DaemonSet.class).getSpec().getTemplate().getSpec().getContainers().get(0)
                .getSecurityContext();
        assertThat(sc.getCapabilities().getAdd()).containsExactly("IPC_LOCK", "SYS_ADMIN");
        assertThat(sc.getCapabilities().getDrop()).containsExactly("ALL");
    }

    @Test
    void deviceResourceGivenKeyCustomConfigAndNonRoot(@TempDir Path tmp) throws Exception {
        Path values = Files.writeString(tmp.resolve("custom.yaml"), """
                fullnameOverride: fabric
                port: 9600
                rdma: {devicePluginResource: rdma/rdma_shared_device_a}
                probe: {key: "0123456789abcdef0123", udpPort: 9700, rackLabels: [example.com/tor]}
                config:
                  collection: {interval: 30s}
                  diagnosis: {roce: {priority: 3}}
                securityContext:
                  runAsUser: 65534
                  runAsNonRoot: true
                  readOnlyRootFilesystem: true
                  allowPrivilegeEscalation: false
                  capabilities: {drop: [ALL]}
                serviceMonitor: {labels: {release: kube-prometheus-stack}}
                """);
        List<HasMetadata> objects = render(t -> t.withValuesFile(values));
        DaemonSet ds = one(objects, DaemonSet.class);
        Container c = ds.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(c.getResources().getLimits()).containsKey("rdma/rdma_shared_device_a").containsKey("memory");
        assertThat(c.getResources().getLimits().get("rdma/rdma_shared_device_a").toString()).isEqualTo("1");
        assertThat(c.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(c.getSecurityContext().getRunAsUser()).isEqualTo(65534L);
        // the key's Secret readable through the pod's fsGroup (0440), as the key's rule allows; root's alone otherwise
        assertThat(ds.getSpec().getTemplate().getSpec().getSecurityContext().getFsGroup()).isEqualTo(65534L);
        assertThat(ds.getSpec().getTemplate().getSpec().getVolumes()).filteredOn(v -> v.getName().equals("probe-key")).singleElement()
                .satisfies(v -> assertThat(v.getSecret().getDefaultMode()).isEqualTo(0440));
        var root = one(render(t -> t.set("probe.key", "0123456789abcdef0123")), DaemonSet.class).getSpec().getTemplate().getSpec();
        assertThat(root.getSecurityContext().getFsGroup()).isNull();
        assertThat(root.getVolumes()).filteredOn(v -> v.getName().equals("probe-key")).singleElement()
                .satisfies(v -> assertThat(v.getSecret().getDefaultMode()).isEqualTo(0400));
        assertThat(c.getPorts()).extracting("containerPort").containsExactly(9600, 9700);
        assertThat(new String(Base64.getDecoder().decode(one(objects, Secret.class).getData().get("key")), StandardCharsets.UTF_8))
                .isEqualTo("0123456789abcdef0123");
        JsonNode cfg = agentConfig(objects);
        assertThat(cfg.get("listen").asText()).isEqualTo("0.0.0.0:9600");
        assertThat(cfg.at("/collection/interval").asText()).isEqualTo("30s");
        assertThat(cfg.at("/diagnosis/roce/priority").asInt()).isEqualTo(3);
        assertThat(cfg.at("/probe/udp_port").asInt()).isEqualTo(9700);
        assertThat(cfg.at("/probe/kubernetes/service").asText()).isEqualTo("fabric");
        assertThat(cfg.at("/probe/kubernetes/rack_labels/0").asText()).isEqualTo("example.com/tor");
        assertThat(one(objects, ServiceMonitor.class).getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
    }

    @Test
    void tlsBasicAuthAndANetworkPolicy(@TempDir Path tmp) throws Exception {
        Path values = Files.writeString(tmp.resolve("tls.yaml"), """
                web: {existingSecret: fabricd-web, scheme: https}
                serviceMonitor:
                  tlsConfig: {ca: {secret: {name: fabricd-scrape, key: ca.crt}}, serverName: fabricd}
                  basicAuth: {username: {name: fabricd-scrape, key: user}, password: {name: fabricd-scrape, key: password}}
                networkPolicy:
                  enabled: true
                  from: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}]
                """);
        List<HasMetadata> objects = render(t -> t.withValuesFile(values));
        DaemonSet ds = one(objects, DaemonSet.class);
        var pod = ds.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().get(0);
        assertThat(c.getReadinessProbe().getHttpGet().getScheme()).isEqualTo("HTTPS");
        assertThat(c.getLivenessProbe().getHttpGet().getScheme()).isEqualTo("HTTPS");
        assertThat(c.getVolumeMounts()).anySatisfy(m -> {
            assertThat(m.getMountPath()).isEqualTo("/etc/fabricd/web");
            assertThat(m.getReadOnly()).isTrue();
        });
        assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("web")).singleElement().satisfies(v -> {
            assertThat(v.getSecret().getSecretName()).isEqualTo("fabricd-web");
            assertThat(v.getSecret().getDefaultMode()).isEqualTo(0400);
        });
        assertThat(agentConfig(objects).at("/http/web_config_file").asText()).isEqualTo("/etc/fabricd/web/web.yml");
        var ep = one(objects, ServiceMonitor.class).getSpec().getEndpoints().get(0);
        assertThat(ep.getScheme()).isEqualTo("https");
        assertThat(ep.getTlsConfig().getServerName()).isEqualTo("fabricd");
        assertThat(ep.getBasicAuth().getPassword().getKey()).isEqualTo("password");
        var np = one(objects, NetworkPolicy.class).getSpec();
        assertThat(np.getPodSelector().getMatchLabels()).isEqualTo(ds.getSpec().getSelector().getMatchLabels());
        assertThat(np.getIngress()).hasSize(2);
        assertThat(np.getIngress().get(0).getFrom().get(0).getNamespaceSelector().getMatchLabels())
                .containsEntry("kubernetes.io/metadata.name", "monitoring");
        assertThat(np.getIngress().get(1).getPorts()).extracting(p -> p.getProtocol()).containsExactly("TCP", "UDP");
    }

    /**
     * Secure without bringing files: cert-manager issues the serving certificate (from a CA the
     * chart makes, or the user's issuer), the chart writes web.yml with it and a basic-auth user,
     * and the probes and the ServiceMonitor follow (HTTPS, the CA, the Service name, the user's
     * Secret). The NetworkPolicy is on by default and takes the nodes' ranges for the agents.
     */
    @Test
    void certManagerTlsAndBasicAuthFromValues(@TempDir Path tmp) throws Exception {
        String hash = "$2y$10$" + "a".repeat(53);
        Path values = Files.writeString(tmp.resolve("secure.yaml"), """
                web:
                  certManager: {enabled: true}
                  basicAuth: {username: prometheus, bcryptHash: "%s", secret: fabricd-scrape}
                networkPolicy: {agentCidrs: [10.0.0.0/16]}
                """.formatted(hash));
        List<HasMetadata> objects = render(t -> t.withValuesFile(values));
        List<GenericKubernetesResource> cm = objects.stream().filter(GenericKubernetesResource.class::isInstance)
                .map(GenericKubernetesResource.class::cast).toList();
        assertThat(cm).extracting(o -> o.getKind() + "/" + o.getMetadata().getName()).containsExactlyInAnyOrder(
                "Issuer/fab-fabricd-selfsigned", "Certificate/fab-fabricd-ca", "Issuer/fab-fabricd-ca", "Certificate/fab-fabricd-tls");
        JsonNode cert = YAML.valueToTree(named(cm, "fab-fabricd-tls").getAdditionalProperties());
        assertThat(cert.at("/spec/secretName").asText()).isEqualTo("fab-fabricd-tls");
        assertThat(cert.at("/spec/dnsNames/0").asText()).isEqualTo("fab-fabricd.monitoring.svc");
        assertThat(cert.at("/spec/issuerRef/name").asText()).isEqualTo("fab-fabricd-ca");
        assertThat(YAML.valueToTree(named(cm, "fab-fabricd-ca").getAdditionalProperties()).at("/spec/isCA").asBoolean()).isTrue();

        Secret web = objects.stream().filter(o -> o instanceof Secret && o.getMetadata().getName().equals("fab-fabricd-web"))
                .map(Secret.class::cast).findFirst().orElseThrow();
        JsonNode webYml = YAML.readTree(web.getStringData().get("web.yml"));
        assertThat(webYml.at("/tls_server_config/cert_file").asText()).isEqualTo("/etc/fabricd/tls/tls.crt");
        assertThat(webYml.at("/basic_auth_users/prometheus").asText()).isEqualTo(hash);
        assertThat(agentConfig(objects).at("/http/web_config_file").asText()).isEqualTo("/etc/fabricd/web/web.yml");

        DaemonSet ds = one(objects, DaemonSet.class);
        var pod = ds.getSpec().getTemplate().getSpec();
        Container c = pod.getContainers().get(0);
        assertThat(c.getReadinessProbe().getHttpGet().getScheme()).isEqualTo("HTTPS");
        assertThat(c.getVolumeMounts()).extracting("mountPath").contains("/etc/fabricd/web", "/etc/fabricd/tls");
        assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("tls")).singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("fab-fabricd-tls"));
        assertThat(pod.getVolumes()).filteredOn(v -> v.getName().equals("web")).singleElement()
                .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("fab-fabricd-web"));
        assertThat(ds.getSpec().getTemplate().getMetadata().getAnnotations()).containsKey("checksum/web");

        var ep = one(objects, ServiceMonitor.class).getSpec().getEndpoints().get(0);
        assertThat(ep.getScheme()).isEqualTo("https");
        assertThat(ep.getTlsConfig().getServerName()).isEqualTo("fab-fabricd.monitoring.svc");
        assertThat(ep.getTlsConfig().ca.secret.name).isEqualTo("fab-fabricd-tls");
        assertThat(ep.getBasicAuth().username.name).isEqualTo("fabricd-scrape");
        assertThat(ep.getBasicAuth().getPassword().getKey()).isEqualTo("password");

        var np = one(objects, NetworkPolicy.class).getSpec();
        assertThat(np.getIngress().get(0).getFrom()).singleElement() // the default: Prometheus pods
                .satisfies(f -> assertThat(f.getPodSelector().getMatchLabels()).containsEntry("app.kubernetes.io/name", "prometheus"));
        assertThat(np.getIngress().get(1).getFrom()).extracting(f -> f.getIpBlock() == null ? null : f.getIpBlock().getCidr())
                .containsExactly(null, "10.0.0.0/16");

        // the user's issuer: no CA of the chart's
        List<HasMetadata> own = render(t -> t.set("web.certManager.enabled", "true").set("web.certManager.issuerRef.name", "corp-ca")
                .set("web.certManager.issuerRef.kind", "ClusterIssuer"));
        assertThat(own.stream().filter(GenericKubernetesResource.class::isInstance).map(HasMetadata::getMetadata)
                .map(m -> m.getName()).toList()).containsExactly("fab-fabricd-tls");

        assertThatThrownBy(() -> render(t -> t.set("web.basicAuth.username", "prometheus"))).hasMessageContaining("bcryptHash");
        assertThatThrownBy(() -> render(t -> t.set("web.basicAuth.username", "prometheus").set("web.basicAuth.bcryptHash", hash)))
                .hasMessageContaining("web.basicAuth.secret");
        assertThatThrownBy(() -> render(t -> t.set("web.certManager.enabled", "true").set("web.existingSecret", "mine")))
                .hasMessageContaining("web.existingSecret");
        assertThatThrownBy(() -> render(t -> t.set("web.basicAuth.bcryptHash", "plain"))).hasMessageContaining("bcryptHash");
        // bcrypt's costs are 4 to 31, and the agent takes at most 12 (docs/security.md): refused at render, not at the agents' start
        for (String cost : new String[] {"03", "13", "31", "99"}) {
            assertThatThrownBy(() -> render(t -> t.set("web.certManager.enabled", "true").set("web.basicAuth.username", "prometheus")
                    .set("web.basicAuth.secret", "s").set("web.basicAuth.bcryptHash", hash.replace("$10$", "$" + cost + "$")))).as(cost)
                    .hasMessageContaining("bcryptHash");
        }
        // a hash without a user would silently mean no auth beside TLS
        assertThatThrownBy(() -> render(t -> t.set("web.certManager.enabled", "true").set("web.basicAuth.bcryptHash", hash)))
                .hasMessageContaining("needs web.basicAuth.username");
        assertThatThrownBy(() -> render(t -> t.set("web.certManager.enabled", "true").set("kubeRbacProxy.enabled", "true")))
                .hasMessageContaining("choose one");
    }

    /**
     * kube-rbac-proxy in front of the HTTP port: the agent on loopback, its UDP responder and peer
     * endpoint requests still reachable, the kubelet's probes and the probe endpoint through the
     * proxy without a token, Prometheus with its own token, and the RBAC the proxy needs.
     */
    @Test
    void kubeRbacProxyFrontsTheHttpPort() throws Exception {
        List<HasMetadata> objects = render(t -> t.set("kubeRbacProxy.enabled", "true"));
        var pod = one(objects, DaemonSet.class).getSpec().getTemplate().getSpec();
        assertThat(pod.getAutomountServiceAccountToken()).isTrue();
        assertThat(pod.getContainers()).extracting(Container::getName).containsExactly("fabricd", "kube-rbac-proxy");
        Container agent = pod.getContainers().get(0);
        Container proxy = pod.getContainers().get(1);
        assertThat(agent.getPorts()).extracting("name").containsExactly("probe");
        assertThat(proxy.getPorts()).singleElement().satisfies(p -> {
            assertThat(p.getName()).isEqualTo("http");
            assertThat(p.getContainerPort()).isEqualTo(9530);
        });
        assertThat(proxy.getArgs()).contains("--secure-listen-address=0.0.0.0:9530", "--upstream=http://127.0.0.1:9532/",
                "--ignore-paths=/healthz,/readyz,/api/v1/probe/endpoint,/api/v1/bandwidth/start,/api/v1/bandwidth/go,"
                        + "/api/v1/bandwidth/stop,/api/v1/preflight/state,/api/v1/preflight/probe,/api/v1/preflight/bandwidth");
        assertThat(proxy.getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(proxy.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
        assertThat(agent.getReadinessProbe().getHttpGet().getScheme()).isEqualTo("HTTPS");
        assertThat(agent.getReadinessProbe().getHttpGet().getPort().getIntVal()).isEqualTo(9530);
        JsonNode cfg = agentConfig(objects);
        assertThat(cfg.at("/listen").asText()).isEqualTo("127.0.0.1:9532");
        assertThat(cfg.at("/probe/udp_host").asText()).isEqualTo("0.0.0.0");
        assertThat(cfg.at("/probe/endpoint_tls").asBoolean()).isTrue();
        var ep = one(objects, ServiceMonitor.class).getSpec().getEndpoints().get(0);
        assertThat(ep.getScheme()).isEqualTo("https");
        assertThat(ep.getBearerTokenFile()).isEqualTo("/var/run/secrets/kubernetes.io/serviceaccount/token");
        assertThat(ep.getTlsConfig().insecureSkipVerify).isTrue();
        List<ClusterRole> roles = objects.stream().filter(ClusterRole.class::isInstance).map(ClusterRole.class::cast).toList();
        assertThat(roles).anySatisfy(r -> assertThat(r.getRules()).anySatisfy(rule -> {
            assertThat(rule.getResources()).containsExactly("subjectaccessreviews");
            assertThat(rule.getVerbs()).containsExactly("create");
        }));
        assertThat(roles).anySatisfy(r -> assertThat(r.getRules()).anySatisfy(rule ->
                assertThat(rule.getNonResourceURLs()).contains("/metrics")));
        // the token is mounted for the proxy even where discovery is off
        var noProbe = one(render(t -> t.set("kubeRbacProxy.enabled", "true").set("probe.enabled", "false")), DaemonSet.class)
                .getSpec().getTemplate().getSpec();
        assertThat(noProbe.getAutomountServiceAccountToken()).isTrue();
        assertThat(noProbe.getContainers().get(0).getPorts()).isNullOrEmpty();
        assertThatThrownBy(() -> render(t -> t.set("kubeRbacProxy.enabled", "true").set("web.existingSecret", "w")))
                .hasMessageContaining("choose one");
        assertThatThrownBy(() -> render(t -> t.set("kubeRbacProxy.enabled", "true").set("kubeRbacProxy.upstreamPort", "9530")))
                .hasMessageContaining("upstreamPort must differ");
    }

    @Test
    void seccompRuntimeDefaultAndAnApiTokenOnlyForDiscovery() throws Exception {
        var pod = one(render(t -> t), DaemonSet.class).getSpec().getTemplate().getSpec();
        assertThat(pod.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");
        assertThat(pod.getAutomountServiceAccountToken()).isTrue();
        assertThat(one(render(t -> t), ServiceMonitor.class).getSpec().getEndpoints().get(0).getScheme()).isEqualTo("http");
        var off = one(render(t -> t.set("probe.enabled", "false")), DaemonSet.class).getSpec().getTemplate().getSpec();
        assertThat(off.getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void badValuesAreRefusedWithTheReason(@TempDir Path tmp) throws Exception {
        assertThatThrownBy(() -> render(t -> t.set("probe.key", "short"))).hasMessageContaining("probe.key must be at least 16 bytes");
        Path typo = Files.writeString(tmp.resolve("typo.yaml"), "serviceMonitr: {enabled: false}\n");
        assertThatThrownBy(() -> render(t -> t.withValuesFile(typo))).hasMessageContaining("serviceMonitr");
        assertThatThrownBy(() -> render(t -> t.set("port", "0"))).hasMessageContaining("port");
        assertThatThrownBy(() -> render(t -> t.set("web.scheme", "tls"))).hasMessageContaining("scheme");
    }
}
