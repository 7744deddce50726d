package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;

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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/preflight-job.yaml: every document a valid object of its kind (no unknown
 * field), the names it joins consistent (service account, role, the nodes ConfigMap, the chart's
 * probe key Secret, the image of this release), and its gate script run with a fake fabricd: the
 * result ConfigMap it writes, the cordon/taint commands printed and not run, the Job's exit code.
 */
class PreflightJobTest {
    static final Path JOB = Paths.repo().resolve("deploy/kubernetes/preflight-job.yaml");
    static final String JAVA = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";

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
        // the role: create configmaps, and change only the result
        for (PolicyRule r : role.getRules()) {
            assertThat(r.getResources()).containsExactly("configmaps");
            if (!r.getVerbs().equals(List.of("create"))) {
                assertThat(r.getResourceNames()).containsExactly("fabricd-preflight-result");
            }
        }
        // the nodes ConfigMap and the chart's probe key Secret, as mounted where the script reads them
        Container gate = pod.getInitContainers().get(0);
        String script = gate.getArgs().get(0);
        assertThat(script).contains("--nodes @/etc/fabricd/preflight/nodes", "--key-file /etc/fabricd/probe/key");
        assertThat(mount(gate, "/etc/fabricd/preflight")).isEqualTo("nodes");
        assertThat(volume(pod, "nodes").getConfigMap().getName()).isEqualTo(HelmChartTest.one(o, ConfigMap.class).getMetadata().getName());
        assertThat(HelmChartTest.one(o, ConfigMap.class).getData().get("nodes")).contains("gpu-node-001");
        assertThat(mount(gate, "/etc/fabricd/probe")).isEqualTo("probe-key");
        List<Secret> secrets = HelmChartTest.all(HelmChartTest.render(t -> t.withName("fabricd")), Secret.class).stream()
                .filter(s -> s.getMetadata().getName().endsWith("-probe-key")).toList();
        assertThat(secrets).singleElement().satisfies(s -> assertThat(s.getMetadata().getName())
                .isEqualTo(volume(pod, "probe-key").getSecret().getSecretName()));
        // this release's image, as the chart's appVersion
        String chart = Files.readString(HelmChartTest.CHART.resolve("Chart.yaml"));
        String version = chart.replaceFirst("(?s).*\nappVersion: \"([^\"]+)\".*", "$1");
        assertThat(gate.getImage()).isEqualTo("ghcr.io/fabricd/fabricd:" + version);
        assertThat(pod.getContainers().get(0).getImage()).isEqualTo(gate.getImage());
        // cordon and taint are printed, never run
        assertThat(script.lines().filter(l -> l.strip().startsWith("kubectl"))).isEmpty();
        assertThat(pod.getInitContainers().get(1).getCommand()).containsExactly("kubectl", "apply", "--cache-dir=/tmp/kube", "-f",
                "/work/configmap.yaml");
    }

    @Test
    void theGateScriptWritesTheResultAndPrintsTheCommands(@TempDir Path tmp) throws Exception {
        Job job = HelmChartTest.one(objects(), Job.class);
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path fake = tmp.resolve("java");
        Files.writeString(fake, String.join("\n", "#!/bin/sh",
                "echo \"$@\" >" + tmp.resolve("args"),
                "while [ $# -gt 0 ]; do",
                "  case $1 in",
                "    --exclude-file) printf 'gpu-node-[002,004]\\n' >\"$2\"; shift ;;",
                "    --exclude-list) printf 'gpu-node-002\\tgpu-node-002: critical finding pfc_missing: fix PFC\\n"
                        + "gpu-node-004\\tgpu-node-004: 12 %% probe loss\\n' >\"$2\"; shift ;;",
                "  esac",
                "  shift",
                "done",
                "echo '{\"verdict\" : \"exclude\",'",
                "echo '  \"excluded\" : \"gpu-node-[002,004]\"}'",
                "echo 'fabricd preflight: state: 4 of 4 agents answered' >&2",
                "exit 1", ""));
        fake.toFile().setExecutable(true);
        String script = pod.getInitContainers().get(0).getArgs().get(0).replace(JAVA, fake.toString()).replace("/work", work.toString());
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true);
        pb.environment().put("TIMEOUT", "60s");
        pb.environment().put("PREFLIGHT_ARGS", "--bandwidth none");
        Process p = pb.start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(log).isZero();
        assertThat(Files.readString(tmp.resolve("args"))).contains("preflight --nodes @/etc/fabricd/preflight/nodes")
                .contains("--timeout 60s").contains("--bandwidth none");
        assertThat(log).contains("fabricd preflight: exclude: gpu-node-[002,004]")
                .contains("kubectl cordon gpu-node-002").contains("kubectl taint nodes gpu-node-004 fabricd.io/preflight=excluded:NoSchedule");
        ConfigMap result = (ConfigMap) HelmChartTest.K8S.unmarshal(Files.readString(work.resolve("configmap.yaml")));
        assertThat(result.getMetadata().getName()).isEqualTo("fabricd-preflight-result");
        assertThat(result.getData()).containsEntry("exit_code", "1").containsEntry("excluded", "gpu-node-[002,004]\n");
        assertThat(result.getData().get("excluded.tsv").lines()).containsExactly("gpu-node-002\tgpu-node-002: critical finding pfc_missing: "
                + "fix PFC", "gpu-node-004\tgpu-node-004: 12 % probe loss");
        assertThat(result.getData().get("commands")).contains("# gpu-node-002: critical finding", "kubectl cordon gpu-node-004");
        assertThat(new ObjectMapper().readTree(result.getData().get("verdict.json")).get("excluded").asText()).isEqualTo("gpu-node-[002,004]");

        // the Job's last container: its exit code is the gate's (1: some excluded, the Job fails)
        String resultCmd = pod.getContainers().get(0).getCommand().get(2).replace("/work", work.toString());
        Process r = new ProcessBuilder("sh", "-c", resultCmd).redirectErrorStream(true).start();
        String out = new String(r.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(r.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(r.exitValue()).isEqualTo(1);
        assertThat(out).contains("exclude: gpu-node-[002,004]");
    }

    private static String mount(Container c, String path) {
        return c.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(path)).map(VolumeMount::getName).findFirst().orElse(null);
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst().orElseThrow();
    }
}
