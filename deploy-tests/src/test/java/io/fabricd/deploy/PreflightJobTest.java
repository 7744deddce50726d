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
        // the role: create configmaps, and read or delete only the result (what kubectl replace --force does)
        for (PolicyRule r : role.getRules()) {
            assertThat(r.getResources()).containsExactly("configmaps");
            if (!r.getVerbs().equals(List.of("create"))) {
                assertThat(r.getResourceNames()).containsExactly("fabricd-preflight-result");
                assertThat(r.getVerbs()).containsExactlyInAnyOrder("get", "delete");
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
        // replaced whole: a client-side apply would copy the result into an annotation of 256 KiB at most
        assertThat(pod.getInitContainers().get(1).getCommand()).containsExactly("kubectl", "replace", "--force", "--cache-dir=/tmp/kube",
                "-f", "/work/configmap.yaml");
    }

    record Gate(String log, Path work) {
    }

    /** The gate step's script with a fake java that writes the verdict pretty-printed, FAKE_BIG bytes of padding in it. */
    private static Gate gate(Path tmp, String big) throws Exception {
        Job job = HelmChartTest.one(objects(), Job.class);
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        Path work = Files.createDirectories(tmp.resolve("work"));
        Path fake = tmp.resolve("java");
        Files.writeString(fake, String.join("\n", "#!/bin/sh",
                "echo \"$@\" >" + tmp.resolve("args"),
                "while [ $# -gt 0 ]; do",
                "  case $1 in",
                "    --exclude-file) printf 'gpu-node-[002-004]\\n' >\"$2\"; shift ;;",
                "    --exclude-list) printf 'gpu-node-002\\texclude\\tgpu-node-002: critical finding pfc_missing: fix PFC\\n"
                        + "gpu-node-003\\tunknown\\tgpu-node-003: agent unreachable: is fabricd running there?\\n"
                        + "gpu-node-004\\texclude\\tgpu-node-004: 12 %% probe loss\\n' >\"$2\"; shift ;;",
                "  esac",
                "  shift",
                "done",
                "echo '{'",
                "echo '  \"verdict\" : \"exclude\",'",
                "echo '  \"nodes\" : [ {'",
                "echo '    \"node\" : \"gpu-node-002\", \"reasons\" : [ \"a: b, c\" ]'",
                "echo '  } ],'",
                "printf '  \"padding\" : \"'", "head -c \"${FAKE_BIG:-0}\" /dev/zero | tr '\\0' x", "printf '\",\\n'",
                "echo '  \"excluded\" : \"gpu-node-[002-004]\"'",
                "echo '}'",
                "echo 'fabricd preflight: state: 3 of 4 agents answered' >&2",
                "exit 1", ""));
        fake.toFile().setExecutable(true);
        String script = pod.getInitContainers().get(0).getArgs().get(0).replace(JAVA, fake.toString()).replace("/work", work.toString());
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true);
        pb.environment().put("TIMEOUT", "60s");
        pb.environment().put("PREFLIGHT_ARGS", "--bandwidth none");
        pb.environment().put("FAKE_BIG", big);
        Process p = pb.start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(log).isZero();
        return new Gate(log, work);
    }

    @Test
    void theGateScriptWritesTheResultAndPrintsTheCommands(@TempDir Path tmp) throws Exception {
        Gate g = gate(tmp, "0");
        Path work = g.work();
        String log = g.log();
        assertThat(Files.readString(tmp.resolve("args"))).contains("preflight --nodes @/etc/fabricd/preflight/nodes")
                .contains("--timeout 60s").contains("--bandwidth none");
        assertThat(log).contains("fabricd preflight: exclude: gpu-node-[002-004]")
                .contains("kubectl cordon gpu-node-002").contains("kubectl taint nodes gpu-node-004 fabricd.io/preflight=excluded:NoSchedule")
                .doesNotContain("kubectl cordon gpu-node-003");
        ConfigMap result = (ConfigMap) HelmChartTest.K8S.unmarshal(Files.readString(work.resolve("configmap.yaml")));
        assertThat(result.getMetadata().getName()).isEqualTo("fabricd-preflight-result");
        assertThat(result.getData()).containsEntry("exit_code", "1").containsEntry("excluded", "gpu-node-[002-004]\n");
        assertThat(result.getData().get("excluded.tsv").lines()).containsExactly(
                "gpu-node-002\texclude\tgpu-node-002: critical finding pfc_missing: fix PFC",
                "gpu-node-003\tunknown\tgpu-node-003: agent unreachable: is fabricd running there?",
                "gpu-node-004\texclude\tgpu-node-004: 12 % probe loss");
        // unknown nodes are named in the commands, never cordoned or tainted
        assertThat(result.getData().get("commands")).contains("# gpu-node-002: gpu-node-002: critical finding", "kubectl cordon gpu-node-004",
                "# gpu-node-003: unknown, left alone: gpu-node-003: agent unreachable").doesNotContain("cordon gpu-node-003");
        // the verdict compact: one line, no indentation, the same JSON
        String verdict = result.getData().get("verdict.json");
        assertThat(verdict).isEqualTo("{\"verdict\" : \"exclude\",\"nodes\" : [ {\"node\" : \"gpu-node-002\", \"reasons\" : [ \"a: b, c\" ]"
                + "} ],\"padding\" : \"\",\"excluded\" : \"gpu-node-[002-004]\"}\n");
        assertThat(new ObjectMapper().readTree(verdict).get("excluded").asText()).isEqualTo("gpu-node-[002-004]");

        // the Job's last container: its exit code is the gate's (1: some excluded, the Job fails)
        PodSpec pod = HelmChartTest.one(objects(), Job.class).getSpec().getTemplate().getSpec();
        String resultCmd = pod.getContainers().get(0).getCommand().get(2).replace("/work", work.toString());
        Process r = new ProcessBuilder("sh", "-c", resultCmd).redirectErrorStream(true).start();
        String out = new String(r.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(r.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(r.exitValue()).isEqualTo(1);
        assertThat(out).contains("exclude: gpu-node-[002-004]");
    }

    @Test
    void aVerdictTooLargeForTheConfigMapIsKeptAsItsSummaryAndLoggedInFull(@TempDir Path tmp) throws Exception {
        Gate g = gate(tmp, String.valueOf(1200 * 1024));
        String yaml = Files.readString(g.work().resolve("configmap.yaml"));
        ConfigMap result = (ConfigMap) HelmChartTest.K8S.unmarshal(yaml);
        // what the API server takes: 1 MiB of data in all
        assertThat(result.getData().values().stream().mapToInt(v -> v.getBytes(StandardCharsets.UTF_8).length).sum()).isLessThan(1024 * 1024);
        var summary = new ObjectMapper().readTree(result.getData().get("verdict.json"));
        assertThat(summary.get("verdict").asText()).isEqualTo("exclude");
        assertThat(summary.get("exit_code").asInt()).isEqualTo(1);
        assertThat(summary.get("excluded").asText()).isEqualTo("gpu-node-[002-004]");
        assertThat(summary.get("full_verdict").asText()).contains("in full in the Job's log: kubectl logs job/fabricd-preflight -c preflight");
        assertThat(result.getData().get("excluded.tsv")).contains("gpu-node-004\texclude");
        // the log has it whole
        assertThat(g.log()).contains("verdict.json (").contains("does not fit in the result ConfigMap; in full:")
                .contains("\"excluded\" : \"gpu-node-[002-004]\"}").contains("x".repeat(1200 * 1024));
    }

    private static String mount(Container c, String path) {
        return c.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(path)).map(VolumeMount::getName).findFirst().orElse(null);
    }

    private static Volume volume(PodSpec pod, String name) {
        return pod.getVolumes().stream().filter(v -> v.getName().equals(name)).findFirst().orElseThrow();
    }
}
