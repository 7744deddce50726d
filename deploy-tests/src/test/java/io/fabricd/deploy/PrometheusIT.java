package io.fabricd.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules and dashboards against the real thing: Debian's Prometheus scrapes two
 * `fabricd run --demo` agents (probing each other over UDP) and one agent on a fixture host whose
 * inventory expects a device that is gone and whose firmware differs from the demo's (the fleet of
 * three drifts), with alerts/*.rules.yaml loaded, then
 * every dashboard panel expression and every rule expression is evaluated through Prometheus's HTTP
 * API. Also promtool: `check rules` and the unit tests of alerts/tests.
 *
 * <p>The rules are loaded with their {@code for:} hold times set to 0s (nothing else changed), so the
 * demo's planted faults fire within a minute; the hold times themselves are what the promtool unit
 * tests check.
 */
class PrometheusIT {
    static final Path REPO = Paths.repo();
    static final ObjectMapper JSON = new ObjectMapper();
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    static final String KEY = "prometheus-it-probe-key-0123456789";

    /**
     * The alerts the demo's planted faults bring to firing, and nothing else may fire: mlx5_7 has no
     * PFC on its RoCE priority and drops (out_of_sequence, packet_seq_err, local_ack_timeout_err);
     * mlx5_3's symbol_error is pinned at 65535; mlx5_6's netdev MTU is off; GPU dc:00.0 sits on the
     * other NUMA node from its NIC (agent/src/main/java/io/fabricd/agent/demo); its planted bandwidth
     * result into mlx5_7 is 55 % of the ceiling (BandwidthServing.demo).
     */
    static final Set<String> DEMO_ALERTS = Set.of("FabricPfcMissing", "FabricMtuMismatch", "FabricNumaMisaffinity",
            "FabricCounterSaturated", "FabricRetransmissionsHigh", "FabricOutOfSequenceHigh", "FabricBandwidthLow",
            "FabricPcieAcsRedirect", "FabricPcieMaxReadRequest", "FabricHardwareMissing", "FabricConfigDrift");
    /** The fixture agent's host (host-f-big, its name from the fixture's manifest). */
    static String fixtureTarget;
    static String demoTarget;

    static Path tmp;
    static final List<Process> processes = new ArrayList<>();
    static int prometheusPort;

