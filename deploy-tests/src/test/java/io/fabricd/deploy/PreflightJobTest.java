package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * deploy/kubernetes/preflight-job.yaml: every document a valid object of its kind (no unknown
 * field), the names it joins consistent (service account, role, the nodes ConfigMap, the chart's
 * probe key Secret), one image, the one bin/dist builds as docs/install-kubernetes.md pushes it, its
 * arguments ones `fabricd preflight` takes, and the documented wait returning when the Job is over
 * either way. What the command stores in the result ConfigMap is the agent module's
 * PreflightResultConfigMapTest's.
 */
class PreflightJobTest {
    static final Path JOB = Paths.repo().resolve("deploy/kubernetes/preflight-job.yaml");
    static final Path GUIDE = Paths.repo().resolve("docs/install-kubernetes.md");
    static final Path GUIDE_PREFLIGHT = Paths.repo().resolve("docs/preflight.md");

    static List<HasMetadata> objects() throws IOException {
        List<HasMetadata> out = new ArrayList<>();
        for (String doc : Files.readString(JOB).split("(?m)^---\\s*$")) {
            if (doc.lines().allMatch(l -> l.isBlank() || l.startsWith("#"))) {
                continue;
            }
            HasMetadata h = (HasMetadata) HelmChartTest.K8S.unmarshal(doc);
            assertThat(HelmChartTest.unknownFields(h)).as(h.getKind()).isEmpty();
            out.add(h);
        }
        return out;
    }

    static PodSpec pod() throws IOException {
        return HelmChartTest.one(objects(), Job.class).getSpec().getTemplate().getSpec();
    }

