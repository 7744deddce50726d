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
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes/preflight-job.yaml: every document a valid object of its kind (no unknown
 * field), the names it joins consistent (service account, role, the nodes ConfigMap, the chart's
 * probe key Secret), one image, the one bin/dist builds as docs/install-kubernetes.md pushes it, its
 * arguments ones `fabricd preflight` takes, and the documented wait returning when the Job is over
 * either way, run against a stub kubectl (checked against the real one where there is one). What
 * the command stores in the result ConfigMap is the agent module's PreflightResultConfigMapTest's.
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
        // the result names its pod: the pod's own name from the downward API (HOSTNAME is the node's on the host network)
        assertThat(gate.getEnv()).filteredOn(e -> e.getName().equals("POD_NAME")).singleElement()
                .satisfies(e -> assertThat(e.getValueFrom().getFieldRef().getFieldPath()).isEqualTo("metadata.name"));
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

    static final String COMPLETE = job("{\"type\":\"SuccessCriteriaMet\",\"status\":\"True\"},{\"type\":\"Complete\",\"status\":\"True\"}");
    static final String FAILED = job("{\"type\":\"FailureTarget\",\"status\":\"True\"},{\"type\":\"Failed\",\"status\":\"True\"}");
    static final String RUNNING = job("");
    /** Kubernetes 1.31 and later: FailureTarget first, Failed once the pod is gone. */
    static final String FAILING = job("{\"type\":\"FailureTarget\",\"status\":\"True\"}");

    private static String job(String conditions) {
        return "{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"fabricd-preflight\"},\"status\":"
                + (conditions.isEmpty() ? "{\"active\":1}" : "{\"conditions\":[" + conditions + "]}") + "}";
    }

    /** The wait of docs/preflight.md's Kubernetes commands: its loop, from "for" to "done". */
    static String waitLoop() throws IOException {
        Matcher m = Pattern.compile("(?ms)^for i in .*?^done$").matcher(Files.readString(GUIDE_PREFLIGHT));
        assertThat(m.find()).as("the wait loop in docs/preflight.md").isTrue();
        return m.group();
    }

    /**
     * The documented wait returns as soon as the Job completed or failed (Kubernetes 1.31 and later
     * add SuccessCriteriaMet and FailureTarget first), polls while it runs, and gives up after 5
     * minutes. kubectl is no package the test suite installs: the loop runs against a stub kubectl
     * that accepts exactly the loop's arguments and answers what kubectl answers for them, each
     * state's answer being this test's JSONPath evaluation; where a real kubectl is on PATH, that
     * evaluation is checked against kubectl's own parser and printer (`kubectl label --local -o
     * jsonpath=`, offline), and so is every template of the documented commands.
     */
    @Test
    void theDocumentedWaitReturnsOnSuccessAndOnFailure(@TempDir Path tmp) throws Exception {
        String loop = waitLoop();
        Matcher get = Pattern.compile("kubectl -n monitoring get job/fabricd-preflight -o jsonpath='([^']+)'").matcher(loop);
        assertThat(get.find()).as(loop).isTrue();
        String expr = get.group(1);
        Path kubectl = onPath("kubectl");
        for (String state : List.of(COMPLETE, FAILED, RUNNING, FAILING)) {
            String answer = jsonPath(expr, state);
            if (kubectl != null) {
                assertThat(kubectlJsonPath(kubectl, tmp, expr, state)).as("kubectl's own answer for " + state).isEqualTo(answer);
            }
        }
        assertThat(jsonPath(expr, COMPLETE)).isEqualTo("True");
        assertThat(jsonPath(expr, FAILED)).isEqualTo("True");
        assertThat(jsonPath(expr, RUNNING)).isEmpty();
        assertThat(jsonPath(expr, FAILING)).as("its pod not yet gone").isEmpty();

        assertThat(runLoop(tmp, loop, expr, List.of(RUNNING, RUNNING, COMPLETE))).as("completed").containsExactly(3, 2);
        assertThat(runLoop(tmp, loop, expr, List.of(RUNNING, FAILING, FAILED))).as("failed").containsExactly(3, 2);
        assertThat(runLoop(tmp, loop, expr, List.of(FAILED))).as("over before the first poll").containsExactly(1, 0);
        assertThat(runLoop(tmp, loop, expr, List.of(RUNNING))).as("still running after 60 polls 5 s apart").containsExactly(60, 60);
    }

    /** kubectl wait takes one JSONPath expression: two concatenated fail at once ("unexpected path string"), in no doc or manifest. */
    @Test
    void noDocumentedWaitGivesKubectlWaitTwoExpressions() throws IOException {
        List<Path> files = new ArrayList<>(List.of(JOB));
        try (var docs = Files.list(Paths.repo().resolve("docs"))) {
            docs.filter(f -> f.toString().endsWith(".md")).forEach(files::add);
        }
        for (Path f : files) {
            assertThat(Files.readString(f)).as(f.toString()).doesNotContainPattern("--for=jsonpath='[^']*\\}\\{");
        }
    }

    /** Every JSONPath template of the documented commands parses with the real kubectl, and the result's reads as documented. */
    @Test
    void theDocumentedTemplatesParseWithKubectl(@TempDir Path tmp) throws Exception {
        Path kubectl = onPath("kubectl");
        Assumptions.assumeTrue(kubectl != null, "no kubectl on PATH (not a package the suite installs): "
                + "the templates are evaluated by theDocumentedWaitReturnsOnSuccessAndOnFailure alone");
        String result = "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"fabricd-preflight-result\"},"
                + "\"data\":{\"pod\":\"fabricd-preflight-x7k2p\",\"exit_code\":\"1\",\"commands\":\"kubectl cordon gpu-node-002\\n\"}}";
        Matcher t = Pattern.compile("kubectl -n monitoring get configmap fabricd-preflight-result -o jsonpath='([^']+)'")
                .matcher(Files.readString(GUIDE_PREFLIGHT));
        List<String> read = new ArrayList<>();
        while (t.find()) {
            read.add(kubectlJsonPath(kubectl, tmp, t.group(1), result));
        }
        assertThat(read).containsExactly("fabricd-preflight-x7k2p 1\n", "kubectl cordon gpu-node-002\n");
    }

    /**
     * Runs {@code loop} with a stub kubectl answering {@code states} one per poll (the last one
     * again once they are used up) and a stub sleep; returns how many times it polled and slept.
     */
    private static List<Integer> runLoop(Path tmp, String loop, String expr, List<String> states) throws Exception {
        Path dir = Files.createTempDirectory(tmp, "loop");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (int i = 0; i < states.size(); i++) {
            Files.writeString(dir.resolve("answer-" + (i + 1)), jsonPath(expr, states.get(i)));
        }
        Files.writeString(bin.resolve("kubectl"), String.join("\n", "#!/bin/bash",
                "# kubectl -n monitoring get job/fabricd-preflight -o jsonpath=EXPR, answered as kubectl answers it; nothing else",
                "[ $# = 6 ] && [ \"$1 $2 $3 $4 $5\" = '-n monitoring get job/fabricd-preflight -o' ] && [ \"$6\" = \"jsonpath=$EXPR\" ] \\",
                "  || { echo \"kubectl stub: unexpected arguments: $*\" >&2; exit 2; }",
                "n=$(( $(cat \"$DIR/polls\" 2>/dev/null || echo 0) + 1 ))",
                "echo $n >\"$DIR/polls\"",
                "[ $n -le $STATES ] || n=$STATES",
                "cat \"$DIR/answer-$n\"", ""));
        Files.writeString(bin.resolve("sleep"), "#!/bin/bash\necho \"$*\" >>\"$DIR/sleeps\"\n");
        bin.resolve("kubectl").toFile().setExecutable(true);
        bin.resolve("sleep").toFile().setExecutable(true);
        ProcessBuilder pb = new ProcessBuilder("bash", "-euc", loop).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("DIR", dir.toString());
        pb.environment().put("EXPR", expr);
        pb.environment().put("STATES", Integer.toString(states.size()));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).as("the loop prints nothing").isEmpty();
        List<String> sleeps = Files.exists(dir.resolve("sleeps")) ? Files.readAllLines(dir.resolve("sleeps")) : List.of();
        assertThat(sleeps).allMatch("5"::equals);
        return List.of(Integer.parseInt(Files.readString(dir.resolve("polls")).strip()), sleeps.size());
    }

    /** What kubectl prints for {@code -o jsonpath=TEMPLATE} over the object {@code json}, offline. */
    private static String kubectlJsonPath(Path kubectl, Path tmp, String template, String json) throws Exception {
        Path f = Files.writeString(Files.createTempFile(tmp, "object", ".json"), json);
        ProcessBuilder pb = new ProcessBuilder(kubectl.toString(), "label", "--local", "-f", f.toString(), "fabricd.io/test=1",
                "-o", "jsonpath=" + template);
        pb.environment().put("KUBECONFIG", tmp.resolve("no-kubeconfig").toString());
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(template + ": " + out).isZero();
        return out;
    }

    private static Path onPath(String command) {
        for (String d : System.getenv().getOrDefault("PATH", "").split(":")) {
            Path c = Path.of(d.isEmpty() ? "." : d, command);
            if (Files.isExecutable(c) && !Files.isDirectory(c)) {
                return c;
            }
        }
        return null;
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