    static Path program(String name, String hint) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        if ("true".equals(System.getenv("CI"))) {
            fail(name + " is not installed (" + hint + ")");
        }
        assumeTrue(false, name + " is not installed (" + hint + ")");
        return null;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    static HttpResponse<String> get(String url) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    static void awaitOk(String url, Duration max) throws Exception {
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                if (get(url).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        fail(url + " not ready within " + max);
    }

    static Process start(Path log, String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        processes.add(p);
        return p;
    }

    @BeforeAll
    static void startPrometheusAndTwoDemoAgents(@TempDir Path dir) throws Exception {
        Path prometheus = program("prometheus", "apt-get install prometheus");
        tmp = dir;
        int a = freePort();
        int b = freePort();
        Files.writeString(tmp.resolve("key"), KEY);
        Files.setPosixFilePermissions(tmp.resolve("key"), PosixFilePermissions.fromString("rw-------"));
        for (String[] ab : new String[][] {{"a", String.valueOf(a), String.valueOf(b)}, {"b", String.valueOf(b), String.valueOf(a)}}) {
            Path cfg = Files.writeString(tmp.resolve("agent-" + ab[0] + ".yaml"), String.join("\n",
                    "collection: {interval: 2s}",
                    "probe:",
                    "  key_file: " + tmp.resolve("key"),
                    "  udp_port: 0",
                    "  node_name: demo-" + ab[0],
                    "  peers: [\"127.0.0.1:" + ab[2] + "\"]",
                    "  interval: 1s",
                    "  jitter: 0",
                    "  count: 5",
                    "  pacing: 5ms", ""));
            start(tmp.resolve("agent-" + ab[0] + ".log"), REPO.resolve("bin/fabricd").toString(), "run", "--demo", "--listen",
                    "127.0.0.1:" + ab[1], "--config", cfg.toString());
        }
        // a fixture host whose inventory was accepted with mlx5_6, which is then gone (its driver
        // unbound), and whose cards run another firmware than the demo's
        Path host = copyTree(REPO.resolve("collectors/src/test/fixtures/host-f-big"), tmp.resolve("host-f-big"));
        Path state = tmp.resolve("state");
        Process accept = new ProcessBuilder(REPO.resolve("bin/fabricd").toString(), "inventory", "accept", "--root", host.toString(),
                "--state-dir", state.toString()).redirectErrorStream(true).start();
        String acceptOut = new String(accept.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(accept.waitFor()).as(acceptOut).isZero();
        Path gone = host.resolve("sys/class/infiniband/mlx5_6");
        Path goneReal = gone.toRealPath();
        Files.delete(gone);
        deleteTree(goneReal);
        try (Stream<Path> fw = Files.walk(host.resolve("sys/devices"))) {
            for (Path f : fw.filter(x -> x.getFileName().toString().equals("fw_ver")).toList()) {
                Files.writeString(f, "28.36.1010\n");
            }
        }
        int c = freePort();
        start(tmp.resolve("agent-fixture.log"), REPO.resolve("bin/fabricd").toString(), "run", "--root", host.toString(),
                "--state-dir", state.toString(), "--listen", "127.0.0.1:" + c, "--config",
                Files.writeString(tmp.resolve("agent-fixture.yaml"), "collection: {interval: 2s}\n").toString());
        awaitOk("http://127.0.0.1:" + a + "/readyz", Duration.ofSeconds(90));
        awaitOk("http://127.0.0.1:" + b + "/readyz", Duration.ofSeconds(90));
        awaitOk("http://127.0.0.1:" + c + "/readyz", Duration.ofSeconds(90));
        demoTarget = "127.0.0.1:" + a;
        fixtureTarget = "127.0.0.1:" + c;
        // one unauthenticated endpoint request: the responder's dropped counter gets its series
        get("http://127.0.0.1:" + a + "/api/v1/probe/endpoint");

        Path rules = Files.createDirectories(tmp.resolve("rules"));
        try (Stream<Path> files = Files.list(REPO.resolve("alerts"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".rules.yaml")).toList()) {
                String text = Files.readString(f).replaceAll("(?m)^(\\s+)for: \\S+$", "$1for: 0s");
                Files.writeString(rules.resolve(f.getFileName()), text);
            }
        }
        prometheusPort = freePort();
        Path config = Files.writeString(tmp.resolve("prometheus.yml"), String.join("\n",
                "global: {scrape_interval: 1s, evaluation_interval: 1s}",
                "rule_files: ['" + rules + "/*.rules.yaml']",
                "scrape_configs:",
                // a job name without "fabricd" in it, and node names as the chart's ServiceMonitor sets them
                "  - job_name: node-fabric",
                "    static_configs:",
                "      - {targets: ['127.0.0.1:" + a + "'], labels: {node: demo-a}}",
                "      - {targets: ['127.0.0.1:" + b + "'], labels: {node: demo-b}}",
                "      - {targets: ['127.0.0.1:" + c + "'], labels: {node: fixture-big}}", ""));
        start(tmp.resolve("prometheus.log"), prometheus.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + tmp.resolve("data"), "--web.listen-address=127.0.0.1:" + prometheusPort);
        awaitOk("http://127.0.0.1:" + prometheusPort + "/-/ready", Duration.ofSeconds(60));
    }

    static Path copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path t = to.resolve(from.relativize(p).toString());
                if (Files.isSymbolicLink(p)) {
                    Files.createSymbolicLink(t, Files.readSymbolicLink(p));
                } else if (Files.isDirectory(p)) {
                    Files.createDirectories(t);
                } else {
                    Files.copy(p, t);
                }
            }
        }
        return to;
    }

    static void deleteTree(Path p) throws IOException {
        try (Stream<Path> all = Files.walk(p)) {
            for (Path x : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(x);
            }
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
            if (!p.waitFor(20, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    static JsonNode query(String promql) throws Exception {
        HttpResponse<String> r = get("http://127.0.0.1:" + prometheusPort + "/api/v1/query?query="
                + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        JsonNode j = JSON.readTree(r.body());
        assertThat(j.path("status").asText()).as(promql + "\n" + r.body()).isEqualTo("success");
        assertThat(j.has("warnings")).as(promql + "\n" + r.body()).isFalse();
        return j.at("/data/result");
    }

    /** Grafana's variables as "All" and a rate window that fits a 1 s scrape. */
    static String substitute(String expr) {
        return substitute(expr, ".*");
    }

    /** ... with $instance (the selected hosts' targets) set to {@code instance}. */
    static String substitute(String expr, String instance) {
        return expr.replace("$__rate_interval", "15s").replace("$cluster", ".*").replace("$rack", ".*").replace("$host", ".*")
                .replace("$instance", instance);
    }

    /** Title → expressions of every panel of every dashboard. */
    static Map<String, List<String>> panels() throws IOException {
        Map<String, List<String>> out = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(REPO.resolve("dashboards/grafana"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                JsonNode d = JSON.readTree(f.toFile());
                for (JsonNode p : d.get("panels")) {
                    List<String> exprs = new ArrayList<>();
                    p.path("targets").forEach(t -> exprs.add(t.get("expr").asText()));
                    out.put(d.get("title").asText() + ": " + p.get("title").asText(), exprs);
                }
            }
        }
        return out;
    }

    /** Every rule of alerts/*.rules.yaml: name → expression. */
    static Map<String, String> rules() throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(REPO.resolve("alerts"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".rules.yaml")).sorted().toList()) {
                for (JsonNode g : YAML.readTree(f.toFile()).get("groups")) {
                    for (JsonNode r : g.get("rules")) {
                        out.put(r.has("alert") ? r.get("alert").asText() : r.get("record").asText(), r.get("expr").asText());
                    }
                }
            }
        }
        return out;
    }

    @Test
    void promtoolChecksTheRulesAndPassesTheirUnitTests() throws Exception {
        Path promtool = program("promtool", "apt-get install prometheus");
        List<String> check = new ArrayList<>(List.of(promtool.toString(), "check", "rules"));
        List<String> unit = new ArrayList<>(List.of(promtool.toString(), "test", "rules"));
        try (Stream<Path> files = Files.list(REPO.resolve("alerts"))) {
            files.filter(p -> p.toString().endsWith(".rules.yaml")).sorted().forEach(p -> check.add(p.toString()));
        }
        try (Stream<Path> files = Files.list(REPO.resolve("alerts/tests"))) {
            files.filter(p -> p.toString().endsWith(".test.yaml")).sorted().forEach(p -> unit.add(p.getFileName().toString()));
        }
        assertThat(unit).hasSizeGreaterThan(3 + 5);
        for (List<String> cmd : List.of(check, unit)) {
            Process p = new ProcessBuilder(cmd).directory(REPO.resolve("alerts/tests").toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor()).as(String.join(" ", cmd) + "\n" + out).isZero();
            assertThat(out).doesNotContain("FAILED");
        }
    }

    @Test
    void everyRuleHasSeverityRunbookAndDescription() throws Exception {
        try (Stream<Path> files = Files.list(REPO.resolve("alerts"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".rules.yaml")).toList()) {
                for (JsonNode g : YAML.readTree(f.toFile()).get("groups")) {
                    for (JsonNode r : g.get("rules")) {
                        if (!r.has("alert")) {
                            continue;
                        }
                        String name = r.get("alert").asText();
                        boolean fromFinding = r.get("expr").asText().contains("fabric_finding");
                        assertThat(fromFinding || r.at("/labels/severity").asText().matches("critical|warning|info")).as(name).isTrue();
                        assertThat(r.at("/annotations/summary").asText()).as(name).isNotBlank();
                        assertThat(r.at("/annotations/description").asText()).as(name).contains("{{ $labels.");
                        String runbook = r.at("/annotations/runbook_url").asText();
                        Matcher m = Pattern.compile("docs/(checks|operations|alerts)\\.md#([a-z_-]+)$").matcher(runbook);
                        assertThat(m.find()).as(name + " runbook " + runbook).isTrue();
                        String doc = Files.readString(REPO.resolve("docs/" + m.group(1) + ".md"));
                        assertThat(doc.toLowerCase().replace(' ', '-')).as(name + ": no section for " + runbook)
                                .contains("##-" + m.group(2));
                    }
                }
            }
        }
    }

    @Test
    void everyExpressionEvaluatesThePanelsHaveDataAndEveryNameIsExported() throws Exception {
        // a few scrapes, so that rate() has two samples in its window
        Thread.sleep(20_000);
        Set<String> exported = new TreeSet<>();
        JSON.readTree(get("http://127.0.0.1:" + prometheusPort + "/api/v1/label/__name__/values").body()).get("data")
                .forEach(n -> exported.add(n.asText()));
        assertThat(exported).contains("fabric_port_up", "fabric_finding", "fabric_probe_sent_total");

        Set<String> used = new TreeSet<>();
        Pattern name = Pattern.compile("\\bfabric_[a-z0-9_]+");
        List<String> empty = new ArrayList<>();
        for (Map.Entry<String, List<String>> p : panels().entrySet()) {
            boolean data = false;
            // the host drill-down on one host: each panel has data for the demo host it is opened on
            String instance = p.getKey().startsWith("fabricd / Host drill-down") ? demoTarget : ".*";
            for (String expr : p.getValue()) {
                Matcher m = name.matcher(expr);
                while (m.find()) {
                    used.add(m.group());
                }
                data |= !query(substitute(expr, instance)).isEmpty();
            }
            if (!data) {
                empty.add(p.getKey());
            }
        }
        assertThat(empty).as("panels without data on the demo (every panel has some: the demo has every kind of data)").isEmpty();

        for (Map.Entry<String, String> r : rules().entrySet()) {
            query(r.getValue());
            Matcher m = name.matcher(r.getValue());
            while (m.find()) {
                used.add(m.group());
            }
        }
        assertThat(used).as("names used by dashboards and alerts that fabricd does not export").isSubsetOf(exported);
    }

    @Test
    void theDemosPlantedFaultsFireTheirAlertsAndNothingElseFires() throws Exception {
        // (FabricPeerProbeLoss stays quiet: loopback probes are never lost)
        // the transport alerts use rate(...[5m]): with under 5 minutes of data the rate is the
        // increase over the whole window, so 25 out-of-sequence packets/s cross 10/s after ~2 minutes
        long deadline = System.nanoTime() + Duration.ofSeconds(300).toNanos();
        Set<String> firing = new TreeSet<>();
        while (System.nanoTime() < deadline) {
            firing.clear();
            for (JsonNode a : JSON.readTree(get("http://127.0.0.1:" + prometheusPort + "/api/v1/alerts").body()).at("/data/alerts")) {
                if (a.get("state").asText().equals("firing")) {
                    firing.add(a.at("/labels/alertname").asText());
                }
            }
            if (firing.containsAll(DEMO_ALERTS)) {
                break;
            }
            Thread.sleep(1000);
        }
        // nothing else fires, except probe latency: the two agents probe each other over loopback on a
        // busy 2-core CI machine (Prometheus, two JVMs, the build), where one slow answer in a small
        // window lifts p99 over 5 ms with the hold time at 0 s — the machine's load, not a planted fault
        assertThat(firing).containsAll(DEMO_ALERTS);
        Set<String> others = new TreeSet<>(firing);
        others.removeAll(DEMO_ALERTS);
        assertThat(others).isSubsetOf("FabricPeerProbeLatency", "FabricRackProbeLatency");
        // the firing alerts carry the subject: mlx5_7's PFC finding, with its severity
        JsonNode pfc = query("ALERTS{alertname=\"FabricPfcMissing\", alertstate=\"firing\"}");
        assertThat(pfc).isNotEmpty();
        assertThat(pfc.get(0).at("/metric/device").asText()).isEqualTo("mlx5_7");
        assertThat(pfc.get(0).at("/metric/severity").asText()).isEqualTo("critical");
        // the vanished device, on the fixture host, named; the drifted firmware on the fixture host
        JsonNode missing = query("ALERTS{alertname=\"FabricHardwareMissing\", alertstate=\"firing\"}");
        assertThat(missing).hasSize(1);
        assertThat(missing.get(0).at("/metric/device").asText()).isEqualTo("mlx5_6");
        assertThat(missing.get(0).at("/metric/node").asText()).isEqualTo("fixture-big");
        JsonNode drift = query("ALERTS{alertname=\"FabricConfigDrift\", alertstate=\"firing\", key=\"firmware\"}");
        assertThat(drift).hasSize(1);
        assertThat(drift.get(0).at("/metric/value").asText()).isEqualTo("28.36.1010");

        // every firing alert's words: the host by its node name, no template left, no empty label printed
        for (JsonNode al : JSON.readTree(get("http://127.0.0.1:" + prometheusPort + "/api/v1/alerts").body()).at("/data/alerts")) {
            if (!al.get("state").asText().equals("firing")) {
                continue;
            }
            String alertName = al.at("/labels/alertname").asText();
            for (String k : List.of("summary", "description")) {
                String text = al.at("/annotations/" + k).asText();
                assertThat(text).as(alertName + " " + k).isNotBlank().doesNotContain("{{").doesNotContain("<no value>")
                        .doesNotContain("  ").doesNotContain(" ,").doesNotContain("()").doesNotContain("=,")
                        .doesNotContainPattern("[a-z_]+= ").doesNotContain("/api/v1/findings");
            }
            if (al.at("/labels/job").isMissingNode()) {
                continue; // the fleet-wide rules aggregate targets away
            }
            assertThat(al.at("/annotations/summary").asText() + al.at("/annotations/description").asText()).as(alertName)
                    .containsAnyOf("demo-a", "demo-b", "fixture-big", "node-fabric", al.at("/labels/peer").asText("\u0000"),
                            al.at("/labels/peer_rack").asText("\u0000"));
        }
    }
}