    @Test
    void theObjectsFitTogether() throws IOException {
        List<HasMetadata> o = objects();
        assertThat(o).extracting(HasMetadata::getKind).containsExactly("ConfigMap", "ServiceAccount", "Role", "RoleBinding", "Job");
        Job job = HelmChartTest.one(o, Job.class);
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        assertThat(job.getSpec().getBackoffLimit()).isZero();
        assertThat(pod.getRestartPolicy()).isEqualTo("Never");
        assertThat(pod.getHostNetwork()).as("the agents listen on the host network").isTrue();
        assertThat(pod.getServiceAccountName()).isEqualTo(HelmChartTest.one(o, ServiceAccount.class).getMetadata().getName());
        RoleBinding rb = HelmChartTest.one(o, RoleBinding.class);
        Role role = HelmChartTest.one(o, Role.class);
        assertThat(rb.getRoleRef().getName()).isEqualTo(role.getMetadata().getName());
        assertThat(rb.getSubjects()).singleElement().satisfies(s -> assertThat(s.getName()).isEqualTo(pod.getServiceAccountName()));
        // the role: create configmaps, and read or delete only the result (replaced whole)
        for (PolicyRule r : role.getRules()) {
            assertThat(r.getResources()).containsExactly("configmaps");
            if (!r.getVerbs().equals(List.of("create"))) {
                assertThat(r.getResourceNames()).containsExactly("fabricd-preflight-result");
                assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "delete");
            }
        }
        // one container, no init containers: nothing but the gate runs
        assertThat(pod.getInitContainers()).isEmpty();
        Container gate = pod.getContainers().get(0);
        assertThat(pod.getContainers()).hasSize(1);
        List<String> args = gate.getArgs();
        assertThat(gate.getCommand()).as("the image's entry point, fabricd").isNullOrEmpty();
        assertThat(args).startsWith("preflight").containsSequence("--nodes", "@/etc/fabricd/preflight/nodes")
                .containsSequence("--key-file", "/etc/fabricd/probe/key").containsSequence("--result-configmap", "fabricd-preflight-result");
        // the nodes ConfigMap and the chart's probe key Secret, as mounted where the gate reads them
        assertThat(mount(gate, "/etc/fabricd/preflight")).isEqualTo("nodes");
        assertThat(volume(pod, "nodes").getConfigMap().getName()).isEqualTo(HelmChartTest.one(o, ConfigMap.class).getMetadata().getName());
        assertThat(HelmChartTest.one(o, ConfigMap.class).getData().get("nodes")).contains("gpu-node-001");
        assertThat(mount(gate, "/etc/fabricd/probe")).isEqualTo("probe-key");
        List<Secret> secrets = HelmChartTest.all(HelmChartTest.render(t -> t.withName("fabricd")), Secret.class).stream()
                .filter(s -> s.getMetadata().getName().endsWith("-probe-key")).toList();
        assertThat(secrets).singleElement().satisfies(s -> assertThat(s.getMetadata().getName())
                .isEqualTo(volume(pod, "probe-key").getSecret().getSecretName()));
        // the key as its rule says (group-readable, nobody else) for the pod's non-root user and group
        assertThat(volume(pod, "probe-key").getSecret().getDefaultMode()).isEqualTo(0440);
        assertThat(pod.getSecurityContext().getFsGroup()).isEqualTo(pod.getSecurityContext().getRunAsGroup());
        assertThat(pod.getSecurityContext().getRunAsNonRoot()).isTrue();
    }

    /** The image is the one the guide builds and pushes (bin/dist's OCI archive, skopeo copy), of this release; no other image. */
    @Test
    void theJobRunsTheImageTheGuidePushes() throws IOException {
        String chart = Files.readString(HelmChartTest.CHART.resolve("Chart.yaml"));
        String version = chart.replaceFirst("(?s).*\nappVersion: \"([^\"]+)\".*", "$1");
        Matcher push = Pattern.compile("skopeo copy oci-archive:dist/fabricd-image-([^ ]+)\\.oci\\.tar docker://(\\S+)").matcher(Files.readString(GUIDE));
        assertThat(push.find()).as("the guide's skopeo copy").isTrue();
        assertThat(push.group(1)).isEqualTo(version);
        assertThat(push.group(2)).isEqualTo("registry.example.com/fabricd:" + version);
        PodSpec pod = pod();
        assertThat(pod.getContainers()).extracting(Container::getImage).containsOnly(push.group(2));
        assertThat(Files.readString(JOB)).doesNotContain("kubectl:", "ghcr.io");
    }

    /** Every option of the Job's arguments is one the command takes (its --help, as the release's jar prints it). */
    @Test
    void theArgumentsAreOptionsOfFabricdPreflight() throws Exception {
        Process p = new ProcessBuilder(Paths.repo().resolve("bin/fabricd").toString(), "preflight", "--help").redirectErrorStream(true).start();
        String help = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(help).isZero();
        for (String a : pod().getContainers().get(0).getArgs()) {
            if (a.startsWith("--")) {
                assertThat(help).as(a).containsPattern("(?m)^\\s+(-\\w, )?" + Pattern.quote(a) + "[ =,]");
            }
        }
    }

    /**
     * The documented wait: kubectl's JSONPath over the Job's conditions, evaluated here for the
     * filter form it uses ({@code {.status.conditions[?(@.type=="X")].status}}, concatenated), is
     * "True" for a Job that completed and for one that failed (Kubernetes 1.31 adds
     * SuccessCriteriaMet and FailureTarget first), and not while it runs.
     */
    @Test
    void theDocumentedWaitReturnsOnSuccessAndOnFailure() throws Exception {
        Matcher m = Pattern.compile("--for=jsonpath='([^']+)=True'").matcher(Files.readString(JOB));
        assertThat(m.find()).as("the wait in the Job's header").isTrue();
        String expr = m.group(1);
        assertThat(Files.readString(GUIDE_PREFLIGHT)).contains(m.group(0));
        String complete = "{\"status\":{\"conditions\":[{\"type\":\"SuccessCriteriaMet\",\"status\":\"True\"},{\"type\":\"Complete\",\"status\":\"True\"}]}}";
        String failed = "{\"status\":{\"conditions\":[{\"type\":\"FailureTarget\",\"status\":\"True\"},{\"type\":\"Failed\",\"status\":\"True\"}]}}";
        String running = "{\"status\":{\"active\":1}}";
        String failing = "{\"status\":{\"conditions\":[{\"type\":\"FailureTarget\",\"status\":\"True\"}]}}";
        assertThat(jsonPath(expr, complete)).isEqualTo("True");
        assertThat(jsonPath(expr, failed)).isEqualTo("True");
        assertThat(jsonPath(expr, running)).isEmpty();
        assertThat(jsonPath(expr, failing)).as("its pod not yet gone").isEmpty();
    }

    /** kubectl's template of concatenated {.status.conditions[?(@.type=="X")].status} parts, over a Job's JSON. */
    private static String jsonPath(String template, String json) throws IOException {
        Matcher part = Pattern.compile("\\{\\.status\\.conditions\\[\\?\\(@\\.type==\"(\\w+)\"\\)\\]\\.status\\}").matcher(template);
        JsonNode conditions = new ObjectMapper().readTree(json).path("status").path("conditions");
        StringBuilder out = new StringBuilder();
        int end = 0;
        while (part.find()) {
            assertThat(part.start()).as("only condition parts in " + template).isEqualTo(end);
            end = part.end();
            for (JsonNode c : conditions) {
                if (c.path("type").asText().equals(part.group(1))) {
                    out.append(c.path("status").asText());
                }
            }
        }
        assertThat(end).as("only condition parts in " + template).isEqualTo(template.length()).isPositive();
        return out.toString();
    }

    private static String mount(Container c, String path) {
        return c.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(path)).map(VolumeMount::getName).findFirst().orElse(null);
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst().orElseThrow();
    }
}
